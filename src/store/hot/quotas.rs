//! Monthly event quota counters: an all-or-nothing reservation that is exact under concurrency,
//! in-process for one node and in Redis (one Lua script per step) for many.
//!
//! A counter that does not exist (first use, a restarted process, a flushed Redis) is reported as
//! `Missing` instead of silently starting from zero: the caller rebuilds the count from the cold
//! store and reserves again with it, and the first rebuild to arrive wins.
use super::{redis::RedisHandle, HotError};
use async_trait::async_trait;
use fred::types::scripts::Script;
use parking_lot::Mutex;
use std::collections::HashMap;

/// How long a Redis counter outlives its last creation: a month plus margin, so counters of
/// past months disappear on their own.
pub const COUNTER_TTL_SECS: u64 = 40 * 24 * 3600;

/// The answer to a reservation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reservation {
    /// The amount fits and is now counted; `used` is the count including it.
    Reserved { used: u64 },
    /// The amount does not fit; nothing was counted. `current` is the count as it stands.
    Refused { current: u64 },
    /// The counter does not exist; nothing was counted. Rebuild it and reserve again.
    Missing,
}

#[async_trait]
pub trait Quotas: Send + Sync {
    /// Counts `amount` on `counter` if the total stays within `limit`, all or nothing. When the
    /// counter is missing it is first created from `rebuilt` (the count the caller read from the
    /// cold store); with `rebuilt` `None` a missing counter answers `Missing`.
    async fn reserve(
        &self,
        counter: &str,
        amount: u64,
        limit: u64,
        rebuilt: Option<u64>,
    ) -> Result<Reservation, HotError>;

    /// Gives back `amount` reserved earlier (never below zero). A missing counter stays missing:
    /// its rebuild reads the cold store, which never held the given-back events.
    async fn release(&self, counter: &str, amount: u64) -> Result<(), HotError>;

    /// The counter's value, `None` when it is missing.
    async fn current(&self, counter: &str) -> Result<Option<u64>, HotError>;
}

/// Counters in this process's memory: lost on restart, then rebuilt from the cold store.
#[derive(Default)]
pub struct MemoryQuotas {
    counters: Mutex<HashMap<String, u64>>,
}

#[async_trait]
impl Quotas for MemoryQuotas {
    async fn reserve(
        &self,
        counter: &str,
        amount: u64,
        limit: u64,
        rebuilt: Option<u64>,
    ) -> Result<Reservation, HotError> {
        let mut counters = self.counters.lock();
        let current = match (counters.get(counter), rebuilt) {
            (Some(current), _) => *current,
            (None, Some(rebuilt)) => *counters.entry(counter.to_string()).or_insert(rebuilt),
            (None, None) => return Ok(Reservation::Missing),
        };
        if current.saturating_add(amount) > limit {
            return Ok(Reservation::Refused { current });
        }
        let used = current + amount;
        counters.insert(counter.to_string(), used);
        Ok(Reservation::Reserved { used })
    }

    async fn release(&self, counter: &str, amount: u64) -> Result<(), HotError> {
        if let Some(current) = self.counters.lock().get_mut(counter) {
            *current = current.saturating_sub(amount);
        }
        Ok(())
    }

    async fn current(&self, counter: &str) -> Result<Option<u64>, HotError> {
        Ok(self.counters.lock().get(counter).copied())
    }
}

/// Create-if-missing, check and count in one atomic step.
/// KEYS[1] counter; ARGV amount, limit, rebuilt count ('' = none), ttl seconds.
/// Returns {1, used} reserved, {0, current} refused, {-1, 0} missing.
const RESERVE_SCRIPT: &str = r#"
local current = redis.call('GET', KEYS[1])
if not current then
  if ARGV[3] == '' then return {-1, 0} end
  current = tonumber(ARGV[3])
  redis.call('SET', KEYS[1], current, 'EX', tonumber(ARGV[4]))
else
  current = tonumber(current)
end
local amount = tonumber(ARGV[1])
if current + amount > tonumber(ARGV[2]) then return {0, current} end
return {1, redis.call('INCRBY', KEYS[1], amount)}
"#;

/// Subtract without going below zero, and without creating a missing counter.
const RELEASE_SCRIPT: &str = r#"
local current = redis.call('GET', KEYS[1])
if not current then return -1 end
local take = math.min(tonumber(current), tonumber(ARGV[1]))
return redis.call('DECRBY', KEYS[1], take)
"#;

/// Counters in Redis, shared by every API node.
pub struct RedisQuotas {
    handle: RedisHandle,
    reserve_script: Script,
    release_script: Script,
}

impl RedisQuotas {
    pub fn new(handle: RedisHandle) -> Self {
        Self {
            handle,
            reserve_script: Script::from_lua(RESERVE_SCRIPT),
            release_script: Script::from_lua(RELEASE_SCRIPT),
        }
    }

    fn key(&self, counter: &str) -> String {
        self.handle.key(&format!("quota:{counter}"))
    }
}

#[async_trait]
impl Quotas for RedisQuotas {
    async fn reserve(
        &self,
        counter: &str,
        amount: u64,
        limit: u64,
        rebuilt: Option<u64>,
    ) -> Result<Reservation, HotError> {
        let args = vec![
            amount.to_string(),
            limit.to_string(),
            rebuilt.map(|r| r.to_string()).unwrap_or_default(),
            COUNTER_TTL_SECS.to_string(),
        ];
        let reply: Vec<i64> = self
            .reserve_script
            .evalsha_with_reload(self.handle.pool.next(), vec![self.key(counter)], args)
            .await?;
        match reply.as_slice() {
            [1, used] => Ok(Reservation::Reserved {
                used: (*used).max(0) as u64,
            }),
            [0, current] => Ok(Reservation::Refused {
                current: (*current).max(0) as u64,
            }),
            [-1, _] => Ok(Reservation::Missing),
            other => Err(HotError::Reply(format!("quota reserve answered {other:?}"))),
        }
    }

    async fn release(&self, counter: &str, amount: u64) -> Result<(), HotError> {
        let _: i64 = self
            .release_script
            .evalsha_with_reload(
                self.handle.pool.next(),
                vec![self.key(counter)],
                vec![amount.to_string()],
            )
            .await?;
        Ok(())
    }

    async fn current(&self, counter: &str) -> Result<Option<u64>, HotError> {
        use fred::prelude::KeysInterface;
        let value: Option<i64> = self.handle.pool.get(self.key(counter)).await?;
        Ok(value.map(|v| v.max(0) as u64))
    }
}
