//! Scores in and ranks out. A submission is written through to the cold store (keep-best
//! upsert) and then ranked in the hot store (keep-best script); both apply the same rule, so
//! they agree whatever order concurrent submissions land in. The current period is read from
//! the hot store, rebuilt from the cold store whenever it is missing; finished periods are read
//! from the cold store.
use super::{
    boards::{self, Board, BoardName, PlayerId},
    error::LeaderboardError,
    writer::Kept,
};
use crate::{
    http::timestamp,
    state::AppState,
    store::group_commit::WriteError,
    store::hot::leaderboards::{sort_score, HotBoard, HotEntry, RankedEntry, Submitted},
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
    pub status: &'static str,
    pub updated: bool,
}

/// A slice of one period of a board.
#[derive(Debug, Clone)]
pub struct Page {
    pub period: String,
    pub total: u64,
    pub entries: Vec<Ranked>,
}

/// One player's standing and neighbours.
#[derive(Debug, Clone)]
pub struct Around {
    pub period: String,
    pub total: u64,
    pub player: Ranked,
    pub entries: Vec<Ranked>,
}

/// A validated score submission.
#[derive(Debug, Clone)]
pub struct Submission {
    pub player_id: PlayerId,
    pub player_name: Option<String>,
    pub score: f64,
    pub metadata: Value,
}

impl Submission {
    pub fn parse(
        player_id: &str,
        player_name: Option<String>,
        score: f64,
        metadata: Option<Value>,
    ) -> Result<Self, LeaderboardError> {
        let player_id = PlayerId::parse(player_id)?;
        if let Some(name) = &player_name {
            if name.chars().count() > boards::MAX_PLAYER_NAME_CHARS
                || name.chars().any(char::is_control)
            {
                return Err(LeaderboardError::invalid(
                    "player_name must be at most 128 characters without control characters",
                ));
            }
        }
        if !score.is_finite() {
            return Err(LeaderboardError::invalid("score must be a finite number"));
        }
        let metadata = match metadata {
            None | Some(Value::Null) => json!({}),
            Some(value @ Value::Object(_)) => value,
            Some(_) => return Err(LeaderboardError::invalid("metadata must be an object")),
        };
        if metadata.to_string().len() > MAX_METADATA_BYTES {
            return Err(LeaderboardError::invalid(
                "metadata must be at most 4096 bytes as JSON",
            ));
        }
        Ok(Self {
            player_id,
            player_name,
            score,
            metadata,
        })
    }
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
    }
}

/// Records that `board` has entries in `period`, once per period, so the worker can archive it.
async fn open_period(
    state: &AppState,
    board: &Board,
    period: &str,
    now: DateTime<Utc>,
) -> Result<(), LeaderboardError> {
    if board.model.open_period.as_deref() == Some(period) {
        return Ok(());
    }
    periods::Entity::insert(periods::ActiveModel {
        board_id: Set(board.id()),
        period: Set(period.to_string()),
        opened_at: Set(now),
        archived_at: Set(None),
        entry_count: Set(None),
    })
    .on_conflict(
        OnConflict::columns([periods::Column::BoardId, periods::Column::Period])
            .do_nothing()
            .to_owned(),
    )
    .exec_without_returning(&state.db)
    .await?;
    leaderboards::Entity::update_many()
        .col_expr(
            leaderboards::Column::OpenPeriod,
            sea_orm::sea_query::Expr::value(period.to_string()),
        )
        .filter(leaderboards::Column::Id.eq(board.id()))
        .exec(&state.db)
        .await?;
    // Cached definitions still name the old period, on every node: read it again next time.
    state.game_changed(board.model.game_id).await;
    Ok(())
}

/// Submits a score: keep-best in the current period, written through to the cold store.
#[tracing::instrument(skip_all, fields(game_id = %game_id, board = %name.as_str()))]
pub async fn submit(
    state: &AppState,
    game_id: Uuid,
    name: &BoardName,
    submission: Submission,
) -> Result<Standing, LeaderboardError> {
    // A board deleted on another node may still be in this node's cache: the write finds it
    // gone, and the submission starts over, creating the board anew.
    for _ in 0..2 {
        let board = boards::find_or_create_cached(state, game_id, name).await?;
        match submit_to(state, &board, &submission).await? {
            Some(standing) => return Ok(standing),
            None => boards::forget(state, game_id, name),
        }
    }
    Err(LeaderboardError::NoSuchBoard)
}

