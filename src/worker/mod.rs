//! The background worker: scheduled jobs (tokio-cron-scheduler). Run beside the API
//! (`--role all`) or alone (`--role worker`).
use crate::state::AppState;
use entity::password_reset_tokens;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use tokio_cron_scheduler::{Job, JobScheduler};

pub async fn start(state: AppState) -> anyhow::Result<JobScheduler> {
    let scheduler = JobScheduler::new().await?;
    let cleanup_state = state.clone();
    scheduler
        .add(Job::new_repeated_async(
            std::time::Duration::from_secs(3600),
            move |_id, _scheduler| {
                let state = cleanup_state.clone();
                Box::pin(async move {
                    if let Err(error) = purge_expired_reset_tokens(&state).await {
                        tracing::warn!(error = %error, "purging expired reset tokens failed");
                    }
                    if let Err(error) =
                        crate::accounts::service::forget_old_sign_in_failures(&state).await
                    {
                        tracing::warn!(error = %error, "purging old sign-in failures failed");
                    }
                })
            },
        )?)
        .await?;
    crate::leaderboards::schedule(&scheduler, &state).await?;
    crate::alerts::schedule(&scheduler, &state).await?;
    crate::presence::schedule(&scheduler, &state).await?;
    crate::events::retention::schedule(&scheduler, &state).await?;
    crate::aggregates::backfill::schedule(&scheduler, &state).await?;
    scheduler.start().await?;
    Ok(scheduler)
}

/// Reset and invitation tokens past their expiry are useless; drop them.
async fn purge_expired_reset_tokens(state: &AppState) -> Result<(), sea_orm::DbErr> {
    password_reset_tokens::Entity::delete_many()
        .filter(password_reset_tokens::Column::ExpiresAt.lt(state.now()))
        .exec(&state.db)
        .await?;
    Ok(())
}
