//! The background worker: scheduled jobs (tokio-cron-scheduler). Run beside the API
//! (`--role all`) or alone (`--role worker`).
use crate::{aggregates, alerts, events, leaderboards, presence, state::AppState};
use entity::password_reset_tokens;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use std::{
    future::Future,
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc,
    },
    time::Duration,
};
use tokio_cron_scheduler::{Job, JobScheduler};

/// Every scheduled job, with how often it runs.
pub async fn start(state: AppState) -> anyhow::Result<JobScheduler> {
    let scheduler = JobScheduler::new().await?;
    let jobs = Jobs {
        scheduler: &scheduler,
        state: &state,
    };
    jobs.every(
        Duration::from_secs(3600),
        "purging expired reset tokens failed",
        |state| async move { purge_expired_reset_tokens(&state).await },
    )
    .await?;
    jobs.every(
        Duration::from_secs(3600),
        "purging old sign-in failures failed",
        |state| async move { crate::accounts::service::forget_old_sign_in_failures(&state).await },
    )
    .await?;
    jobs.every(
        leaderboards::archive::ARCHIVE_EVERY,
        "archiving leaderboard periods failed",
        |state| async move { leaderboards::archive_finished_periods(&state).await },
    )
    .await?;
    jobs.every(
        leaderboards::results::DELIVER_EVERY,
        "delivering leaderboard results failed",
        |state| async move { leaderboards::deliver_results(&state).await },
    )
    .await?;
    jobs.every(
        Duration::from_secs(state.settings.alert_interval_secs.max(1)),
        "alert evaluation pass failed",
        |state| async move { alerts::evaluate::run_all(&state).await },
    )
    .await?;
    jobs.every(
        presence::service::OFFLINE_CHECK_EVERY,
        "presence offline check failed",
        |state| async move { presence::service::announce_offline(&state).await },
    )
    .await?;
    jobs.every(
        events::retention::RETENTION_EVERY,
        "deleting expired events failed",
        |state| async move { events::retention::delete_expired_events(&state).await },
    )
    .await?;
    // Reservations a killed node left in the quota counters (Redis) are given back by
    // rebuilding those counters from the cold store.
    jobs.every(
        Duration::from_secs(15),
        "reclaiming abandoned quota reservations failed",
        |state| async move { state.hot.quotas.reclaim_abandoned().await },
    )
    .await?;
    // A pass every few seconds while games are queued, each about 4 seconds of work.
    jobs.every(
        Duration::from_secs(5),
        "aggregates backfill failed",
        |state| async move {
            aggregates::backfill::pass(
                &state.db,
                aggregates::backfill::GRACE,
                Duration::from_secs(4),
            )
            .await
        },
    )
    .await?;
    // Closed days' writer shards summed into one row each, about 20 seconds of work a pass.
    jobs.every(
        aggregates::fold::FOLD_EVERY,
        "folding the aggregates' shards failed",
        |state| async move {
            aggregates::fold::pass(&state.db, state.now(), aggregates::fold::PASS_BUDGET).await
        },
    )
    .await?;
    scheduler.start().await?;
    Ok(scheduler)
}

/// Adds jobs to the worker's scheduler.
struct Jobs<'a> {
    scheduler: &'a JobScheduler,
    state: &'a AppState,
}

impl Jobs<'_> {
    /// Runs `run` every `period`. A tick that comes while the previous run still goes is
    /// skipped (a slow pass never piles up behind itself); a failed run is logged as
    /// `failed`, with its cause, and the job goes on at the next tick.
    async fn every<Run, Fut, T, E>(
        &self,
        period: Duration,
        failed: &'static str,
        run: Run,
    ) -> anyhow::Result<()>
    where
        Run: Fn(AppState) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<T, E>> + Send + 'static,
        E: std::fmt::Debug + 'static,
    {
        let state = self.state.clone();
        let run = Arc::new(run);
        let running = Arc::new(AtomicBool::new(false));
        let job = Job::new_repeated_async(period, move |_id, _scheduler| {
            let state = state.clone();
            let run = run.clone();
            let running = running.clone();
            Box::pin(async move {
                if running.swap(true, Ordering::AcqRel) {
                    return;
                }
                let _done = Running(running);
                if let Err(error) = run(state).await {
                    tracing::warn!(error.cause_chain = ?error, "{failed}");
                }
            })
        })?;
        self.scheduler.add(job).await?;
        Ok(())
    }
}

/// Marks a job's run over when dropped, also if the run panicked.
struct Running(Arc<AtomicBool>);

impl Drop for Running {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

/// Reset and invitation tokens past their expiry are useless; drop them.
async fn purge_expired_reset_tokens(state: &AppState) -> Result<(), sea_orm::DbErr> {
    password_reset_tokens::Entity::delete_many()
        .filter(password_reset_tokens::Column::ExpiresAt.lt(state.now()))
        .exec(&state.db)
        .await?;
    Ok(())
}
