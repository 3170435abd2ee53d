//! Game metrics: crash counts, log errors, revenue, active users and day-7 retention computed
//! from the stored events as time series (`service`), charted by the dashboard
//! (`dashboard_api`) and compared with their baseline by alert rules.
use crate::state::AppState;

pub mod dashboard_api;
pub mod error;
pub mod service;

pub use error::MetricError;
pub use service::{series, Buckets, Metric, Point, Scope};

/// This feature's `#[OpenApi]` structs, mounted by `api.rs`.
pub fn apis(state: &AppState) -> impl poem_openapi::OpenApi {
    dashboard_api::MetricsApi {
        state: state.clone(),
    }
}
