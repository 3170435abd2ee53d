//! Activity and presence: rich presence set by the game, the presence and live lists, the
//! WebSocket feed, and the worker's check that announces players going offline. The entries
//! themselves live in the hot store (`store::hot::presence`).
pub mod dashboard_api;
pub mod feed;
pub mod game_api;
pub mod service;
pub mod stream;

use crate::state::AppState;

/// This feature's `#[OpenApi]` structs, mounted by `api.rs`.
pub fn apis(state: &AppState) -> impl poem_openapi::OpenApi {
    (
        game_api::PresenceApi {
            state: state.clone(),
        },
        dashboard_api::LiveActivityApi {
            state: state.clone(),
        },
    )
}
