//! Remote config: a JSON object per game, set in the dashboard (editor or owner) and polled by
//! games with their API key, cheaply thanks to an `ETag` and a short per-node cache.
pub mod dashboard_api;
pub mod game_api;
pub mod service;

use crate::state::AppState;

/// This feature's `#[OpenApi]` structs, mounted by `api.rs`.
pub fn apis(state: &AppState) -> impl poem_openapi::OpenApi {
    (
        game_api::ConfigApi {
            state: state.clone(),
        },
        dashboard_api::ConfigAdminApi {
            state: state.clone(),
        },
    )
}
