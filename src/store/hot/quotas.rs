//! Monthly event quota counters: all-or-nothing reservations that are exact under concurrency,
//! in-process for one node and in Redis (one Lua script per step) for many. A group of requests
//! (the event writer's group commit) reserves in one step, each request all or nothing.
//!
//! A counter that does not exist (first use, a restarted process, a flushed Redis) is reported as
//! `Missing` instead of silently starting from zero: the caller rebuilds the count from the cold
//! store and reserves again with it, and the first rebuild to arrive wins.
//!
//! In Redis, each node also records what it holds in flight (reserved, not yet stored or given
//! back) per counter, under a lease it renews with every reservation. A node killed between a
//! reservation and its commit leaves its hold behind with a lapsed lease; `reclaim_abandoned`
//! (the worker) then drops that counter at a moment no live node holds anything in it, so the
//! next reservation rebuilds it from the cold store, which holds exactly what was stored. It
//! also forgets lapsed leases, so nodes that stopped leave nothing behind.
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

    /// Marks amounts reserved earlier as stored (committed to the cold store): they stay
    /// counted, and this node no longer holds them in flight.
    async fn settle_all(&self, amounts: &[(&str, u64)]) -> Result<(), HotError>;

    /// Drops every counter in which a node whose lease lapsed (killed mid-write) still holds
    /// reservations, once no live node holds any in it, so that it is rebuilt from the cold
    /// store, and forgets the lapsed leases. Answers how many counters were dropped.
    async fn reclaim_abandoned(&self) -> Result<u64, HotError>;

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

    // A process that stops takes these counters with it: they are rebuilt from the cold store,
    // so nothing is ever held for a stopped node.
    async fn settle_all(&self, _: &[(&str, u64)]) -> Result<(), HotError> {
        Ok(())
    }

    async fn reclaim_abandoned(&self) -> Result<u64, HotError> {
        Ok(0)
    }
}

