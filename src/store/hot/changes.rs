//! Change announcements: how every node learns that what it cached about a game (API keys,
//! the game's tier and validation mode, event schemas, leaderboard definitions, remote config)
//! is stale. In one process the node that made a change is the only one, so an announcement is
//! handed straight to its listener. With Redis, an announcement bumps a shared version counter
//! and publishes the new version on a pub/sub channel in one script; every node listens on the
//! channel and also polls the counter, so a message missed (a reconnect, a dropped subscriber)
//! still reaches it within two polls, as "forget everything". Each node acknowledges every
//! announcement once it has applied it, and the announcing node waits for as many
//! acknowledgements as nodes received the message: when a change is answered, every node that
//! is alive already applies it.
use super::{redis::RedisHandle, HotError};
use async_trait::async_trait;
use fred::{
    interfaces::{ClientLike, EventInterface, KeysInterface, PubsubInterface},
    types::scripts::Script,
};
use std::{
    collections::BTreeMap,
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc, Mutex, RwLock,
    },
    time::Duration,
};
use tokio::sync::{broadcast, watch};
use uuid::Uuid;

/// What a listener should drop from its caches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stale {
    /// Everything cached about one game.
    Game(Uuid),
    /// Everything: an announcement may have been missed.
    Everything,
}

/// A per-node cache of what games set up, which announcements make stale. `forget_stale` runs
/// before the announcement is acknowledged, so it must be quick and must not block.
pub trait Cached: Send + Sync {
    fn forget_stale(&self, stale: Stale);
}

#[async_trait]
pub trait Changes: Send + Sync {
    /// Tells every node, this one first, that what it cached about `game_id` is stale, and
    /// returns once they have applied it (or after a bounded wait for a node that does not
    /// answer; see `RedisChanges`).
    async fn announce(&self, game_id: Uuid) -> Result<(), HotError>;
    /// Adds a cache to those every announcement this node receives is applied to.
    fn follow(&self, cache: Arc<dyn Cached>);
}

/// The caches announcements are applied to.
#[derive(Default)]
struct Followers(RwLock<Vec<Arc<dyn Cached>>>);

impl Followers {
    fn add(&self, cache: Arc<dyn Cached>) {
        self.0.write().expect("followers lock").push(cache);
    }

    fn apply(&self, stale: Stale) {
        for cache in self.0.read().expect("followers lock").iter() {
            cache.forget_stale(stale);
        }
    }
}

/// One process: announcements go straight to its followers.
#[derive(Default)]
pub struct LocalChanges {
    followers: Followers,
}

#[async_trait]
impl Changes for LocalChanges {
    async fn announce(&self, game_id: Uuid) -> Result<(), HotError> {
        self.followers.apply(Stale::Game(game_id));
        Ok(())
    }

    fn follow(&self, cache: Arc<dyn Cached>) {
        self.followers.add(cache);
    }
}

/// KEYS: version counter. ARGV: channel, game id. Returns the new version and how many
/// subscribers (nodes) received the message `{version} {game id}`, published in version order
/// since the script runs atomically.
const ANNOUNCE_SCRIPT: &str = r#"
local version = redis.call('INCR', KEYS[1])
local receivers = redis.call('PUBLISH', ARGV[1], version .. ' ' .. ARGV[2])
return {version, receivers}
"#;

/// How long an announcement waits for the nodes' acknowledgements. A node that has not
/// answered by then (it died while subscribed, or its Redis connection stalls) applies the
/// change by its next poll of the version, within `2 × POLL_EVERY`.
const ACK_WAIT: Duration = Duration::from_millis(500);

/// Acknowledgement counts kept for versions this far below the newest one acknowledged.
const ACKS_KEPT: u64 = 1024;

/// How often a node reads the shared version to catch announcements it missed.
pub const POLL_EVERY: Duration = Duration::from_millis(250);

pub struct RedisChanges {
    handle: RedisHandle,
    version_key: String,
    channel: String,
    script: Script,
    applied: Arc<Applied>,
    /// Dropped with the store, which stops its two tasks (and closes the subscriber).
    _alive: watch::Sender<()>,
}

/// The highest version this node has applied, shared by the message and poll tasks, and the
/// acknowledgements every node sent for recent versions.
struct Applied {
    version: AtomicU64,
    followers: Followers,
    /// Acknowledgements received, by version.
    acks: Mutex<BTreeMap<u64, u64>>,
    /// Bumped with every acknowledgement received, for `announce` to wait on.
    acked: watch::Sender<()>,
}

impl Applied {
    /// Applies a message carrying `version`: the game alone when it is the next one, everything
    /// when some came before it unseen. Older versions (already covered) change nothing.
    fn message(&self, version: u64, game_id: Uuid) {
        let before = self.version.fetch_max(version, Ordering::AcqRel);
        if version > before {
            let stale = if version == before + 1 {
                Stale::Game(game_id)
            } else {
                Stale::Everything
            };
            self.followers.apply(stale);
        }
    }

    /// Counts one node's acknowledgement of `version`.
    fn ack(&self, version: u64) {
        let mut acks = self.acks.lock().expect("acks lock");
        *acks.entry(version).or_default() += 1;
        let newest = acks.keys().next_back().copied().unwrap_or(0);
        acks.retain(|&kept, _| kept + ACKS_KEPT > newest);
        drop(acks);
        self.acked.send_replace(());
    }

    fn acks(&self, version: u64) -> u64 {
        let acks = self.acks.lock().expect("acks lock");
        acks.get(&version).copied().unwrap_or(0)
    }

