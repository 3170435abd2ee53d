//! Game metrics: crash counts, log errors, revenue, active users and day-7 retention as time
//! series (`service`), read from the aggregates kept at ingest (`aggregated`) and, for parts
//! of an hour, from the events (`raw`); charted by the dashboard (`dashboard_api`) and
//! compared with their baseline by alert rules; the retention grid (`retention_grid`) reads
//! the same cohort counters as a cohort table.
use crate::state::AppState;

mod aggregated;
pub mod dashboard_api;
pub mod error;
mod raw;
pub mod retention_grid;
pub mod service;

pub use error::MetricError;
pub use service::{series, total, Buckets, Metric, Point, Scope};

/// This feature's `#[OpenApi]` structs, mounted by `api.rs`.
pub fn apis(state: &AppState) -> impl poem_openapi::OpenApi {
    (
        dashboard_api::MetricsApi {
            state: state.clone(),
        },
        retention_grid::RetentionGridApi {
            state: state.clone(),
        },
    )
}
