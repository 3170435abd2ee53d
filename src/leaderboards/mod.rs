//! Leaderboards: score submission, ranked reads, periods and archives, moderation.
use crate::state::AppState;

/// This feature's `#[OpenApi]` structs, mounted by `api.rs`.
pub fn apis(_state: &AppState) -> impl poem_openapi::OpenApi {
    crate::api::NoApi
}

/// Adds this feature's scheduled jobs to the worker.
pub async fn schedule(_scheduler: &tokio_cron_scheduler::JobScheduler, _state: &AppState) -> anyhow::Result<()> {
    Ok(())
}
