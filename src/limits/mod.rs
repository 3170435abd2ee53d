//! Rate limiting (poem middleware): who is calling decides the bucket (API key, user, or client
//! IP), the hot store counts the fixed one-minute window, and every answer carries the
//! `X-RateLimit-*` headers. The caller's identity is left in the request for the extractors.
use crate::{
    auth::{
        api_key::KeyContext,
        player_token::{PlayerAuth, PLAYER_TOKEN_HEADER},
        schemes::API_KEY_HEADER,
        Identity,
    },
    error::{into_json_response, ApiError},
    state::AppState,
};
use lease::LeasedWindows;
use poem::{
    http::{header, HeaderValue, StatusCode},
    Endpoint, IntoResponse, Middleware, Request, Response,
};
use std::sync::Arc;

pub mod lease;

pub const WINDOW_SECS: u64 = 60;

/// Paths that are never limited: health probes from load balancers and orchestrators, and the
/// metrics scrape.
const EXEMPT: &[&str] = &["/healthz", "/readyz", crate::telemetry::route::PATH];

pub struct RateLimit {
    pub state: AppState,
    pub windows: Arc<LeasedWindows>,
}

impl RateLimit {
    pub fn new(state: &AppState) -> Self {
        let leasing = state.hot.redis.is_some();
        Self {
            state: state.clone(),
            windows: Arc::new(LeasedWindows::new(state.hot.limits.clone(), leasing)),
        }
    }
}

impl<E: Endpoint> Middleware<E> for RateLimit {
    type Output = RateLimitEndpoint<E>;

    fn transform(&self, inner: E) -> Self::Output {
        RateLimitEndpoint {
            inner,
            state: self.state.clone(),
            windows: self.windows.clone(),
        }
    }
}

pub struct RateLimitEndpoint<E> {
    inner: E,
    state: AppState,
    windows: Arc<LeasedWindows>,
}

impl<E: Endpoint> Endpoint for RateLimitEndpoint<E> {
    type Output = Response;

    async fn call(&self, mut req: Request) -> poem::Result<Response> {
        let exempt = EXEMPT.contains(&req.uri().path());
        let identity = match identify(&self.state, &req).await {
            Ok(identity) => identity,
            Err(error) => return Ok(error.as_response_json()),
        };
        let buckets = buckets_of(&self.state, &identity, &req);
        req.extensions_mut().insert(identity);
        if exempt {
            return Ok(respond(
                self.inner.call(req).await.map(IntoResponse::into_response),
            ));
        }

        // The window with the fewest requests left speaks for the request (and its headers).
        let mut tightest = None;
        for (bucket, limit) in &buckets {
            match self
                .windows
                .hit(bucket, *limit, WINDOW_SECS, self.state.now())
                .await
            {
                Ok(window) => {
                    let remaining = limit.saturating_sub(window.count);
                    let over = window.count > *limit;
                    let tighter = match &tightest {
                        None => true,
                        Some((_, _, seen_remaining, seen_over)) => {
                            (over && !seen_over)
                                || (over == *seen_over && remaining < *seen_remaining)
                        }
                    };
                    if tighter {
                        tightest = Some((window, *limit, remaining, over));
                    }
                    // A request refused by one window is not counted in the next: a player
                    // over their own limit does not spend the game key's shared window.
                    if over {
                        break;
                    }
                }
                Err(error) => {
                    // Failing open keeps the game running while the hot store recovers;
                    // readiness reports the outage.
                    tracing::warn!(error.cause_chain = ?error, "rate limiter unavailable; request let through");
                    crate::telemetry::hot_store_error(error.kind());
                }
            }
        }
        let Some((window, limit, remaining, over)) = tightest else {
            return Ok(respond(
                self.inner.call(req).await.map(IntoResponse::into_response),
            ));
        };
        let mut response = if over {
            let mut error = ApiError::new(StatusCode::TOO_MANY_REQUESTS, "Too Many Requests")
                .with("statusCode", 429)
                .with(
                    "message",
                    "Too many requests, please try again in 60 seconds.",
                );
            error.retry_after = Some(window.resets_in_secs);
            error.as_response_json()
        } else {
            respond(self.inner.call(req).await.map(IntoResponse::into_response))
        };
        let headers = response.headers_mut();
        headers.insert("x-ratelimit-limit", HeaderValue::from(limit));
        headers.insert("x-ratelimit-remaining", HeaderValue::from(remaining));
        headers.insert(
            "x-ratelimit-reset",
            HeaderValue::from(window.resets_in_secs),
        );
        Ok(response)
    }
}

fn respond(result: poem::Result<Response>) -> Response {
    match result {
        Ok(response) => response,
        Err(error) => into_json_response(error),
    }
}

trait AsJsonResponse {
    fn as_response_json(&self) -> Response;
}

impl AsJsonResponse for ApiError {
    fn as_response_json(&self) -> Response {
        poem::error::ResponseError::as_response(self)
    }
}

