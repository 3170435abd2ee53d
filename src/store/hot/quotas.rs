//! Monthly event quota counters: all-or-nothing reservations that are exact under concurrency,
//! in-process for one node and in Redis (one Lua script per step) for many. A group of requests
//! (the event writer's group commit) reserves in one step, each request all or nothing.
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

/// One request's reservation: `amount` on `counter` if the total stays within `limit`.
#[derive(Debug, Clone, Copy)]
pub struct Ask<'a> {
    pub counter: &'a str,
    pub amount: u64,
    pub limit: u64,
}

#[async_trait]
pub trait Quotas: Send + Sync {
    /// Reserves each ask in order, each all or nothing, in one atomic step. A missing counter
    /// is first created from `rebuilt` (the count the caller read from the cold store) when
    /// that holds it; otherwise its asks answer `Missing`.
    async fn reserve_all(
        &self,
        asks: &[Ask<'_>],
        rebuilt: &HashMap<String, u64>,
    ) -> Result<Vec<Reservation>, HotError>;

    /// Gives back amounts reserved earlier (never below zero). A missing counter stays missing:
    /// its rebuild reads the cold store, which never held the given-back events.
    async fn release_all(&self, amounts: &[(&str, u64)]) -> Result<(), HotError>;

    /// The counter's value, `None` when it is missing.
    async fn current(&self, counter: &str) -> Result<Option<u64>, HotError>;

    /// `reserve_all` for one ask.
    async fn reserve(
        &self,
        counter: &str,
        amount: u64,
        limit: u64,
        rebuilt: Option<u64>,
    ) -> Result<Reservation, HotError> {
        let rebuilt: HashMap<String, u64> = rebuilt
            .map(|count| (counter.to_string(), count))
            .into_iter()
            .collect();
        let ask = Ask {
            counter,
            amount,
            limit,
        };
        let mut answers = self.reserve_all(&[ask], &rebuilt).await?;
        answers
            .pop()
            .ok_or_else(|| HotError::Reply("no answer to a reservation".into()))
    }

    /// `release_all` for one counter.
    async fn release(&self, counter: &str, amount: u64) -> Result<(), HotError> {
        self.release_all(&[(counter, amount)]).await
    }
}

/// Counters in this process's memory: lost on restart, then rebuilt from the cold store.
#[derive(Default)]
pub struct MemoryQuotas {
    counters: Mutex<HashMap<String, u64>>,
}

#[async_trait]
impl Quotas for MemoryQuotas {
    async fn reserve_all(
        &self,
        asks: &[Ask<'_>],
        rebuilt: &HashMap<String, u64>,
    ) -> Result<Vec<Reservation>, HotError> {
        let mut counters = self.counters.lock();
        let mut answers = Vec::with_capacity(asks.len());
        for ask in asks {
            let current = match (counters.get(ask.counter), rebuilt.get(ask.counter)) {
                (Some(current), _) => *current,
                (None, Some(rebuilt)) => {
                    *counters.entry(ask.counter.to_string()).or_insert(*rebuilt)
                }
                (None, None) => {
                    answers.push(Reservation::Missing);
                    continue;
                }
            };
            if current.saturating_add(ask.amount) > ask.limit {
                answers.push(Reservation::Refused { current });
                continue;
            }
            let used = current + ask.amount;
            counters.insert(ask.counter.to_string(), used);
            answers.push(Reservation::Reserved { used });
        }
        Ok(answers)
    }

    async fn release_all(&self, amounts: &[(&str, u64)]) -> Result<(), HotError> {
        let mut counters = self.counters.lock();
        for (counter, amount) in amounts {
            if let Some(current) = counters.get_mut(*counter) {
                *current = current.saturating_sub(*amount);
            }
        }
        Ok(())
    }

    async fn current(&self, counter: &str) -> Result<Option<u64>, HotError> {
        Ok(self.counters.lock().get(counter).copied())
    }
}

/// Create-if-missing, check and count for a group of asks in one atomic step.
/// KEYS: the counters. ARGV[1] ttl seconds; ARGV[1 + k] the rebuilt count of KEYS[k] ('' =
/// none); then three per ask: index into KEYS, amount, limit.
/// Returns two numbers per ask: {1, used} reserved, {0, current} refused, {-1, 0} missing.
const RESERVE_SCRIPT: &str = r#"
local counts, added = {}, {}
for k = 1, #KEYS do
  local current = redis.call('GET', KEYS[k])
  if current then
    counts[k] = tonumber(current)
  elseif ARGV[1 + k] ~= '' then
    counts[k] = tonumber(ARGV[1 + k])
    redis.call('SET', KEYS[k], counts[k], 'EX', tonumber(ARGV[1]))
  end
  added[k] = 0
end
local answers = {}
for i = 2 + #KEYS, #ARGV, 3 do
  local k, amount, limit = tonumber(ARGV[i]), tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2])
  local current = counts[k]
  if current == nil then
    answers[#answers + 1] = -1; answers[#answers + 1] = 0
  elseif current + amount > limit then
    answers[#answers + 1] = 0; answers[#answers + 1] = current
  else
    counts[k] = current + amount
    added[k] = added[k] + amount
    answers[#answers + 1] = 1; answers[#answers + 1] = counts[k]
  end
end
for k = 1, #KEYS do
  if added[k] > 0 then redis.call('INCRBY', KEYS[k], added[k]) end
end
return answers
"#;

/// Subtract without going below zero, and without creating a missing counter.
/// KEYS: the counters; ARGV[k]: the amount to give back to KEYS[k].
const RELEASE_SCRIPT: &str = r#"
for k = 1, #KEYS do
  local current = redis.call('GET', KEYS[k])
  if current then
    local take = math.min(tonumber(current), tonumber(ARGV[k]))
    if take > 0 then redis.call('DECRBY', KEYS[k], take) end
  end
end
return 0
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
    async fn reserve_all(
        &self,
        asks: &[Ask<'_>],
        rebuilt: &HashMap<String, u64>,
    ) -> Result<Vec<Reservation>, HotError> {
        if asks.is_empty() {
            return Ok(Vec::new());
        }
        let mut counters: Vec<&str> = Vec::new();
        let mut args = vec![COUNTER_TTL_SECS.to_string()];
        let mut per_ask = Vec::with_capacity(asks.len() * 3);
        for ask in asks {
            let index = match counters.iter().position(|c| *c == ask.counter) {
                Some(index) => index,
                None => {
                    counters.push(ask.counter);
                    args.push(
                        rebuilt
                            .get(ask.counter)
                            .map(u64::to_string)
                            .unwrap_or_default(),
                    );
                    counters.len() - 1
                }
            };
            per_ask.extend([
                (index + 1).to_string(),
                ask.amount.to_string(),
                ask.limit.to_string(),
            ]);
        }
        args.extend(per_ask);
        let keys: Vec<String> = counters.iter().map(|c| self.key(c)).collect();
        let reply: Vec<i64> = self
            .reserve_script
            .evalsha_with_reload(self.handle.client()?, keys, args)
            .await?;
        if reply.len() != asks.len() * 2 {
            return Err(HotError::Reply(format!(
                "quota reserve answered {} numbers for {} asks",
                reply.len(),
                asks.len()
            )));
        }
        reply
            .chunks(2)
            .map(|answer| match answer {
                [1, used] => Ok(Reservation::Reserved {
                    used: (*used).max(0) as u64,
                }),
                [0, current] => Ok(Reservation::Refused {
                    current: (*current).max(0) as u64,
                }),
                [-1, _] => Ok(Reservation::Missing),
                other => Err(HotError::Reply(format!("quota reserve answered {other:?}"))),
            })
            .collect()
    }

    async fn release_all(&self, amounts: &[(&str, u64)]) -> Result<(), HotError> {
        let mut totals: Vec<(&str, u64)> = Vec::new();
        for (counter, amount) in amounts.iter().filter(|(_, amount)| *amount > 0) {
            match totals.iter_mut().find(|(c, _)| c == counter) {
                Some((_, total)) => *total += amount,
                None => totals.push((counter, *amount)),
            }
        }
        if totals.is_empty() {
            return Ok(());
        }
        let keys: Vec<String> = totals.iter().map(|(c, _)| self.key(c)).collect();
        let args: Vec<String> = totals.iter().map(|(_, a)| a.to_string()).collect();
        let _: i64 = self
            .release_script
            .evalsha_with_reload(self.handle.client()?, keys, args)
            .await?;
        Ok(())
    }

    async fn current(&self, counter: &str) -> Result<Option<u64>, HotError> {
        use fred::prelude::KeysInterface;
        let value: Option<i64> = self.handle.client()?.get(self.key(counter)).await?;
        Ok(value.map(|v| v.max(0) as u64))
    }
}