/// Create-if-missing, check and count for a group of asks in one atomic step, holding what it
/// reserved for this node (under its renewed lease) until it is settled or given back.
/// KEYS: the n counters, then their n hold hashes, the leases hash, the hold index.
/// ARGV[1] ttl seconds, ARGV[2] node, ARGV[3] lease ms; ARGV[3 + k] the rebuilt count of
/// KEYS[k] ('' = none); ARGV[3 + n + k] its name (for the index); then three per ask: index
/// into KEYS, amount, limit.
/// Returns two numbers per ask: {1, used} reserved, {0, current} refused, {-1, 0} missing.
const RESERVE_SCRIPT: &str = r#"
local n = (#KEYS - 2) / 2
local counts, added = {}, {}
for k = 1, n do
  local current = redis.call('GET', KEYS[k])
  if current then
    counts[k] = tonumber(current)
  elseif ARGV[3 + k] ~= '' then
    counts[k] = tonumber(ARGV[3 + k])
    redis.call('SET', KEYS[k], counts[k], 'EX', tonumber(ARGV[1]))
  end
  added[k] = 0
end
local answers = {}
for i = 4 + 2 * n, #ARGV, 3 do
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
local held = false
for k = 1, n do
  if added[k] > 0 then
    redis.call('INCRBY', KEYS[k], added[k])
    redis.call('HINCRBY', KEYS[n + k], ARGV[2], added[k])
    redis.call('EXPIRE', KEYS[n + k], tonumber(ARGV[1]))
    redis.call('SADD', KEYS[2 * n + 2], ARGV[3 + n + k])
    held = true
  end
end
if held then
  local now = redis.call('TIME')
  local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
  redis.call('HSET', KEYS[2 * n + 1], ARGV[2], now_ms + tonumber(ARGV[3]))
end
return answers
"#;

/// Takes `amount` off the node's hold in a hold hash (the field goes at zero).
const UNHOLD: &str = r#"
local function unhold(key, node, amount)
  local held = tonumber(redis.call('HGET', key, node) or '0')
  if held > amount then
    redis.call('HINCRBY', key, node, -amount)
  elseif held > 0 then
    redis.call('HDEL', key, node)
  end
end
"#;

/// Subtract without going below zero, and without creating a missing counter; the node no
/// longer holds the amounts.
/// KEYS: the n counters, then their n hold hashes; ARGV[1] node; ARGV[1 + k]: the amount to
/// give back to KEYS[k].
const RELEASE_SCRIPT: &str = r#"
local n = #KEYS / 2
for k = 1, n do
  local amount = tonumber(ARGV[1 + k])
  local current = redis.call('GET', KEYS[k])
  if current then
    local take = math.min(tonumber(current), amount)
    if take > 0 then redis.call('DECRBY', KEYS[k], take) end
  end
  unhold(KEYS[n + k], ARGV[1], amount)
end
return 0
"#;

/// The amounts are stored: the node no longer holds them (the counters keep them).
/// KEYS: hold hashes; ARGV[1] node; ARGV[1 + k] the amount stored under KEYS[k].
const SETTLE_SCRIPT: &str = r#"
for k = 1, #KEYS do
  unhold(KEYS[k], ARGV[1], tonumber(ARGV[1 + k]))
end
return 0
"#;

/// Drops a counter that a node with a lapsed lease still holds reservations in, once no live
/// node holds any in it. KEYS: counter, its hold hash, the leases hash, the hold index; ARGV[1]
/// the counter's name. Returns the amount reclaimed, 0 when nothing was abandoned, -1 when
/// live nodes hold reservations (try again later).
const RECLAIM_SCRIPT: &str = r#"
local held = redis.call('HGETALL', KEYS[2])
if #held == 0 then
  redis.call('SREM', KEYS[4], ARGV[1])
  return 0
end
local now = redis.call('TIME')
local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local abandoned, live = 0, 0
for i = 1, #held, 2 do
  local lease = tonumber(redis.call('HGET', KEYS[3], held[i]) or '0')
  if lease > now_ms then live = live + tonumber(held[i + 1]) else abandoned = abandoned + tonumber(held[i + 1]) end
end
if abandoned == 0 then return 0 end
if live > 0 then return -1 end
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('SREM', KEYS[4], ARGV[1])
return abandoned
"#;

/// Forgets the leases that lapsed: a lapsed lease and a missing one read the same (the reclaim
/// takes a missing one as lapsed, and a node's next reservation sets its lease again), so each
/// node that stopped leaves nothing behind in the leases hash. KEYS[1] the leases hash.
/// Returns how many went.
const PRUNE_LEASES_SCRIPT: &str = r#"
local now = redis.call('TIME')
local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local leases = redis.call('HGETALL', KEYS[1])
local pruned = 0
for i = 1, #leases, 2 do
  if tonumber(leases[i + 1]) <= now_ms then
    redis.call('HDEL', KEYS[1], leases[i])
    pruned = pruned + 1
  end
end
return pruned
"#;

/// How long a node's holds stay its own after its last reservation: longer than any write of
/// a group takes, so only a node that stopped (or a write that hung for this long) loses them.
pub const LEASE: std::time::Duration = std::time::Duration::from_secs(30);

/// Counters in Redis, shared by every API node.
pub struct RedisQuotas {
    handle: RedisHandle,
    /// This process's name in the hold hashes and the leases.
    node: String,
    lease: std::time::Duration,
    reserve_script: Script,
    release_script: Script,
    settle_script: Script,
    reclaim_script: Script,
    prune_leases_script: Script,
}

impl RedisQuotas {
    pub fn new(handle: RedisHandle) -> Self {
        Self::with_lease(handle, LEASE)
    }

    /// With another lease than `LEASE` (tests).
    pub fn with_lease(handle: RedisHandle, lease: std::time::Duration) -> Self {
        Self {
            handle,
            node: uuid::Uuid::new_v4().simple().to_string(),
            lease,
            reserve_script: Script::from_lua(RESERVE_SCRIPT),
            release_script: Script::from_lua(format!("{UNHOLD}{RELEASE_SCRIPT}")),
            settle_script: Script::from_lua(format!("{UNHOLD}{SETTLE_SCRIPT}")),
            reclaim_script: Script::from_lua(RECLAIM_SCRIPT),
            prune_leases_script: Script::from_lua(PRUNE_LEASES_SCRIPT),
        }
    }

    fn key(&self, counter: &str) -> String {
        self.handle.key(&format!("quota:{counter}"))
    }

    /// What each node holds in flight in the counter: node -> amount.
    fn hold_key(&self, counter: &str) -> String {
        self.handle.key(&format!("quota-held:{counter}"))
    }

    /// node -> the time (ms) its lease lapses.
    fn leases_key(&self) -> String {
        self.handle.key("quota-leases")
    }

    /// The names of the counters that may have holds.
    fn index_key(&self) -> String {
        self.handle.key("quota-held-index")
    }
}

/// The amounts per counter, summed, zeros left out.
fn totals<'a>(amounts: &[(&'a str, u64)]) -> Vec<(&'a str, u64)> {
    let mut totals: Vec<(&str, u64)> = Vec::new();
    for (counter, amount) in amounts.iter().filter(|(_, amount)| *amount > 0) {
        match totals.iter_mut().find(|(c, _)| c == counter) {
            Some((_, total)) => *total += amount,
            None => totals.push((counter, *amount)),
        }
    }
    totals
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
        let mut args = vec![
            COUNTER_TTL_SECS.to_string(),
            self.node.clone(),
            self.lease.as_millis().to_string(),
        ];
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
        args.extend(counters.iter().map(|c| c.to_string()));
        args.extend(per_ask);
        let mut keys: Vec<String> = counters.iter().map(|c| self.key(c)).collect();
        keys.extend(counters.iter().map(|c| self.hold_key(c)));
        keys.push(self.leases_key());
        keys.push(self.index_key());
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
        let totals = totals(amounts);
        if totals.is_empty() {
            return Ok(());
        }
        let mut keys: Vec<String> = totals.iter().map(|(c, _)| self.key(c)).collect();
        keys.extend(totals.iter().map(|(c, _)| self.hold_key(c)));
        let mut args = vec![self.node.clone()];
        args.extend(totals.iter().map(|(_, a)| a.to_string()));
        let _: i64 = self
            .release_script
            .evalsha_with_reload(self.handle.client()?, keys, args)
            .await?;
        Ok(())
    }

    async fn settle_all(&self, amounts: &[(&str, u64)]) -> Result<(), HotError> {
        let totals = totals(amounts);
        if totals.is_empty() {
            return Ok(());
        }
        let keys: Vec<String> = totals.iter().map(|(c, _)| self.hold_key(c)).collect();
        let mut args = vec![self.node.clone()];
        args.extend(totals.iter().map(|(_, a)| a.to_string()));
        let _: i64 = self
            .settle_script
            .evalsha_with_reload(self.handle.client()?, keys, args)
            .await?;
        Ok(())
    }

    async fn reclaim_abandoned(&self) -> Result<u64, HotError> {
        use fred::prelude::SetsInterface;
        let counters: Vec<String> = self.handle.client()?.smembers(self.index_key()).await?;
        let mut dropped = 0;
        for counter in counters {
            let keys = vec![
                self.key(&counter),
                self.hold_key(&counter),
                self.leases_key(),
                self.index_key(),
            ];
            let reclaimed: i64 = self
                .reclaim_script
                .evalsha_with_reload(self.handle.client()?, keys, vec![counter.clone()])
                .await?;
            if reclaimed > 0 {
                tracing::warn!(counter, reclaimed, "a stopped node's quota reservations given back: the counter is rebuilt from the cold store");
                dropped += 1;
            }
        }
        let _pruned: i64 = self
            .prune_leases_script
            .evalsha_with_reload(
                self.handle.client()?,
                vec![self.leases_key()],
                Vec::<String>::new(),
            )
            .await?;
        Ok(dropped)
    }

    async fn current(&self, counter: &str) -> Result<Option<u64>, HotError> {
        use fred::prelude::KeysInterface;
        let value: Option<i64> = self.handle.client()?.get(self.key(counter)).await?;
        Ok(value.map(|v| v.max(0) as u64))
    }
}
