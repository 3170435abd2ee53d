//! Presence in the hot store: one entry per (game, player) with its status, activity and data,
//! a per-game index by last update, and the live feed dashboards subscribe to.
//!
//! Time decides everything here and is always the caller's `now`: an entry silent for
//! `OFFLINE_AFTER` reads as offline and leaves the active lists at once, whether or not
//! anything has swept it; it is forgotten after `RETAIN`.
use super::HotError;
use async_trait::async_trait;
use chrono::{DateTime, Duration, TimeZone, Utc};
use serde_json::Value;
use uuid::Uuid;

mod feed;
pub mod memory;
pub mod redis;

pub use feed::{FeedHub, FeedSubscription};

/// Silence after which a player reads as offline (interface section 8).
pub const OFFLINE_AFTER: Duration = Duration::minutes(10);
/// How long an entry is kept after its last update, offline or not.
pub const RETAIN: Duration = Duration::hours(24);

/// An entry's status. A game sets `playing`, `waiting` or `idle`; `offline` is never stored: it
/// is what an entry reads as after silence.
pub use crate::words::PresenceStatus;

impl PresenceStatus {
    /// The statuses an entry is stored with, each with its own index.
    pub const SETTABLE: [PresenceStatus; 3] = [Self::Playing, Self::Waiting, Self::Idle];

    /// The status's own index (an `offline` one, never stored, has one too).
    fn index(self) -> usize {
        match self {
            Self::Playing => 0,
            Self::Waiting => 1,
            Self::Idle => 2,
            Self::Offline => 3,
        }
    }
}

/// One player's presence as the game last set it.
#[derive(Debug, Clone, PartialEq)]
pub struct PresenceEntry {
    pub player_id: String,
    pub session_id: Option<String>,
    pub status: PresenceStatus,
    pub activity: String,
    /// The activity's structured `details` (an object).
    pub data: Value,
    pub updated_at: DateTime<Utc>,
}

impl PresenceEntry {
    pub fn is_offline_at(&self, now: DateTime<Utc>) -> bool {
        now - self.updated_at >= OFFLINE_AFTER
    }

    /// The status a reader sees at `now`: the stored one, or `offline` after the silence.
    pub fn status_at(&self, now: DateTime<Utc>) -> PresenceStatus {
        if self.is_offline_at(now) {
            PresenceStatus::Offline
        } else {
            self.status
        }
    }

    fn is_retained_at(&self, now: DateTime<Utc>) -> bool {
        now - self.updated_at < RETAIN
    }
}

/// One page of a game's active (not offline) players, most recently updated first.
#[derive(Debug, Clone, PartialEq)]
pub struct PresencePage {
    /// Every active entry matching the filter, not only this page's.
    pub active_count: u64,
    pub entries: Vec<PresenceEntry>,
}

/// An entry that crossed into offline and was announced on the feed.
#[derive(Debug, Clone, PartialEq)]
pub struct WentOffline {
    pub game_id: Uuid,
    pub player_id: String,
    pub last_updated: DateTime<Utc>,
}

/// Renders the feed message for a player gone offline (player id, last update).
pub type OfflineMessage = fn(&str, DateTime<Utc>) -> String;

/// Presence entries and their live feed, shared by every node when Redis is on.
#[async_trait]
pub trait Presence: Send + Sync {
    /// Stores `entry` (its `updated_at` is the write time) and publishes `message` on the
    /// game's feed, in one step. Messages are rendered by the presence feature.
    async fn set(
        &self,
        game_id: Uuid,
        entry: &PresenceEntry,
        message: &str,
    ) -> Result<(), HotError>;
    /// Forgets the player's entry. True when there was one; then `message` is published.
    async fn clear(&self, game_id: Uuid, player_id: &str, message: &str) -> Result<bool, HotError>;
    /// The player's entry, offline or not, unless older than `RETAIN` or cleared.
    async fn get(
        &self,
        game_id: Uuid,
        player_id: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<PresenceEntry>, HotError>;
    /// Active entries (silent for less than `OFFLINE_AFTER`), optionally of one status, newest first.
    async fn active(
        &self,
        game_id: Uuid,
        status: Option<PresenceStatus>,
        now: DateTime<Utc>,
        offset: u64,
        limit: u64,
    ) -> Result<PresencePage, HotError>;
    /// Claims up to `max` entries that have gone offline by `now` and not been announced yet,
    /// and publishes `message(player_id, last_updated)` for each. Every such entry is claimed
    /// by exactly one caller, however many nodes run the check.
    async fn announce_offline(
        &self,
        now: DateTime<Utc>,
        max: usize,
        message: OfflineMessage,
    ) -> Result<Vec<WentOffline>, HotError>;
    /// This node's live feed of one game's presence messages (from every node).
    async fn subscribe(&self, game_id: Uuid) -> Result<FeedSubscription, HotError>;
    /// Tells every node's feed connections of the game that `user_id` (everyone: `None`) lost
    /// access; they close. Not forwarded to dashboards.
    async fn revoke(&self, game_id: Uuid, user_id: Option<Uuid>) -> Result<(), HotError>;
}

/// Feed messages of this type are for the nodes, not the dashboards: see [`revoked_message`].
pub const REVOKED_PREFIX: &str = r#"{"type":"access.revoked""#;

/// The feed message telling connections of `user_id` (everyone: `None`) to close.
pub fn revoked_message(user_id: Option<Uuid>) -> String {
    match user_id {
        Some(user_id) => format!(r#"{REVOKED_PREFIX},"user_id":"{user_id}"}}"#),
        None => format!(r#"{REVOKED_PREFIX},"user_id":null}}"#),
    }
}

/// Whether a feed message revokes the access of `user_id`: `None` when it is not a revocation.
pub fn revokes(message: &str, user_id: Uuid) -> Option<bool> {
    if !message.starts_with(REVOKED_PREFIX) {
        return None;
    }
    let target = serde_json::from_str::<serde_json::Value>(message)
        .ok()
        .and_then(|value| {
            value["user_id"]
                .as_str()
                .and_then(|id| Uuid::parse_str(id).ok())
        });
    Some(target.is_none_or(|target| target == user_id))
}

fn millis(at: DateTime<Utc>) -> i64 {
    at.timestamp_millis()
}

fn from_millis(ms: i64) -> DateTime<Utc> {
    Utc.timestamp_millis_opt(ms).single().unwrap_or_default()
}
