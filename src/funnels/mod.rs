//! Funnels: definitions (dashboard) and conversion reports (game side), each report computed
//! by one set-based query in the database.
use crate::state::AppState;

pub mod api;
pub mod query;
pub mod service;

/// This feature's `#[OpenApi]` structs, mounted by `api.rs`.
pub fn apis(state: &AppState) -> impl poem_openapi::OpenApi {
    (
        api::FunnelDefinitionsApi {
            state: state.clone(),
        },
        api::FunnelsApi {
            state: state.clone(),
        },
    )
}
