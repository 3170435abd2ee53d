//! Game metrics and alert rules: the metric series (`metrics`), rule validation (`rules`),
//! evaluation, firing and the worker job (`evaluate`), and their endpoints.
use crate::state::AppState;

pub mod api;
pub mod evaluate;
pub mod metrics;
pub mod metrics_api;
pub mod rules;

/// This feature's `#[OpenApi]` structs, mounted by `api.rs`.
pub fn apis(state: &AppState) -> impl poem_openapi::OpenApi {
    (
        api::AlertsApi {
            state: state.clone(),
        },
        metrics_api::MetricsApi {
            state: state.clone(),
        },
    )
}

/// Adds this feature's scheduled jobs to the worker: alert evaluation every
/// `--alert-interval-secs`.
pub async fn schedule(
    scheduler: &tokio_cron_scheduler::JobScheduler,
    state: &AppState,
) -> anyhow::Result<()> {
    evaluate::schedule(scheduler, state).await
}