    /// Applies the version read by a poll, if no message has covered it since the previous
    /// poll saw it (its message was lost, or is late beyond a poll period). `applied_before`
    /// is the version this node had applied when it sent the read.
    fn polled(&self, version: u64, seen_before: u64, applied_before: u64) {
        if version < applied_before {
            // The counter went back: Redis lost it (restarted without persistence, flushed).
            // Announcements count up from there again, and every message numbered at or below
            // what this node had applied would be ignored as already covered: start over from
            // the counter as it is now.
            self.version.store(version, Ordering::Release);
            self.acks.lock().expect("acks lock").clear();
            self.followers.apply(Stale::Everything);
        } else if seen_before > self.version.load(Ordering::Acquire) {
            self.version.fetch_max(version, Ordering::AcqRel);
            self.followers.apply(Stale::Everything);
        }
    }
}

impl RedisChanges {
    pub async fn connect(handle: RedisHandle, url: &str) -> Result<Self, HotError> {
        let subscriber = RedisHandle::subscriber(url).await?;
        let version_key = handle.key("changes:version");
        let channel = handle.key("changes");
        let ack_channel = handle.key("changes:acks");
        let current: Option<u64> = handle.client()?.get(&version_key).await?;
        let applied = Arc::new(Applied {
            version: AtomicU64::new(current.unwrap_or(0)),
            followers: Followers::default(),
            acks: Mutex::default(),
            acked: watch::channel(()).0,
        });

        let mut messages = subscriber.message_rx();
        subscriber
            .subscribe(vec![channel.clone(), ack_channel.clone()])
            .await?;
        let (alive, mut stopped) = watch::channel(());
        let on_message = applied.clone();
        let own_channel = channel.clone();
        let acker = handle.clone();
        tokio::spawn(async move {
            loop {
                let message = tokio::select! {
                    received = messages.recv() => match received {
                        Ok(message) => message,
                        Err(broadcast::error::RecvError::Lagged(_)) => {
                            on_message.followers.apply(Stale::Everything);
                            continue;
                        }
                        Err(broadcast::error::RecvError::Closed) => break,
                    },
                    _ = stopped.changed() => break,
                };
                let text = message.value.as_string().unwrap_or_default();
                if message.channel == own_channel.as_str() {
                    let parsed = text.split_once(' ').and_then(|(version, game)| {
                        Some((version.parse::<u64>().ok()?, Uuid::parse_str(game).ok()?))
                    });
                    let Some((version, game)) = parsed else {
                        tracing::warn!(%text, "unreadable change announcement");
                        continue;
                    };
                    on_message.message(version, game);
                    // Applied: tell the announcing node. A subscriber connection cannot
                    // publish, and this loop must not wait on Redis, so it goes out on its own.
                    let acker = acker.clone();
                    let ack_channel = ack_channel.clone();
                    tokio::spawn(async move {
                        if let Ok(client) = acker.client() {
                            let _: Result<u64, _> = client.publish(ack_channel, version).await;
                        }
                    });
                } else if message.channel == ack_channel.as_str() {
                    if let Ok(version) = text.parse::<u64>() {
                        on_message.ack(version);
                    }
                }
            }
            let _ = subscriber.quit().await;
        });

        let poll = applied.clone();
        let poller = handle.clone();
        let polled_key = version_key.clone();
        let mut stopped = alive.subscribe();
        tokio::spawn(async move {
            let mut seen = poll.version.load(Ordering::Acquire);
            let mut tick = tokio::time::interval(POLL_EVERY);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    _ = tick.tick() => {}
                    _ = stopped.changed() => break,
                }
                let applied_before = poll.version.load(Ordering::Acquire);
                let read = match poller.client() {
                    Ok(client) => client
                        .get::<Option<u64>, _>(&polled_key)
                        .await
                        .map_err(HotError::from),
                    Err(error) => Err(error),
                };
                match read {
                    Ok(version) => {
                        let version = version.unwrap_or(0);
                        poll.polled(version, seen, applied_before);
                        seen = version;
                    }
                    // Announcements cannot reach this node while Redis is away: nothing it
                    // caches can be trusted for longer than a poll period.
                    Err(error) => {
                        tracing::debug!(error = %error, "change version unreadable; caches dropped");
                        poll.followers.apply(Stale::Everything);
                    }
                }
            }
        });

        Ok(Self {
            handle,
            version_key,
            channel,
            script: Script::from_lua(ANNOUNCE_SCRIPT),
            applied,
            _alive: alive,
        })
    }
}

#[async_trait]
impl Changes for RedisChanges {
    /// Returns once every node the message reached (this one included) has acknowledged
    /// applying it, or after `ACK_WAIT`.
    async fn announce(&self, game_id: Uuid) -> Result<(), HotError> {
        // This node forgets at once, whether or not Redis carries the announcement.
        self.applied.followers.apply(Stale::Game(game_id));
        let mut acked = self.applied.acked.subscribe();
        let (version, receivers): (u64, u64) = self
            .script
            .evalsha_with_reload(
                self.handle.client()?,
                vec![self.version_key.clone()],
                vec![self.channel.clone(), game_id.to_string()],
            )
            .await?;
        let all_applied = async {
            while self.applied.acks(version) < receivers {
                if acked.changed().await.is_err() {
                    break;
                }
            }
        };
        if tokio::time::timeout(ACK_WAIT, all_applied).await.is_err() {
            tracing::debug!(
                version,
                receivers,
                "not every node acknowledged a change in time"
            );
        }
        Ok(())
    }

    fn follow(&self, cache: Arc<dyn Cached>) {
        self.applied.followers.add(cache);
    }
}
