//! The two security schemes as poem-openapi extractors. The rate-limit middleware resolves who
//! is calling once per request (it needs that to pick the bucket) and leaves an `Identity` in the
//! request; a handler that takes `ApiKeyAuth` or `BearerAuth` is authenticated by construction.
use super::api_key::KeyContext;
use super::player_token::{PlayerAuth, PlayerClaim};
use crate::error::ApiError;
use poem::{Request, RequestBody};
use poem_openapi::{
    registry::{MetaSecurityScheme, Registry},
    ApiExtractor, ApiExtractorType, ExtractParamOptions,
};
use std::sync::Arc;
use uuid::Uuid;

pub const API_KEY_HEADER: &str = "x-game-api-key";

/// The one route that takes a dashboard token as `?access_token=` (the WebSocket feed:
/// browsers cannot give a WebSocket a header).
pub const QUERY_TOKEN_PATH: &str = "/v1/activity/stream";

/// Who the caller of one request is, as far as the credentials it sent tell.
#[derive(Debug, Clone)]
pub enum Identity {
    Anonymous,
    /// A valid game key, and the player a valid player token for its game names.
    GameKey(Arc<KeyContext>, Option<PlayerClaim>),
    /// A valid game key with a player token that is not valid for it.
    BadPlayerToken(Arc<KeyContext>, ApiError),
    InvalidKey,
    User(Uuid),
    BadToken(ApiError),
}

/// A request made with a valid `x-game-api-key`, and the player of its valid player token
/// (`x-player-token`) when it carries one and the game has player identity on.
pub struct ApiKeyAuth(pub Arc<KeyContext>, pub Option<PlayerClaim>);

/// What a request without a player token hears from a game whose `player_auth` is `required`.
pub const PLAYER_TOKEN_REQUIRED: &str =
    "This game requires a player token (x-player-token) for this route: sign in with POST /v1/players/auth";

impl ApiKeyAuth {
    pub fn game_id(&self) -> Uuid {
        self.0.game_id
    }

    /// The player of the request's token, when it carries one.
    pub fn player(&self) -> Option<&str> {
        self.1.as_ref().map(|claim| claim.player_id.as_str())
    }

    /// Whether this request may act as `player_id`: with a player token, only as the token's
    /// player (403 otherwise); without one, as anyone unless the game requires tokens (401).
    pub fn acts_as(&self, player_id: &str) -> Result<(), ApiError> {
        match self.player() {
            Some(own) if own == player_id => Ok(()),
            Some(_) => Err(ApiError::forbidden(
                "This player token is for another player",
            )),
            None => self.player_optional(),
        }
    }

    /// For routes that act for a player named nowhere else (events without `player_id`):
    /// 401 without a token when the game requires one.
    pub fn player_optional(&self) -> Result<(), ApiError> {
        if self.1.is_none() && self.0.player_auth == PlayerAuth::Required {
            return Err(ApiError::unauthorized(PLAYER_TOKEN_REQUIRED));
        }
        Ok(())
    }

    /// For reads that are not about one player (funnel reports, the presence list): 403 when
    /// the game switched them off for game keys (`key_reads`).
    pub fn may_read_reports(&self) -> Result<(), ApiError> {
        if self.0.key_reads {
            Ok(())
        } else {
            Err(ApiError::forbidden(
                "This game does not allow this read with a game key (key_reads is off)",
            ))
        }
    }
}

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
            Identity::GameKey(context, player) => Ok(Self(context, player)),
            Identity::BadPlayerToken(_, error) => Err(error.into()),
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
