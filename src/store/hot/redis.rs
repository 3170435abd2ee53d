//! The Redis hot store (fred): shared by every API node. Multi-step updates run as Lua scripts
//! so they are atomic, never read-modify-write across round trips.
use super::{memory::window_of, HotError, Limits, Locks, WindowCount};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use fred::{
    prelude::*,
    types::{scripts::Script, Expiration, SetOptions},
};
use std::{sync::Arc, time::Duration};

/// How long a command may wait for its answer before it fails (503, or let through by the rate
/// limiter). Commands take well under a millisecond; this bounds a Redis that accepts
/// connections but does not answer. A Redis known to be down fails commands at once instead
/// (see `client`).
const COMMAND_TIMEOUT: Duration = Duration::from_secs(2);

/// Reconnection attempts back off from 100 ms to this, so a Redis that comes back is used
/// again within about a second.
const MAX_RECONNECT_DELAY_MS: u32 = 1_000;

/// A connected Redis pool plus the key prefix of this deployment.
#[derive(Clone)]
pub struct RedisHandle {
    pub pool: Pool,
    pub prefix: Arc<str>,
}

impl RedisHandle {
    pub async fn connect(url: &str, prefix: &str) -> Result<Self, HotError> {
        let config = Config::from_url(url)?;
        let pool = Builder::from_config(config)
            .with_connection_config(|c| {
                c.connection_timeout = std::time::Duration::from_secs(5);
                // Nagle's algorithm would hold back the tail of a large pipelined write until
                // Redis acknowledges the head (up to 40 ms on Linux).
                c.tcp.nodelay = Some(true);
            })
            .with_performance_config(|p| p.default_command_timeout = COMMAND_TIMEOUT)
            .set_policy(ReconnectPolicy::new_exponential(
                0,
                100,
                MAX_RECONNECT_DELAY_MS,
                2,
            ))
            .build_pool(4)?;
        pool.init().await?;
        Ok(Self {
            pool,
            prefix: Arc::from(prefix),
        })
    }

    /// A pub/sub connection of its own to `url`, resubscribed to its channels after reconnects.
    pub async fn subscriber(url: &str) -> Result<fred::clients::SubscriberClient, HotError> {
        let subscriber = Builder::from_config(Config::from_url(url)?)
            .with_performance_config(|p| p.default_command_timeout = COMMAND_TIMEOUT)
            .set_policy(ReconnectPolicy::new_exponential(
                0,
                100,
                MAX_RECONNECT_DELAY_MS,
                2,
            ))
            .build_subscriber_client()?;
        subscriber.init().await?;
        let _resubscriber = subscriber.manage_subscriptions();
        Ok(subscriber)
    }

    /// The full Redis key for a logical key.
    pub fn key(&self, logical: &str) -> String {
        format!("{}{}", self.prefix, logical)
    }

    /// A connected client of the pool to send a command with, or `Unreachable` at once when
    /// none is: fred would otherwise queue the command until Redis is back, and every request
    /// (the rate limiter's included) would wait for it.
    pub fn client(&self) -> Result<&Client, HotError> {
        let client = self.pool.next_connected();
        if client.is_connected() {
            Ok(client)
        } else {
            Err(HotError::Unreachable)
        }
    }

    pub async fn ping(&self) -> Result<(), HotError> {
        let _: String = self.client()?.ping(None).await?;
        Ok(())
    }
}

/// Add to the window counter and give it an expiry on first use, in one step.
const HIT_SCRIPT: &str = r#"
local count = redis.call('INCRBY', KEYS[1], ARGV[2])
if count == tonumber(ARGV[2]) then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return count
"#;

pub struct RedisStore {
    handle: RedisHandle,
    hit_script: Script,
}

impl RedisStore {
    pub fn new(handle: RedisHandle) -> Self {
        Self {
            handle,
            hit_script: Script::from_lua(HIT_SCRIPT),
        }
    }
}

#[async_trait]
impl Limits for RedisStore {
    async fn hit(
        &self,
        bucket: &str,
        cost: u64,
        window_secs: u64,
        now: DateTime<Utc>,
    ) -> Result<WindowCount, HotError> {
        let (window, resets_in_secs) = window_of(now, window_secs);
        let key = self.handle.key(&format!("rl:{bucket}:{window}"));
        let count: i64 = self
            .hit_script
            .evalsha_with_reload(
                self.handle.client()?,
                vec![key],
                vec![(window_secs * 2).to_string(), cost.max(1).to_string()],
            )
            .await?;
        Ok(WindowCount {
            count: count.max(0) as u64,
            resets_in_secs,
        })
    }
}

#[async_trait]
impl Locks for RedisStore {
    async fn try_acquire(
        &self,
        name: &str,
        ttl_secs: u64,
        _now: DateTime<Utc>,
    ) -> Result<bool, HotError> {
        let key = self.handle.key(&format!("lock:{name}"));
        let reply: Option<String> = self
            .handle
            .client()?
            .set(
                key,
                "1",
                Some(Expiration::EX(ttl_secs.max(1) as i64)),
                Some(SetOptions::NX),
                false,
            )
            .await?;
        Ok(reply.is_some())
    }

    async fn release(&self, name: &str) -> Result<(), HotError> {
        let key = self.handle.key(&format!("lock:{name}"));
        let _: i64 = self.handle.client()?.del(key).await?;
        Ok(())
    }
}
