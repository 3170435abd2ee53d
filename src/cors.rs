//! CORS. Game-side routes (a request carrying `x-game-api-key`) serve the web origins the key's
//! game allows (`allowed_origins`, `*` for any); every other route serves only the node's own
//! public origin (the dashboard's). A preflight carries no key, so one that asks to send
//! `x-game-api-key` is answered for any origin: it grants nothing, and the request that follows
//! is checked against its game's list: a browser request from an origin the game does not allow
//! is refused with 403 before anything is stored.
use crate::{error::ApiError, state::AppState};
use poem::error::ResponseError;
use poem::{
    http::{header, HeaderValue, Method, StatusCode},
    Endpoint, IntoResponse, Middleware, Request, Response, Result,
};

const ALLOWED_METHODS: &str = "GET, POST, PUT, PATCH, DELETE";
/// Headers a browser game may read beside the safelisted ones.
const EXPOSED_HEADERS: &str =
    "etag, retry-after, x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset, x-request-id";
/// How long a browser may reuse a preflight's answer.
const PREFLIGHT_MAX_AGE_SECS: &str = "600";

pub struct Cors {
    state: AppState,
    /// The node's own origin (from `--public-url`), served on every route.
    own_origin: String,
}

impl Cors {
    pub fn new(state: &AppState) -> Self {
        let own_origin = reqwest::Url::parse(&state.public_url)
            .map(|url| url.origin().ascii_serialization())
            .unwrap_or_default();
        Self {
            state: state.clone(),
            own_origin,
        }
    }
}

impl<E: Endpoint> Middleware<E> for Cors {
    type Output = CorsEndpoint<E>;

    fn transform(&self, inner: E) -> Self::Output {
        CorsEndpoint {
            inner,
            state: self.state.clone(),
            own_origin: self.own_origin.clone(),
        }
    }
}

pub struct CorsEndpoint<E> {
    inner: E,
    state: AppState,
    own_origin: String,
}

impl<E: Endpoint> Endpoint for CorsEndpoint<E> {
    type Output = Response;

    async fn call(&self, req: Request) -> Result<Self::Output> {
        let Some(origin) = req
            .header(header::ORIGIN)
            .filter(|origin| *origin != "null")
            .map(str::to_string)
        else {
            return self.inner.call(req).await.map(IntoResponse::into_response);
        };
        let own = origin == self.own_origin;

        if req.method() == Method::OPTIONS
            && req
                .headers()
                .contains_key(header::ACCESS_CONTROL_REQUEST_METHOD)
        {
            let requested = req
                .header(header::ACCESS_CONTROL_REQUEST_HEADERS)
                .unwrap_or_default();
            let game_side = requested
                .split(',')
                .any(|name| name.trim().eq_ignore_ascii_case("x-game-api-key"));
            let mut response = StatusCode::NO_CONTENT.into_response();
            if game_side || own {
                let headers = response.headers_mut();
                allow(headers, &origin);
                headers.insert(
                    header::ACCESS_CONTROL_ALLOW_METHODS,
                    HeaderValue::from_static(ALLOWED_METHODS),
                );
                if let Ok(value) = HeaderValue::from_str(requested) {
                    headers.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, value);
                }
                headers.insert(
                    header::ACCESS_CONTROL_MAX_AGE,
                    HeaderValue::from_static(PREFLIGHT_MAX_AGE_SECS),
                );
            }
            return Ok(response);
        }

        let allowed = match req.header("x-game-api-key") {
            Some(key) if !own => match self.state.keys.resolve(&self.state.db, key).await {
                Ok(Some(context)) => {
                    if !context.allows_origin(&origin) {
                        return Ok(ApiError::forbidden(
                            "This origin is not allowed for this game (allowed_origins)",
                        )
                        .as_response());
                    }
                    true
                }
                // Unknown keys and storage failures: the route answers them (401, 503).
                _ => false,
            },
            _ => own,
        };
        let mut response = self.inner.call(req).await?.into_response();
        if allowed {
            allow(response.headers_mut(), &origin);
        }
        Ok(response)
    }
}

fn allow(headers: &mut poem::http::HeaderMap, origin: &str) {
    if let Ok(value) = HeaderValue::from_str(origin) {
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, value);
    }
    headers.insert(
        header::ACCESS_CONTROL_EXPOSE_HEADERS,
        HeaderValue::from_static(EXPOSED_HEADERS),
    );
    headers.append(header::VARY, HeaderValue::from_static("origin"));
}
