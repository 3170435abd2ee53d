//! The HTTP surface's assembly: the tuple of every feature's `#[OpenApi]` struct, and the one
//! function that builds the routed service with its middleware. Nothing imports this module but
//! start-up (`app.rs`) and the `openapi` command; what features share over HTTP is in `http.rs`.
use crate::error::ApiError;
use crate::{
    accounts::dashboard_api::AuthApi,
    error::into_json_response,
    games::{dashboard_api::GamesApi, keys_dashboard_api::ApiKeysApi},
    health::HealthApi,
    limits::RateLimit,
    state::AppState,
};
use poem::{
    endpoint::BoxEndpoint, http::StatusCode, Endpoint, EndpointExt, IntoEndpoint, Response, Route,
};
use poem::{error::ResponseError, http::header};
use poem_openapi::OpenApiService;
use std::{
    pin::Pin,
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc,
    },
    task::{Context, Poll},
    time::Duration,
};
use tokio::io::{AsyncRead, AsyncReadExt, ReadBuf};

/// Request bodies above this are refused with 413.
const MAX_BODY_BYTES: usize = 1024 * 1024;

pub fn openapi(state: &AppState) -> OpenApiService<impl poem_openapi::OpenApi, ()> {
    // One entry per feature; each feature lists its own structs in its `apis()`.
    let apis = (
        (
            HealthApi {
                state: state.clone(),
            },
            AuthApi {
                state: state.clone(),
            },
            GamesApi {
                state: state.clone(),
            },
            ApiKeysApi {
                state: state.clone(),
            },
            crate::config::apis(state),
        ),
        crate::events::apis(state),
        crate::leaderboards::apis(state),
        crate::achievements::apis(state),
        crate::presence::apis(state),
        crate::funnels::apis(state),
        crate::alerts::apis(state),
        crate::analytics::apis(state),
        crate::saves::apis(state),
        crate::players::apis(state),
        (crate::player_data::apis(state), crate::admin::apis(state)),
        (crate::progression::apis(state), crate::economy::apis(state)),
    );
    OpenApiService::new(apis, "playtrace", env!("CARGO_PKG_VERSION"))
        .description("Game analytics and live-ops backend: events, leaderboards, achievements, presence, funnels, alerts.")
}

/// The error statuses every operation above declares beside its routes (`http::statuses!`),
/// one entry per routes file, for the document (`http::error_responses`).
pub const STATUSES: &[crate::http::Statuses] = &[
    crate::health::STATUSES,
    crate::accounts::dashboard_api::STATUSES,
    crate::games::dashboard_api::STATUSES,
    crate::games::keys_dashboard_api::STATUSES,
    crate::config::game_api::STATUSES,
    crate::config::dashboard_api::STATUSES,
    crate::events::game_api::STATUSES,
    crate::events::schemas_api::STATUSES,
    crate::events::recent_api::STATUSES,
    crate::events::usage_api::STATUSES,
    crate::events::export_api::STATUSES,
    crate::leaderboards::game_api::STATUSES,
    crate::leaderboards::dashboard_api::STATUSES,
    crate::leaderboards::results_api::STATUSES,
    crate::achievements::dashboard_api::STATUSES,
    crate::achievements::game_api::STATUSES,
    crate::presence::game_api::STATUSES,
    crate::presence::dashboard_api::STATUSES,
    crate::funnels::dashboard_api::STATUSES,
    crate::funnels::game_api::STATUSES,
    crate::alerts::dashboard_api::STATUSES,
    crate::analytics::dashboard_api::STATUSES,
    crate::analytics::retention_grid::STATUSES,
    crate::saves::game_api::STATUSES,
    crate::saves::dashboard_api::STATUSES,
    crate::players::game_api::STATUSES,
    crate::player_data::dashboard_api::STATUSES,
    crate::admin::api::STATUSES,
    crate::progression::dashboard_api::STATUSES,
    crate::economy::dashboard_api::STATUSES,
];

/// What the routes serve that depends on the code alone: the finished OpenAPI document and the
/// Swagger UI page with the document inside. Rendered by the first node a process builds (some
/// 35 ms of a debug build's start, which a test process pays for every node it starts).
struct Rendered {
    document: String,
    docs_page: String,
}

static RENDERED: std::sync::OnceLock<Rendered> = std::sync::OnceLock::new();

