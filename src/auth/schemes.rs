//! The two security schemes as poem-openapi extractors. The rate-limit middleware resolves who
//! is calling once per request (it needs that to pick the bucket) and leaves an `Identity` in the
//! request; a handler that takes `ApiKeyAuth` or `BearerAuth` is authenticated by construction.
use super::api_key::KeyContext;
use crate::error::ApiError;
use poem::{Request, RequestBody};
use poem_openapi::{
    registry::{MetaSecurityScheme, Registry},
    ApiExtractor, ApiExtractorType, ExtractParamOptions,
};
use std::sync::Arc;
use uuid::Uuid;

pub const API_KEY_HEADER: &str = "x-game-api-key";

/// Who the caller of one request is, as far as the credentials it sent tell.
#[derive(Debug, Clone)]
pub enum Identity {
    Anonymous,
    GameKey(Arc<KeyContext>),
    InvalidKey,
    User(Uuid),
    BadToken(ApiError),
}

/// A request made with a valid `x-game-api-key`.
pub struct ApiKeyAuth(pub Arc<KeyContext>);

/// A request made with a valid dashboard JWT (`Authorization: Bearer ...`).
pub struct BearerAuth(pub Uuid);

fn identity(req: &Request) -> Identity {
    req.extensions()
        .get::<Identity>()
        .cloned()
        .unwrap_or(Identity::Anonymous)
}

impl<'a> ApiExtractor<'a> for ApiKeyAuth {
    const TYPES: &'static [ApiExtractorType] = &[ApiExtractorType::SecurityScheme];
    type ParamType = ();
    type ParamRawType = ();

    fn register(registry: &mut Registry) {
        registry.create_security_scheme(
            "ApiKeyAuth",
            MetaSecurityScheme {
                ty: "apiKey",
                description: Some("The game's API key, created in the dashboard."),
                name: Some(API_KEY_HEADER),
                key_in: Some("header"),
                scheme: None,
                bearer_format: None,
                flows: None,
                openid_connect_url: None,
            },
        );
    }

    fn security_schemes() -> Vec<&'static str> {
        vec!["ApiKeyAuth"]
    }

    async fn from_request(
        req: &'a Request,
        _body: &mut RequestBody,
        _param_opts: ExtractParamOptions<Self::ParamType>,
    ) -> poem::Result<Self> {
        match identity(req) {
            Identity::GameKey(context) => Ok(Self(context)),
            Identity::InvalidKey => Err(ApiError::unauthorized("Invalid API key").into()),
            _ => Err(ApiError::unauthorized("Missing x-game-api-key header").into()),
        }
    }
}

impl<'a> ApiExtractor<'a> for BearerAuth {
    const TYPES: &'static [ApiExtractorType] = &[ApiExtractorType::SecurityScheme];
    type ParamType = ();
    type ParamRawType = ();

    fn register(registry: &mut Registry) {
        registry.create_security_scheme(
            "BearerAuth",
            MetaSecurityScheme {
                ty: "http",
                description: Some("Dashboard token from register or login, valid 7 days."),
                name: None,
                key_in: None,
                scheme: Some("bearer"),
                bearer_format: Some("JWT"),
                flows: None,
                openid_connect_url: None,
            },
        );
    }

    fn security_schemes() -> Vec<&'static str> {
        vec!["BearerAuth"]
    }

    async fn from_request(
        req: &'a Request,
        _body: &mut RequestBody,
        _param_opts: ExtractParamOptions<Self::ParamType>,
    ) -> poem::Result<Self> {
        match identity(req) {
            Identity::User(user_id) => Ok(Self(user_id)),
            Identity::BadToken(error) => Err(error.into()),
            _ => Err(ApiError::unauthorized("Missing Authorization bearer token").into()),
        }
    }
}
