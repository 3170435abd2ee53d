//! Scores in (`submit.rs`) and ranks out (`ranks.rs`). A submission is written through to the
//! cold store (keep-best upsert) and then ranked in the hot store (keep-best script); both
//! apply the same rule, so they agree whatever order concurrent submissions land in. The
//! current period is read from the hot store, rebuilt from the cold store whenever it is
//! missing (here, for both sides); finished periods are read from the cold store.
use super::{
    boards::{self, Board, BoardName, PlayerId, Schedule},
    error::LeaderboardError,
    tournament::{self, TournamentStatus},
    writer::{Apply, Kept, ScoreRow},
};
use crate::{
    http::timestamp,
    state::AppState,
    store::group_commit::WriteError,
    store::hot::leaderboards::{sort_score, HotBoard, HotEntry, RankedEntry, Submitted},
    words::{EntryStatus, ScoreOperator, ScoreOrder},
};
use chrono::{DateTime, Utc};
use entity::{leaderboard_entries as entries, leaderboard_periods as periods, leaderboards};
use sea_orm::{
    sea_query::{Condition, OnConflict},
    ActiveValue::Set,
    ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder, QuerySelect,
};
use serde_json::{json, Value};
use uuid::Uuid;

mod ranks;
mod submit;

pub use ranks::*;
pub use submit::*;

/// The stored `status` words of an entry (`EntryStatus`), for queries on the column.
pub const STATUS_OK: &str = "ok";
pub const STATUS_SUSPICIOUS: &str = "suspicious";
/// Largest `metadata` object, serialized.
pub const MAX_METADATA_BYTES: usize = 4096;
/// Entries per hot-store call while rebuilding a board.
const REBUILD_BATCH: usize = 1000;
/// Attempts at an operation whose board keeps vanishing from the hot store.
const HOT_ATTEMPTS: usize = 3;

/// An entry as clients see it (without rank).
#[derive(Debug, Clone, PartialEq)]
pub struct EntryData {
    pub player_id: String,
    pub player_name: Option<String>,
    pub score: f64,
    pub metadata: Value,
    pub updated_at: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    pub rank: u64,
    pub entry: EntryData,
}

/// A player's entry after a submission or approval.
#[derive(Debug, Clone)]
pub struct Standing {
    pub entry: EntryData,
    /// `None` while the entry is suspicious (not on the public board).
    pub rank: Option<u64>,
    pub status: EntryStatus,
    pub updated: bool,
    /// The board's order (which scores are better).
    pub order: ScoreOrder,
    pub operator: ScoreOperator,
    /// The board's current period.
    pub schedule: Schedule,
    /// The board's tournament; `None` for an ordinary board.
    pub tournament: Option<TournamentStatus>,
}

/// A slice of one period of a board.
#[derive(Debug, Clone)]
pub struct Page {
    pub period: String,
    /// The board's current period (whichever period was read).
    pub schedule: Schedule,
    /// The board's tournament; `None` for an ordinary board.
    pub tournament: Option<TournamentStatus>,
    pub total: u64,
    pub entries: Vec<Ranked>,
}

/// One player's standing and neighbours.
#[derive(Debug, Clone)]
pub struct Around {
    pub period: String,
    /// The board's current period (whichever period was read).
    pub schedule: Schedule,
    /// The board's tournament; `None` for an ordinary board.
    pub tournament: Option<TournamentStatus>,
    pub total: u64,
    pub player: Ranked,
    pub entries: Vec<Ranked>,
}

/// What the hot store keeps beside the rank: name, metadata and time, as compact JSON.
fn payload(player_name: &Option<String>, metadata: &Value, updated_at: DateTime<Utc>) -> String {
    json!({ "n": player_name, "m": metadata, "u": timestamp(updated_at) }).to_string()
}

fn from_hot(entry: HotEntry) -> EntryData {
    let payload: Value = serde_json::from_str(&entry.payload).unwrap_or_default();
    EntryData {
        player_id: entry.player_id,
        player_name: payload["n"].as_str().map(str::to_string),
        score: entry.score,
        metadata: match &payload["m"] {
            Value::Object(_) => payload["m"].clone(),
            _ => json!({}),
        },
        updated_at: payload["u"].as_str().unwrap_or_default().to_string(),
    }
}

fn from_hot_ranked(ranked: RankedEntry) -> Ranked {
    Ranked {
        rank: ranked.rank,
        entry: from_hot(ranked.entry),
    }
}

fn metadata_of(model: &entries::Model) -> Value {
    serde_json::from_str(&model.metadata).unwrap_or_else(|_| json!({}))
}

fn from_model(model: &entries::Model) -> EntryData {
    EntryData {
        player_id: model.player_id.clone(),
        player_name: model.player_name.clone(),
        score: model.score,
        metadata: metadata_of(model),
        updated_at: timestamp(model.updated_at),
    }
}

pub fn hot_entry_of(model: &entries::Model) -> HotEntry {
    HotEntry {
        player_id: model.player_id.clone(),
        score: model.score,
        reached_micros: model.reached_at,
        payload: payload(&model.player_name, &metadata_of(model), model.updated_at),
        revision: model.revision,
    }
}

/// Loads every public entry of one period from the cold store into the hot store. Entries
/// merge keep-best, so submissions landing meanwhile are never lost or rolled back.
async fn rebuild(
    state: &AppState,
    board: &Board,
    hot: &HotBoard,
    now: DateTime<Utc>,
) -> Result<(), LeaderboardError> {
    // One rebuild at a time per node: a board lost under load is asked for by many requests.
    static REBUILDING: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    let _turn = REBUILDING.lock().await;
    if state.hot.leaderboards.page(hot, 0, 0, now).await?.is_some() {
        return Ok(());
    }
    let rows = entries::Entity::find()
        .filter(entries::Column::BoardId.eq(board.id()))
        .filter(entries::Column::Period.eq(hot.period.as_str()))
        .filter(entries::Column::Status.eq(STATUS_OK))
        .all(&state.db)
        .await?;
    tracing::info!(board_id = %board.id(), period = %hot.period, entries = rows.len(), "rebuilding leaderboard in the hot store");
    let batches: Vec<&[entries::Model]> = rows.chunks(REBUILD_BATCH).collect();
    if batches.is_empty() {
        state.hot.leaderboards.load(hot, &[], true, now).await?;
    }
    for (index, batch) in batches.iter().enumerate() {
        let entries: Vec<HotEntry> = batch.iter().map(hot_entry_of).collect();
        state
            .hot
            .leaderboards
            .load(hot, &entries, index + 1 == batches.len(), now)
            .await?;
    }
    Ok(())
}