/// `submit` once the board is known; `None` when the board no longer exists.
async fn submit_to(
    state: &AppState,
    board: &Board,
    submission: &Submission,
) -> Result<Option<Standing>, LeaderboardError> {
    let now = state.now();
    let period = board.current_period(now);
    open_period(state, board, &period, now).await?;
    let status = if board.out_of_bounds(submission.score) {
        STATUS_SUSPICIOUS
    } else {
        STATUS_OK
    };
    let row = entries::Model {
        id: Uuid::now_v7(),
        board_id: board.id(),
        period: period.clone(),
        player_id: submission.player_id.as_str().to_string(),
        status: status.to_string(),
        player_name: submission.player_name.clone(),
        score: submission.score + 0.0,
        sort_score: sort_score(submission.score, board.lower_is_better()),
        reached_at: now.timestamp_micros(),
        metadata: submission.metadata.to_string(),
        updated_at: now,
    };
    // The write also checks the ban list, in the same snapshot as the keep-best upsert.
    let kept = super::writer::scores(state)
        .write(row.clone())
        .await
        .map_err(|error| match error {
            WriteError::Store(error) => LeaderboardError::Cold(error),
            WriteError::Closed => LeaderboardError::Cold(sea_orm::DbErr::Conn(
                sea_orm::RuntimeErr::Internal("the node is shutting down".into()),
            )),
        })?;
    let updated = match kept {
        Kept::Stored => true,
        Kept::NotBetter => false,
        Kept::Banned => return Err(LeaderboardError::Banned),
        Kept::NoBoard => return Ok(None),
    };
    if status == STATUS_SUSPICIOUS {
        let stored = stored_entry(
            state,
            board,
            &period,
            submission.player_id.as_str(),
            STATUS_SUSPICIOUS,
        )
        .await?
        .unwrap_or(row);
        return Ok(Some(Standing {
            entry: from_model(&stored),
            rank: None,
            status,
            updated,
        }));
    }
    let submitted = hot_submit(state, board, &period, &hot_entry_of(&row), now).await?;
    Ok(Some(Standing {
        entry: from_hot(submitted.standing.entry),
        rank: Some(submitted.standing.rank),
        status,
        updated,
    }))
}

pub async fn stored_entry(
    state: &AppState,
    board: &Board,
    period: &str,
    player_id: &str,
    status: &str,
) -> Result<Option<entries::Model>, LeaderboardError> {
    Ok(entries::Entity::find()
        .filter(entries::Column::BoardId.eq(board.id()))
        .filter(entries::Column::Period.eq(period))
        .filter(entries::Column::PlayerId.eq(player_id))
        .filter(entries::Column::Status.eq(status))
        .one(&state.db)
        .await?)
}

