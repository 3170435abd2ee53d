//! Economy: per currency, what players gained (sources) and spent (sinks) by item type, and
//! the net flow per day, over a range of days (`service`, read from the per-day sums of
//! `resource` events kept at ingest, `crate::aggregates`); served to the dashboard
//! (`dashboard_api`).
use crate::state::AppState;

pub mod dashboard_api;
pub mod service;

/// This feature's `#[OpenApi]` structs, mounted by `api.rs`.
pub fn apis(state: &AppState) -> impl poem_openapi::OpenApi {
    dashboard_api::EconomyApi {
        state: state.clone(),
    }
}