/// Every route with its middleware: CORS, request ids, body cap, rate limits, JSON errors.
pub fn routes(state: &AppState) -> BoxEndpoint<'static, Response> {
    let service = openapi(state);
    let rendered = RENDERED.get_or_init(|| Rendered {
        document: crate::http::document(&service.spec(), STATUSES),
        docs_page: service.swagger_ui_html(),
    });
    crate::http::validation::init(|| rendered.document.clone());
    crate::http::parameters::init(|| rendered.document.clone());
    let body_timeout = Duration::from_secs(state.settings.body_timeout_secs);
    let spec = poem::endpoint::make_sync(|_| {
        Response::builder()
            .content_type("application/json; charset=utf-8")
            .body(rendered.document.as_str())
    });
    let docs = Route::new().at(
        "/",
        poem::endpoint::make_sync(|_| poem::web::Html(rendered.docs_page.as_str())),
    );
    Route::new()
        .nest("/", service)
        .nest("/docs", crate::http::docs_page::protect(docs))
        .at("/openapi.json", spec)
        .at(
            crate::telemetry::route::PATH,
            poem::get(crate::telemetry::route::Scrape::new(
                state.settings.metrics_token.as_deref(),
            )),
        )
        .around(checked_input)
        .with(RateLimit::new(state))
        .around(move |endpoint, req| enveloped(endpoint, req, body_timeout))
        .with(crate::cors::Cors::new(state))
        .with(crate::dashboard::Dashboard::new(
            state.settings.dashboard_dir.clone(),
        ))
        .into_endpoint()
        .map_to_response()
        .boxed()
}

/// Middleware before the rate limit: refuses NUL characters in the URI and the JSON body with a
/// 400 naming where they are, reads the JSON body once, and makes a handler's parse error name
/// the field or query parameter it is about.
async fn checked_input<E: Endpoint>(
    endpoint: Arc<E>,
    mut req: poem::Request,
) -> poem::Result<E::Output> {
    if let Some(refused) = crate::http::text::uri_nul(req.uri()) {
        return Err(refused.into());
    }
    let body = match read_json_body(&mut req).await {
        Ok(body) => body,
        Err(error) => return Err(error.into()),
    };
    if let Some(refused) = body.as_deref().and_then(crate::http::text::body_nul) {
        return Err(refused.into());
    }
    endpoint.call(req).await.map_err(|error| {
        let error = match body {
            Some(body) => crate::http::validation::name_the_field(error, &body),
            None => error,
        };
        crate::http::parameters::name_the_parameter(error)
    })
}

/// Middleware around everything else: the body cap and deadline, the request id, JSON for
/// every error and unrouted 404, the request metrics and the access log line.
async fn enveloped<E: Endpoint<Output = Response>>(
    endpoint: Arc<E>,
    mut req: poem::Request,
    body_timeout: Duration,
) -> poem::Result<Response> {
    let started = std::time::Instant::now();
    if let Err(error) = cap_body(&mut req) {
        let response = error.as_response();
        let status = response.status().as_u16();
        crate::telemetry::request("unrouted", req.method(), status, started.elapsed());
        return Ok(response);
    }
    let late = body_deadline(&mut req, body_timeout);
    let request_id = uuid::Uuid::new_v4().to_string();
    let method = req.method().clone();
    let path = req.uri().path().to_string();
    let span =
        tracing::info_span!("request", request_id = %request_id, method = %method, path = %path);
    // The route is the operation id poem-openapi leaves on the answer (or its error).
    let (mut response, route) =
        match tracing::Instrument::instrument(endpoint.call(req), span).await {
            Ok(response) => {
                let route = response.data::<poem_openapi::OperationId>().map(|id| id.0);
                (response, route)
            }
            Err(error) => {
                let route = error.data::<poem_openapi::OperationId>().map(|id| id.0);
                (into_json_response(error), route)
            }
        };
    if late
        .as_ref()
        .is_some_and(|late| late.load(Ordering::Relaxed))
    {
        response = body_too_late(body_timeout);
    }
    if response.status() == StatusCode::NOT_FOUND && response.content_type().is_none() {
        response = into_json_response(poem::error::NotFoundError.into());
    }
    if let Ok(value) = request_id.parse() {
        response.headers_mut().insert("x-request-id", value);
    }
    let latency = started.elapsed();
    let status = response.status();
    // Requests outside the OpenAPI operations count under a few fixed names, never
    // their path, so that the number of series stays bounded.
    let label = route.unwrap_or_else(|| crate::telemetry::route::name(&path, status));
    crate::telemetry::request(label, &method, status.as_u16(), latency);
    // The access log: one line per API request (silence it with
    // RUST_LOG=info,playtrace::access=warn).
    tracing::info!(
        target: "playtrace::access",
        request_id = %request_id,
        method = %method,
        path = %path,
        route = route.unwrap_or("-"),
        status = status.as_u16(),
        latency_ms = latency.as_secs_f64() * 1000.0,
        "request"
    );
    Ok(response)
}

