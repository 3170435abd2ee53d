//! The monthly event quota of a game: counted in the hot store (exact across nodes), rebuilt
//! from the cold store's usage counts when the counter is missing.
use super::writer::month_of;
use crate::{error::ApiError, state::AppState, store::hot::quotas::Reservation};
use chrono::{DateTime, Utc};
use entity::event_usage;
use poem::http::StatusCode;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::json;
use uuid::Uuid;

/// The hot-store counter of a game's month.
pub fn counter_name(game_id: Uuid, month: &str) -> String {
    format!("{game_id}:{month}")
}

/// A reservation held for one request.
#[derive(Debug, Clone)]
pub struct Reserved {
    pub counter: String,
    pub amount: u64,
    pub used: u64,
    pub limit: u64,
}

/// Reserves `amount` events of the game's quota for the month of `now`, all or nothing:
/// 429 with `{current, limit, remaining: 0}` when they do not fit.
pub async fn reserve(
    state: &AppState,
    game_id: Uuid,
    limit: u64,
    amount: u64,
    now: DateTime<Utc>,
) -> Result<Reserved, ApiError> {
    let month = month_of(now);
    let counter = counter_name(game_id, &month);
    let quotas = &state.hot.quotas;
    let mut answer = quotas.reserve(&counter, amount, limit, None).await?;
    if answer == Reservation::Missing {
        let stored = stored_events(state, game_id, &month).await?;
        tracing::info!(%game_id, %month, stored, "quota counter rebuilt from the cold store");
        answer = quotas
            .reserve(&counter, amount, limit, Some(stored))
            .await?;
    }
    match answer {
        Reservation::Reserved { used } => Ok(Reserved {
            counter,
            amount,
            used,
            limit,
        }),
        Reservation::Refused { current } => Err(ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "Monthly event quota exceeded",
        )
        .with(
            "quota",
            json!({ "current": current, "limit": limit, "remaining": 0 }),
        )),
        Reservation::Missing => Err(ApiError::unavailable(
            "Storage temporarily unavailable, retry later",
        )),
    }
}

/// Gives back `amount` of a reservation (events not stored). Failing to give back only errs
/// on the safe side (the game is charged for events it did not store), so it is logged.
pub async fn release(state: &AppState, reserved: &Reserved, amount: u64) {
    if amount == 0 {
        return;
    }
    if let Err(error) = state.hot.quotas.release(&reserved.counter, amount).await {
        tracing::warn!(error.cause_chain = ?error, counter = %reserved.counter, amount, "quota release failed");
    }
}

/// Events stored for the game in `month`, as the cold store counts them.
async fn stored_events(state: &AppState, game_id: Uuid, month: &str) -> Result<u64, ApiError> {
    let shards = event_usage::Entity::find()
        .filter(event_usage::Column::GameId.eq(game_id))
        .filter(event_usage::Column::Month.eq(month))
        .all(&state.db)
        .await?;
    Ok(shards.iter().map(|s| s.events.max(0) as u64).sum())
}