/// Reads the credentials a request carries. A wrong key or token is not an error here: the
/// request is then limited by IP and the extractor answers 401 if the route needs them.
async fn identify(state: &AppState, req: &Request) -> Result<Identity, ApiError> {
    if let Some(raw_key) = req.headers().get(API_KEY_HEADER) {
        let raw_key = raw_key.to_str().unwrap_or_default().trim();
        if raw_key.is_empty() {
            return Ok(Identity::Anonymous);
        }
        return Ok(match state.keys.resolve(&state.db, raw_key).await? {
            Some(context) => with_player(state, req, context),
            None => Identity::InvalidKey,
        });
    }
    let token = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("bearer "))
        })
        .map(|t| t.trim().to_string())
        .or_else(|| access_token_param(req));
    Ok(match token {
        Some(token) => match state.jwt.verify(&token, state.now()) {
            Ok((user_id, generation)) => {
                let sessions = &state.parts.sessions;
                match sessions.token_generation(&state.db, user_id).await? {
                    Some(current) if current != generation => {
                        Identity::BadToken(ApiError::unauthorized("Token revoked"))
                    }
                    // A deleted account's token: the route answers that it is gone.
                    _ => Identity::User(user_id),
                }
            }
            Err(error) => Identity::BadToken(error),
        },
        None => Identity::Anonymous,
    })
}

/// A valid key's identity with the player of its `x-player-token`, when the game has player
/// identity on (with `off` the header is ignored: the key acts as any player, as always).
fn with_player(state: &AppState, req: &Request, context: Arc<KeyContext>) -> Identity {
    let token = req
        .headers()
        .get(PLAYER_TOKEN_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|token| !token.is_empty());
    let Some(token) = token.filter(|_| context.player_auth != PlayerAuth::Off) else {
        return Identity::GameKey(context, None);
    };
    match state.jwt.players.verify(token, state.now()) {
        Ok(claim) if claim.game_id == context.game_id => Identity::GameKey(context, Some(claim)),
        Ok(_) => Identity::BadPlayerToken(
            context,
            ApiError::unauthorized("This player token is for another game"),
        ),
        Err(error) => Identity::BadPlayerToken(context, error),
    }
}

/// WebSocket clients in browsers cannot set headers, so the live feed also takes
/// `?access_token=`; no other route does (a token in a URL ends up in proxy logs, browser
/// history and `Referer` headers).
fn access_token_param(req: &Request) -> Option<String> {
    if req.uri().path() != crate::auth::schemes::QUERY_TOKEN_PATH {
        return None;
    }
    let query = req.uri().query()?;
    query.split('&').find_map(|pair| {
        let (name, value) = pair.split_once('=')?;
        (name == "access_token" && !value.is_empty()).then(|| value.to_string())
    })
}

/// A request with a player token counts against its player's bucket as well as its key's, so
/// one noisy player cannot use up the game's requests.
pub const DEFAULT_PLAYER_RATE_LIMIT_PER_MINUTE: u64 = 120;

/// The buckets a request counts against, with their limits: its key's (or user's, or IP's),
/// and its player's when it carries a player token.
fn buckets_of(state: &AppState, identity: &Identity, req: &Request) -> Vec<(String, u64)> {
    let default = state.settings.rate_limit_per_minute;
    match identity {
        Identity::GameKey(context, player) => {
            // The player's own window first: what it refuses never reaches the key's.
            let mut buckets = Vec::with_capacity(2);
            if let Some(claim) = player {
                buckets.push((
                    format!("player:{}:{}", context.game_id, claim.player_id),
                    context
                        .player_rate_limit_per_minute
                        .unwrap_or(DEFAULT_PLAYER_RATE_LIMIT_PER_MINUTE),
                ));
            }
            buckets.push((
                format!("key:{}", context.key_id),
                context.rate_limit_per_minute.unwrap_or(default),
            ));
            buckets
        }
        Identity::BadPlayerToken(context, _) => vec![(
            format!("key:{}", context.key_id),
            context.rate_limit_per_minute.unwrap_or(default),
        )],
        Identity::User(user_id) => vec![(format!("user:{user_id}"), default)],
        _ => vec![(format!("ip:{}", client_ip(state, req)), default)],
    }
}

/// The client's address for per-address limits: the connection's peer, or with `--trust-proxy`
/// the last `X-Forwarded-For` entry (the one the proxy in front wrote).
pub fn client_ip(state: &AppState, req: &Request) -> String {
    if state.settings.trust_proxy {
        let forwarded = req
            .headers()
            .get("x-forwarded-for")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.rsplit(',').next())
            .map(|v| v.trim().to_string());
        if let Some(ip) = forwarded.filter(|ip| !ip.is_empty()) {
            return ip;
        }
    }
    match req.remote_addr().as_socket_addr() {
        Some(addr) => addr.ip().to_string(),
        None => "unknown".into(),
    }
}
