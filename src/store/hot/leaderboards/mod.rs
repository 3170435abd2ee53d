//! The `Leaderboards` hot-store concern: one ranked set per board and period, kept in score
//! order with a tie-break, plus an opaque payload per player (name, metadata, time).
//!
//! Ranking: a board ranks by `sort score` ascending, where the sort score is the score itself
//! on a lower-is-better board and its negation on a higher-is-better one; equal scores rank by
//! `reached_micros` (who reached the score first), then by player id. A submission replaces a
//! player's stored entry only when it ranks strictly ahead of it, atomically, so concurrent
//! submissions for one player keep the best. The cold store applies the very same rule, so the
//! two always converge and a rebuild from the cold store gives the same ranks.
//!
//! On a board `by_revision` (operators other than `best`), an entry replaces the stored one
//! when its revision is higher instead: the cold store applies each change and counts the
//! revision up, so the hot copy keeps the newest of concurrent changes, whatever order they
//! land in, and a rebuild (which merges the same way) never rolls one back or applies it twice.
//!
//! A board's hot copy is either loaded (it holds every public entry of its period) or absent
//! (never loaded, expired, or lost with a Redis restart): operations on an absent board answer
//! `None`, and the caller rebuilds it from the cold store with `load` and retries.
use super::HotError;
use async_trait::async_trait;
use chrono::{DateTime, Utc};

pub mod memory;
pub mod redis;

/// Which ranked set an operation is about.
#[derive(Debug, Clone, PartialEq)]
pub struct HotBoard {
    /// The board's stable id (its definition's UUID).
    pub board_id: String,
    /// The period key (`2026-11-21`, `2026-W47`, `2026-11`, `all_time`, ...).
    pub period: String,
    /// True when a lower score is better.
    pub lower_is_better: bool,
    /// True when an entry replaces the stored one by its higher `revision` rather than by
    /// ranking ahead of it: boards whose operator is not `best`, where the cold store decides
    /// each entry's score and counts its revision up with every change.
    pub by_revision: bool,
    /// When the hot copy may be dropped (some time after the period ends); `None` = never.
    pub expires_at: Option<DateTime<Utc>>,
}

/// One player's entry as the hot store keeps it.
#[derive(Debug, Clone, PartialEq)]
pub struct HotEntry {
    pub player_id: String,
    pub score: f64,
    /// When the score was reached, in microseconds since the Unix epoch (the tie-break).
    pub reached_micros: i64,
    /// Display data the hot store keeps without reading it (JSON from the service).
    pub payload: String,
    /// The cold store's count of changes to the entry (0 on boards kept by rank).
    pub revision: i64,
}

/// An entry with its 1-based rank.
#[derive(Debug, Clone, PartialEq)]
pub struct RankedEntry {
    pub rank: u64,
    pub entry: HotEntry,
}

/// What a submission did.
#[derive(Debug, Clone, PartialEq)]
pub struct Submitted {
    /// True when the submitted entry replaced (or created) the stored one.
    pub changed: bool,
    /// The player's entry as it stands afterwards.
    pub standing: RankedEntry,
}

/// A slice of a board in rank order.
#[derive(Debug, Clone, PartialEq)]
pub struct HotPage {
    /// Entries on the board.
    pub total: u64,
    pub entries: Vec<RankedEntry>,
}

/// A player's standing and the entries around it.
#[derive(Debug, Clone, PartialEq)]
pub struct HotAround {
    pub total: u64,
    /// The player's own entry; `None` when the player is not on the board.
    pub player: Option<RankedEntry>,
    /// Up to `radius` entries either side of the player, the player included, in rank order.
    pub entries: Vec<RankedEntry>,
}

/// Ranked boards shared by every API node.
#[async_trait]
pub trait Leaderboards: Send + Sync {
    /// Keeps the better of `entry` and the player's stored entry. `None`: the board is not loaded.
    async fn submit(
        &self,
        board: &HotBoard,
        entry: &HotEntry,
        now: DateTime<Utc>,
    ) -> Result<Option<Submitted>, HotError>;
    /// Merges `entries` into the board (keep-best, as `submit`); `complete` marks the board
    /// loaded once the last batch of a rebuild is in.
    async fn load(
        &self,
        board: &HotBoard,
        entries: &[HotEntry],
        complete: bool,
        now: DateTime<Utc>,
    ) -> Result<(), HotError>;
    /// `limit` entries from 0-based `offset` in rank order. `None`: the board is not loaded.
    async fn page(
        &self,
        board: &HotBoard,
        offset: u64,
        limit: u64,
        now: DateTime<Utc>,
    ) -> Result<Option<HotPage>, HotError>;
    /// The player's rank and up to `radius` neighbours either side. `None`: not loaded.
    async fn around(
        &self,
        board: &HotBoard,
        player_id: &str,
        radius: u64,
        now: DateTime<Utc>,
    ) -> Result<Option<HotAround>, HotError>;
    /// Takes the player off the board. True when an entry was there.
    async fn remove(
        &self,
        board: &HotBoard,
        player_id: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, HotError>;
    /// An opaque version of the board's contents: different after every change and across
    /// rebuilds. `None`: not loaded. Lets a node reuse what it rendered from an unchanged board.
    async fn version(
        &self,
        board: &HotBoard,
        now: DateTime<Utc>,
    ) -> Result<Option<String>, HotError>;
    /// Lets the hot copy go `after_secs` from `now` (0 = at once). Reads after that rebuild it.
    async fn expire(
        &self,
        board: &HotBoard,
        after_secs: u64,
        now: DateTime<Utc>,
    ) -> Result<(), HotError>;
}

/// The rank key: lower ranks first. `+ 0.0` folds -0 into 0 so both stores agree.
pub fn sort_score(score: f64, lower_is_better: bool) -> f64 {
    (if lower_is_better { score } else { -score }) + 0.0
}

/// The score back from a rank key.
pub fn score_from_sort(sort: f64, lower_is_better: bool) -> f64 {
    (if lower_is_better { sort } else { -sort }) + 0.0
}
