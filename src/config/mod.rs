//! Remote config: a JSON object per game, set in the dashboard (editor or owner) and polled by
//! games with their API key, cheaply thanks to an `ETag` and a short per-node cache.
pub mod admin_api;
pub mod api;
pub mod json_text;
pub mod service;

use crate::state::AppState;
use std::sync::Arc;

/// This feature's `#[OpenApi]` structs, mounted by `api.rs`. Both share one cache, so a change
/// made through this node is visible to its games at once.
pub fn apis(state: &AppState) -> impl poem_openapi::OpenApi {
    let cache = Arc::new(service::ConfigCache::default());
    (
        api::ConfigApi {
            state: state.clone(),
            cache: cache.clone(),
        },
        admin_api::ConfigAdminApi {
            state: state.clone(),
            cache,
        },
    )
}
