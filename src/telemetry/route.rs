//! `GET /metrics`: the recorder's figures in the Prometheus text format, on the API's own
//! listener, outside the OpenAPI document (it is for the operator's scraper, not for games).
//! With `--metrics-token` set, a scrape must carry `Authorization: Bearer <token>`.
use hmac::{Hmac, Mac};
use poem::{
    http::{header, HeaderValue, StatusCode},
    Endpoint, Request, Response,
};
use sha2::Sha256;

/// The path this module answers.
pub const PATH: &str = "/metrics";

/// Routes that are not OpenAPI operations, named for the request metrics by a fixed set so
/// that a scanner's random paths cannot add series.
pub fn name(path: &str, status: StatusCode) -> &'static str {
    if status == StatusCode::NOT_FOUND {
        return "not_found";
    }
    match path {
        PATH => "metrics",
        "/openapi.json" => "openapi",
        _ if path == "/docs" || path.starts_with("/docs/") => "docs",
        _ => "unrouted",
    }
}

/// The scrape endpoint.
pub struct Scrape {
    /// The token's MAC under a fixed key: the comparison is of two MACs, in constant time,
    /// so its timing tells nothing about the token.
    token: Option<Vec<u8>>,
}

impl Scrape {
    pub fn new(token: Option<&str>) -> Self {
        Self {
            token: token.map(|token| mac(token.as_bytes()).finalize().into_bytes().to_vec()),
        }
    }

    fn authorized(&self, req: &Request) -> bool {
        let Some(expected) = &self.token else {
            return true;
        };
        let given = req
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| {
                value
                    .strip_prefix("Bearer ")
                    .or_else(|| value.strip_prefix("bearer "))
            })
            .map(str::trim);
        let Some(given) = given else {
            return false;
        };
        mac(given.as_bytes()).verify_slice(expected).is_ok()
    }
}

fn mac(token: &[u8]) -> Hmac<Sha256> {
    let mut mac = Hmac::<Sha256>::new_from_slice(b"playtrace metrics token")
        .expect("HMAC takes any key length");
    mac.update(token);
    mac
}

impl Endpoint for Scrape {
    type Output = Response;

    async fn call(&self, req: Request) -> poem::Result<Response> {
        if !self.authorized(&req) {
            let mut response = refusal(
                StatusCode::UNAUTHORIZED,
                "Missing or wrong metrics bearer token",
            );
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            return Ok(response);
        }
        let Some(handle) = super::install() else {
            return Ok(refusal(
                StatusCode::SERVICE_UNAVAILABLE,
                "Metrics are not collected on this node",
            ));
        };
        Ok(Response::builder()
            .content_type("text/plain; version=0.0.4; charset=utf-8")
            .body(handle.render()))
    }
}

/// The usual JSON error body (`{"error": ...}`), written here rather than through
/// `crate::error`, which records store errors through this module.
fn refusal(status: StatusCode, message: &str) -> Response {
    Response::builder()
        .status(status)
        .content_type("application/json")
        .body(serde_json::json!({ "error": message }).to_string())
}
