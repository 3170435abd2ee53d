//! Retention: the worker deletes each game's events older than its `retention_days`, a batch
//! at a time with a pause between, so no statement holds the events table long enough to keep
//! the event writer waiting. Monthly usage counters are left as they are: the quota counts
//! what was accepted, not what is still kept.
use crate::{state::AppState, store::Db};
use entity::{events, games};
use sea_orm::{ColumnTrait, Condition, DbErr, EntityTrait, QueryFilter, QuerySelect, QueryTrait};
use std::time::Duration;
use uuid::Uuid;

/// How often the worker runs a retention pass.
pub const RETENTION_EVERY: Duration = Duration::from_secs(3600);
/// Events deleted per statement.
pub const BATCH_ROWS: u64 = 5_000;
/// The pause between two batches, so queued event writes go first.
const PAUSE: Duration = Duration::from_millis(50);

/// One pass over every game with a retention setting; answers how many events were deleted.
#[tracing::instrument(skip_all)]
pub async fn delete_expired_events(state: &AppState) -> Result<u64, DbErr> {
    let kept: Vec<(Uuid, i32)> = games::Entity::find()
        .select_only()
        .column(games::Column::Id)
        .column(games::Column::RetentionDays)
        .filter(games::Column::RetentionDays.is_not_null())
        .into_tuple::<(Uuid, Option<i32>)>()
        .all(&state.db)
        .await?
        .into_iter()
        .filter_map(|(game_id, days)| Some((game_id, days?)))
        .collect();
    let mut deleted = 0;
    for (game_id, days) in kept {
        // Whole UTC days, so the day and hour aggregates of the deleted events go with them.
        let cutoff = crate::query::midnight(
            (state.now() - chrono::Duration::days(i64::from(days.max(1)))).date_naive(),
        );
        deleted += delete_before(state, game_id, cutoff).await?;
    }
    Ok(deleted)
}

/// Deletes the game's events that occurred before `cutoff`, in batches.
#[tracing::instrument(skip_all, fields(game_id = %game_id))]
async fn delete_before(
    state: &AppState,
    game_id: Uuid,
    cutoff: chrono::DateTime<chrono::Utc>,
) -> Result<u64, DbErr> {
    let deleted = delete_in_batches(
        &state.db,
        Condition::all()
            .add(events::Column::GameId.eq(game_id))
            .add(events::Column::OccurredAt.lt(cutoff)),
    )
    .await?;
    crate::aggregates::forget_before(&state.db, game_id, cutoff).await?;
    if deleted > 0 {
        tracing::info!(deleted, "retention deleted old events");
    }
    Ok(deleted)
}

/// Deletes the events that match `which`, `BATCH_ROWS` per statement with a pause between, so
/// no statement holds the table long enough to keep the event writer waiting. Used by
/// retention and by a player's erasure.
pub async fn delete_in_batches(db: &Db, which: Condition) -> Result<u64, DbErr> {
    let mut deleted = 0;
    loop {
        let batch = events::Entity::find()
            .select_only()
            .column(events::Column::Id)
            .filter(which.clone())
            .limit(BATCH_ROWS)
            .into_query();
        let rows = events::Entity::delete_many()
            .filter(events::Column::Id.in_subquery(batch))
            .exec(db)
            .await?
            .rows_affected;
        deleted += rows;
        if rows < BATCH_ROWS {
            return Ok(deleted);
        }
        tokio::time::sleep(PAUSE).await;
    }
}
