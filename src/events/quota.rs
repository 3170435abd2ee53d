//! The monthly event quota of a game: counted in the hot store (exact across nodes) by the
//! event writer, one step per group of requests (see `writer`), and rebuilt from the cold
//! store's usage counts when the counter is missing. `used` reads it for the dashboard.
use crate::{error::ApiError, state::AppState, store::Db};
use entity::event_usage;
use poem::http::StatusCode;
use sea_orm::{ColumnTrait, DbErr, EntityTrait, QueryFilter};
use serde_json::json;
use uuid::Uuid;

/// The hot-store counter of a game's month.
pub fn counter_name(game_id: Uuid, month: &str) -> String {
    format!("{game_id}:{month}")
}

/// 429 with `{current, limit, remaining: 0}`: the request does not fit in the month's quota.
pub fn exceeded(current: u64, limit: u64) -> ApiError {
    ApiError::new(
        StatusCode::TOO_MANY_REQUESTS,
        "Monthly event quota exceeded",
    )
    .with(
        "quota",
        json!({ "current": current, "limit": limit, "remaining": 0 }),
    )
}

/// Events stored for the game in `month`, as the cold store counts them (the sum of the
/// writers' usage shards).
pub async fn stored_events(db: &Db, game_id: Uuid, month: &str) -> Result<u64, DbErr> {
    let shards = event_usage::Entity::find()
        .filter(event_usage::Column::GameId.eq(game_id))
        .filter(event_usage::Column::Month.eq(month))
        .all(db)
        .await?;
    Ok(shards.iter().map(|s| s.events.max(0) as u64).sum())
}

/// Events counted against the game's quota in `month`, as `/v1/track` counts them: the
/// hot-store counter (shared by every node), or, when it is missing (a restarted in-process
/// store, a flushed Redis, no event yet this month), the stored count the writer would rebuild
/// it from. With the hot store unreachable no event can be stored, so the stored count is the
/// month's count then too (logged).
pub async fn used(state: &AppState, game_id: Uuid, month: &str) -> Result<u64, DbErr> {
    match state
        .hot
        .quotas
        .current(&counter_name(game_id, month))
        .await
    {
        Ok(Some(used)) => return Ok(used),
        Ok(None) => {}
        Err(error) => {
            tracing::warn!(error.cause_chain = ?error, %game_id, "quota counter unreadable; answering the stored count")
        }
    }
    stored_events(&state.db, game_id, month).await
}
