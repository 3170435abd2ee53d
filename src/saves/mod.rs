//! Cloud saves: JSON documents per game, player and slot, written with optimistic concurrency
//! (each write names the version it replaces) and read by games (API key) and by the dashboard.
pub mod dashboard_api;
pub mod game_api;
pub mod service;

use crate::{error::ApiError, state::AppState};
use poem::http::Method;

/// This feature's `#[OpenApi]` structs, mounted by `api.rs`.
pub fn apis(state: &AppState) -> impl poem_openapi::OpenApi {
    (
        game_api::SavesApi {
            state: state.clone(),
        },
        dashboard_api::SavesAdminApi {
            state: state.clone(),
        },
    )
}

/// Room in a save write's body for the `{"data": ..., "version": n}` around the data.
const ENVELOPE_BYTES: usize = 64 * 1024;

/// The request body cap of a route when it differs from the 1 MiB every other route has:
/// a save write may carry a full 1 MiB of data plus its envelope.
pub fn body_limit(method: &Method, path: &str) -> Option<usize> {
    (method == Method::PUT && path.starts_with("/v1/saves/"))
        .then_some(service::MAX_DATA_BYTES + ENVELOPE_BYTES)
}

/// The 413 for a save write whose body is over `body_limit` (its data is then surely too big).
pub fn body_too_large() -> ApiError {
    ApiError::payload_too_large(service::SaveError::TooLarge { received: 0 }.to_string())
        .with("limit", service::MAX_DATA_BYTES)
}