/// Keep-best in the hot store, rebuilding the board first when it is not loaded.
pub async fn hot_submit(
    state: &AppState,
    board: &Board,
    period: &str,
    entry: &HotEntry,
    now: DateTime<Utc>,
) -> Result<Submitted, LeaderboardError> {
    let hot = board.hot(period, now);
    for _ in 0..HOT_ATTEMPTS {
        if let Some(submitted) = state.hot.leaderboards.submit(&hot, entry, now).await? {
            return Ok(submitted);
        }
        rebuild(state, board, &hot, now).await?;
    }
    Err(LeaderboardError::RebuildFailed)
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

/// The period a read is about: `requested` when given (400 unless shaped like a period key),
/// else the current one.
fn read_period(
    board: Option<&Board>,
    requested: Option<&str>,
    now: DateTime<Utc>,
) -> Result<String, LeaderboardError> {
    match requested {
        Some(key) if super::period::is_period_key(key) => Ok(key.to_string()),
        Some(_) => Err(LeaderboardError::invalid(
            "period must be a period key: YYYY-MM-DD, YYYY-Www, YYYY-MM, all_time or since-YYYY-MM-DD",
        )),
        None => Ok(board.map(|b| b.current_period(now)).unwrap_or_else(|| super::period::ALL_TIME.to_string())),
    }
}

/// Where a read of the current period can be answered from this node's rendered pages: the
/// page's key and the board's hot-store version. `None` for other periods, unknown boards and
/// boards not loaded in the hot store.
pub async fn current_version(
    state: &AppState,
    game_id: Uuid,
    name: &BoardName,
    requested_period: Option<&str>,
    offset: u64,
    limit: u64,
) -> Result<Option<(super::pages::PageKey, String)>, LeaderboardError> {
    let now = state.now();
    let Some(board) = boards::find_cached(state, game_id, name).await? else {
        return Ok(None);
    };
    let period = read_period(Some(&board), requested_period, now)?;
    if period != board.current_period(now) {
        return Ok(None);
    }
    let version = state
        .hot
        .leaderboards
        .version(&board.hot(&period, now), now)
        .await?;
    Ok(version.map(|version| ((board.id(), period, offset, limit), version)))
}

/// A page of a board in rank order. An unknown board reads as empty.
pub async fn page(
    state: &AppState,
    game_id: Uuid,
    name: &BoardName,
    requested_period: Option<&str>,
    offset: u64,
    limit: u64,
) -> Result<Page, LeaderboardError> {
    let now = state.now();
    let board = boards::find_cached(state, game_id, name).await?;
    let period = read_period(board.as_ref(), requested_period, now)?;
    let Some(board) = board else {
        return Ok(Page {
            period,
            total: 0,
            entries: Vec::new(),
        });
    };
    if period == board.current_period(now) {
        let hot = board.hot(&period, now);
        for _ in 0..HOT_ATTEMPTS {
            if let Some(page) = state
                .hot
                .leaderboards
                .page(&hot, offset, limit, now)
                .await?
            {
                let entries = page.entries.into_iter().map(from_hot_ranked).collect();
                return Ok(Page {
                    period,
                    total: page.total,
                    entries,
                });
            }
            rebuild(state, &board, &hot, now).await?;
        }
        return Err(LeaderboardError::RebuildFailed);
    }
    let (total, entries) = cold_page(state, &board, &period, offset, limit).await?;
    Ok(Page {
        period,
        total,
        entries,
    })
}

fn ranked_query(board: &Board, period: &str) -> sea_orm::Select<entries::Entity> {
    entries::Entity::find()
        .filter(entries::Column::BoardId.eq(board.id()))
        .filter(entries::Column::Period.eq(period))
        .filter(entries::Column::Status.eq(STATUS_OK))
}

fn in_rank_order(query: sea_orm::Select<entries::Entity>) -> sea_orm::Select<entries::Entity> {
    query
        .order_by_asc(entries::Column::SortScore)
        .order_by_asc(entries::Column::ReachedAt)
        .order_by_asc(entries::Column::PlayerId)
}

async fn cold_page(
    state: &AppState,
    board: &Board,
    period: &str,
    offset: u64,
    limit: u64,
) -> Result<(u64, Vec<Ranked>), LeaderboardError> {
    let total = ranked_query(board, period).count(&state.db).await?;
    let rows = in_rank_order(ranked_query(board, period))
        .offset(offset)
        .limit(limit)
        .all(&state.db)
        .await?;
    let entries = rows
        .iter()
        .enumerate()
        .map(|(index, row)| Ranked {
            rank: offset + index as u64 + 1,
            entry: from_model(row),
        })
        .collect();
    Ok((total, entries))
}

/// A player's rank and up to `radius` entries either side. 404 when the player has no public
/// entry in the period.
pub async fn around(
    state: &AppState,
    game_id: Uuid,
    name: &BoardName,
    player_id: &PlayerId,
    requested_period: Option<&str>,
    radius: u64,
) -> Result<Around, LeaderboardError> {
    let now = state.now();
    let board = boards::find_cached(state, game_id, name).await?;
    let period = read_period(board.as_ref(), requested_period, now)?;
    let no_entry = LeaderboardError::NoSuchEntry("This player has no entry on this leaderboard");
    let Some(board) = board else {
        return Err(no_entry);
    };
    if period == board.current_period(now) {
        let hot = board.hot(&period, now);
        for _ in 0..HOT_ATTEMPTS {
            if let Some(found) = state
                .hot
                .leaderboards
                .around(&hot, player_id.as_str(), radius, now)
                .await?
            {
                let player = found.player.ok_or(no_entry)?;
                return Ok(Around {
                    period,
                    total: found.total,
                    player: from_hot_ranked(player),
                    entries: found.entries.into_iter().map(from_hot_ranked).collect(),
                });
            }
            rebuild(state, &board, &hot, now).await?;
        }
        return Err(LeaderboardError::RebuildFailed);
    }
    let own = stored_entry(state, &board, &period, player_id.as_str(), STATUS_OK)
        .await?
        .ok_or(no_entry)?;
    let ahead = ranked_query(&board, &period)
        .filter(
            Condition::any()
                .add(entries::Column::SortScore.lt(own.sort_score))
                .add(
                    Condition::all()
                        .add(entries::Column::SortScore.eq(own.sort_score))
                        .add(entries::Column::ReachedAt.lt(own.reached_at)),
                )
                .add(
                    Condition::all()
                        .add(entries::Column::SortScore.eq(own.sort_score))
                        .add(entries::Column::ReachedAt.eq(own.reached_at))
                        .add(entries::Column::PlayerId.lt(own.player_id.clone())),
                ),
        )
        .count(&state.db)
        .await?;
    let rank = ahead + 1;
    let first = rank.saturating_sub(radius).max(1);
    let (total, entries) =
        cold_page(state, &board, &period, first - 1, rank + radius - first + 1).await?;
    Ok(Around {
        period,
        total,
        player: Ranked {
            rank,
            entry: from_model(&own),
        },
        entries,
    })
}

/// The player's public standing in `period` (from the hot store for the current period).
pub async fn public_standing(
    state: &AppState,
    board: &Board,
    period: &str,
    player_id: &PlayerId,
) -> Result<Option<Ranked>, LeaderboardError> {
    let name = BoardName::parse(board.name())?;
    match around(
        state,
        board.model.game_id,
        &name,
        player_id,
        Some(period),
        0,
    )
    .await
    {
        Ok(found) => Ok(Some(found.player)),
        Err(LeaderboardError::NoSuchEntry(_)) => Ok(None),
        Err(error) => Err(error),
    }
}
