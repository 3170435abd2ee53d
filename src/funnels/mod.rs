//! Funnels: definitions (dashboard) and conversion reports (game side), each report computed
//! by one set-based query in the database.
use crate::state::AppState;

pub mod dashboard_api;
pub mod error;
pub mod game_api;
pub mod query;
pub mod service;
pub mod views;

pub use error::FunnelError;

/// This feature's `#[OpenApi]` structs, mounted by `api.rs`.
pub fn apis(state: &AppState) -> impl poem_openapi::OpenApi {
    (
        dashboard_api::FunnelDefinitionsApi {
            state: state.clone(),
        },
        game_api::FunnelsApi {
            state: state.clone(),
        },
    )
}
