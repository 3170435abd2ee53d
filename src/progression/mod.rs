//! Progression: per step of the game (a path of up to three levels, as `progression` events
//! name it), how many players started, completed and failed it, its fail rate and the average
//! attempts to complete it, over a range of days (`service`, read from the per-day counts kept
//! at ingest, `crate::aggregates`); served to the dashboard (`dashboard_api`).
use crate::state::AppState;

pub mod dashboard_api;
pub mod service;

/// This feature's `#[OpenApi]` structs, mounted by `api.rs`.
pub fn apis(state: &AppState) -> impl poem_openapi::OpenApi {
    dashboard_api::ProgressionApi {
        state: state.clone(),
    }
}