/// Refuses bodies announced above `MAX_BODY_BYTES` with 413, and cuts streamed (chunked)
/// bodies at the cap so they can never grow without bound.
fn cap_body(req: &mut poem::Request) -> Result<(), ApiError> {
    let route_limit = crate::saves::body_limit(req.method(), req.uri().path());
    let limit = route_limit.unwrap_or(MAX_BODY_BYTES);
    let announced = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    match announced {
        Some(length) if length > limit => Err(match route_limit {
            Some(_) => crate::saves::body_too_large(),
            None => ApiError::payload_too_large("Request body too large (limit 1 MiB)"),
        }),
        Some(_) => Ok(()),
        None => {
            if req.headers().contains_key(header::TRANSFER_ENCODING) {
                let body = req.take_body().into_async_read().take(limit as u64 + 1);
                req.set_body(poem::Body::from_async_read(body));
            }
            Ok(())
        }
    }
}

/// Reads a JSON request body (already cut at the route's cap by `cap_body`) and keeps it, so
/// that when it does not parse, `http::validation` can name the field at fault; a streamed
/// body that reached the cap is refused with 413 here, a compressed one (`Content-Encoding`)
/// with 415.
async fn read_json_body(req: &mut poem::Request) -> Result<Option<bytes::Bytes>, ApiError> {
    let json = req
        .content_type()
        .is_some_and(|content_type| content_type.contains("json"));
    if !json || req.method() == poem::http::Method::GET {
        return Ok(None);
    }
    // Nothing here decodes a compressed body; parsing it as JSON would only say "not JSON".
    if let Some(encoding) = req.headers().get(header::CONTENT_ENCODING) {
        let encoding = encoding.to_str().unwrap_or("?").trim();
        if !encoding.eq_ignore_ascii_case("identity") {
            let shown: String = encoding.chars().take(32).collect();
            return Err(ApiError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                format!("Content-Encoding {shown} is not supported: send the body uncompressed"),
            ));
        }
    }
    let body = req
        .take_body()
        .into_bytes()
        .await
        .map_err(|_| ApiError::bad_request("The request body could not be read"))?;
    let route_limit = crate::saves::body_limit(req.method(), req.uri().path());
    if body.len() > route_limit.unwrap_or(MAX_BODY_BYTES) {
        return Err(match route_limit {
            Some(_) => crate::saves::body_too_large(),
            None => ApiError::payload_too_large("Request body too large (limit 1 MiB)"),
        });
    }
    req.set_body(body.clone());
    Ok(Some(body))
}

/// Holds a request's body to the body timeout, counted from the end of its headers (a body
/// trickled a byte at a time must not hold a connection and a handler for ever; the headers'
/// own deadline is `connections.rs`'s). Past it, reading the body fails and the returned flag
/// is set, so the answer becomes `body_too_late`'s. `None` for a request without a body.
fn body_deadline(req: &mut poem::Request, timeout: Duration) -> Option<Arc<AtomicBool>> {
    let announced = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    let streamed = req.headers().contains_key(header::TRANSFER_ENCODING);
    if !streamed && announced.unwrap_or(0) == 0 {
        return None;
    }
    let late = Arc::new(AtomicBool::new(false));
    let body = Deadline {
        inner: req.take_body().into_async_read(),
        deadline: Box::pin(tokio::time::sleep(timeout)),
        late: late.clone(),
    };
    req.set_body(poem::Body::from_async_read(body));
    Some(late)
}

/// 408 with `Connection: close`: the client is told, and the connection (whose body is still
/// arriving) is not reused.
fn body_too_late(timeout: Duration) -> Response {
    let mut response = ApiError::with_status(
        408,
        format!(
            "The request body did not arrive within {} seconds",
            timeout.as_secs()
        ),
    )
    .as_response();
    response.headers_mut().insert(
        header::CONNECTION,
        poem::http::HeaderValue::from_static("close"),
    );
    response
}

struct Deadline<R> {
    inner: R,
    deadline: Pin<Box<tokio::time::Sleep>>,
    late: Arc<AtomicBool>,
}

impl<R: AsyncRead + Unpin> AsyncRead for Deadline<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        if std::future::Future::poll(self.deadline.as_mut(), cx).is_ready() {
            self.late.store(true, Ordering::Relaxed);
            return Poll::Ready(Err(std::io::ErrorKind::TimedOut.into()));
        }
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}
