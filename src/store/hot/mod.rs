//! The hot store: purpose-named traits, each with an in-process implementation (single node,
//! the default) and a Redis implementation (shared by every node). Everything here is either
//! ephemeral (rate windows, locks) or rebuildable from the cold store.
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use std::sync::Arc;

pub mod changes;
pub mod leaderboards;
pub mod memory;
pub mod presence;
pub mod quotas;
pub mod redis;

#[derive(Debug, thiserror::Error)]
pub enum HotError {
    #[error("redis: {0}")]
    Redis(#[from] fred::error::Error),
    #[error("unexpected reply from the hot store: {0}")]
    Reply(String),
    /// No connection to Redis is up (it is down or restarting; the pool reconnects in the
    /// background): the command was not sent.
    #[error("redis: not connected (reconnecting)")]
    Unreachable,
}

impl HotError {
    /// The error's kind as the metrics label it.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Redis(_) => "redis",
            Self::Reply(_) => "reply",
            Self::Unreachable => "unreachable",
        }
    }
}

/// Where a fixed rate-limit window stands after counting one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowCount {
    /// Requests counted in the current window, this one included.
    pub count: u64,
    /// Seconds until the window ends and the count starts again.
    pub resets_in_secs: u64,
}

/// Fixed-window request counters, shared by every node when Redis is on.
#[async_trait]
pub trait Limits: Send + Sync {
    /// Counts `cost` requests for `bucket` in the `window_secs`-long window that contains
    /// `now`; the answer's `count` includes them.
    async fn hit(
        &self,
        bucket: &str,
        cost: u64,
        window_secs: u64,
        now: DateTime<Utc>,
    ) -> Result<WindowCount, HotError>;
}

/// Named mutual-exclusion leases with an expiry (alert cooldowns, period archiving).
#[async_trait]
pub trait Locks: Send + Sync {
    /// Takes `name` for `ttl_secs` if nobody holds it. True when this caller got it.
    async fn try_acquire(
        &self,
        name: &str,
        ttl_secs: u64,
        now: DateTime<Utc>,
    ) -> Result<bool, HotError>;
    /// Gives `name` back before its expiry.
    async fn release(&self, name: &str) -> Result<(), HotError>;
}

/// Every hot-store concern, chosen once at start-up.
#[derive(Clone)]
pub struct HotStore {
    pub limits: Arc<dyn Limits>,
    pub locks: Arc<dyn Locks>,
    pub leaderboards: Arc<dyn leaderboards::Leaderboards>,
    /// Monthly event quota counters (events feature).
    pub quotas: Arc<dyn quotas::Quotas>,
    pub presence: Arc<dyn presence::Presence>,
    /// Announcements that a game's cached settings changed, to every node.
    pub changes: Arc<dyn changes::Changes>,
    /// `Some` when Redis backs this store (used by readiness checks).
    pub redis: Option<redis::RedisHandle>,
}

impl HotStore {
    pub fn in_process() -> Self {
        let store = Arc::new(memory::MemoryStore::default());
        let presence = Arc::new(presence::memory::MemoryPresence::default());
        Self {
            limits: store.clone(),
            locks: store,
            leaderboards: Arc::new(leaderboards::memory::MemoryLeaderboards::default()),
            quotas: Arc::new(quotas::MemoryQuotas::default()),
            presence,
            changes: Arc::new(changes::LocalChanges::default()),
            redis: None,
        }
    }

    pub async fn connect_redis(url: &str, prefix: &str) -> Result<Self, HotError> {
        let handle = redis::RedisHandle::connect(url, prefix).await?;
        let store = Arc::new(redis::RedisStore::new(handle.clone()));
        let presence =
            Arc::new(presence::redis::RedisPresence::connect(handle.clone(), url).await?);
        Ok(Self {
            limits: store.clone(),
            locks: store,
            leaderboards: Arc::new(leaderboards::redis::RedisLeaderboards::new(handle.clone())),
            quotas: Arc::new(quotas::RedisQuotas::new(handle.clone())),
            presence,
            changes: Arc::new(changes::RedisChanges::connect(handle.clone(), url).await?),
            redis: Some(handle),
        })
    }

    /// True when the hot store answers.
    pub async fn ready(&self) -> bool {
        match &self.redis {
            Some(handle) => handle.ping().await.is_ok(),
            None => true,
        }
    }
}
