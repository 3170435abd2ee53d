//! Redis presence, shared by every node. Per game: a hash per player
//! (`pr:{game}:p:{player}`), a sorted set of players by last update in ms (`pr:{game}:all`)
//! and one per status (`pr:{game}:s:{status}`). One global sorted set (`pr:due`) holds entries
//! not yet announced as offline, scored by when they go offline. Every write is one Lua script
//! that also publishes the feed message on `pr:feed:{game}`, so an update and its announcement
//! are one atomic step.
use super::{
    feed::RemoteFeed, from_millis, millis, FeedHub, FeedSubscription, OfflineMessage, Presence,
    PresenceEntry, PresencePage, PresenceStatus, WentOffline, OFFLINE_AFTER, RETAIN,
};
use crate::store::hot::{redis::RedisHandle, HotError};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use fred::{prelude::*, types::scripts::Script};
use std::sync::Arc;
use uuid::Uuid;

/// KEYS: hash, all, playing, waiting, idle, due.
/// ARGV: player, status, activity, data, session, updated_ms, ttl_secs, status key index
/// (3..5), due member, due score, channel, message.
/// The player leaves the other status lists only when the status changed (or the entry is
/// new). Silent players leave the lists when the offline check claims them (CLAIM_SCRIPT),
/// and reads trim what is older than their cutoff (LIST_SCRIPT), so a write never sweeps.
const SET_SCRIPT: &str = r#"
local old = redis.call('HGET', KEYS[1], 'status')
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'activity', ARGV[3], 'data', ARGV[4],
  'session_id', ARGV[5], 'updated', ARGV[6])
redis.call('EXPIRE', KEYS[1], ARGV[7])
local target = tonumber(ARGV[8])
redis.call('ZADD', KEYS[2], ARGV[6], ARGV[1])
redis.call('ZADD', KEYS[target], ARGV[6], ARGV[1])
if old ~= ARGV[2] then
  for i = 3, 5 do
    if i ~= target then redis.call('ZREM', KEYS[i], ARGV[1]) end
  end
end
redis.call('ZADD', KEYS[6], ARGV[10], ARGV[9])
redis.call('PUBLISH', ARGV[11], ARGV[12])
return 1
"#;

/// KEYS: hash, all, playing, waiting, idle, due. ARGV: player, due member, channel, message.
const CLEAR_SCRIPT: &str = r#"
local existed = redis.call('DEL', KEYS[1])
for i = 2, 5 do redis.call('ZREM', KEYS[i], ARGV[1]) end
redis.call('ZREM', KEYS[6], ARGV[2])
if existed == 1 then redis.call('PUBLISH', ARGV[3], ARGV[4]) end
return existed
"#;

/// KEYS: index. ARGV: active-after ms (exclusive), offset, limit, hash key prefix.
/// Returns the active count, then six fields per entry. Drops the players no longer active
/// from the index first.
const LIST_SCRIPT: &str = r#"
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local after = '(' .. ARGV[1]
local out = { redis.call('ZCOUNT', KEYS[1], after, '+inf') }
local players = redis.call('ZREVRANGEBYSCORE', KEYS[1], '+inf', after, 'LIMIT', ARGV[2], ARGV[3])
for _, player in ipairs(players) do
  local f = redis.call('HMGET', ARGV[4] .. player, 'status', 'activity', 'data', 'session_id', 'updated')
  if f[5] then
    out[#out + 1] = player
    for i = 1, 5 do out[#out + 1] = f[i] end
  end
end
return out
"#;

/// KEYS: due. ARGV: now ms, max, key prefix. Claims (removes and returns) due members
/// (`game|player`) with their scores, and takes each player off its game's active lists.
const CLAIM_SCRIPT: &str = r#"
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0, ARGV[2])
for i = 1, #due, 2 do
  redis.call('ZREM', KEYS[1], due[i])
  local bar = string.find(due[i], '|', 1, true)
  if bar then
    local game, player = string.sub(due[i], 1, bar - 1), string.sub(due[i], bar + 1)
    local base = ARGV[3] .. 'pr:' .. game
    for _, index in ipairs({ ':all', ':s:playing', ':s:waiting', ':s:idle' }) do
      redis.call('ZREM', base .. index, player)
    end
  end
end
return due
"#;

pub struct RedisPresence {
    handle: RedisHandle,
    hub: Arc<FeedHub>,
    set_script: Script,
    clear_script: Script,
    list_script: Script,
    claim_script: Script,
}

impl RedisPresence {
    /// Connects the pub/sub subscriber (its own connection, resubscribed after reconnects).
    pub async fn connect(handle: RedisHandle, url: &str) -> Result<Self, HotError> {
        let subscriber = RedisHandle::subscriber(url).await?;
        let hub = FeedHub::remote(RemoteFeed {
            subscriber,
            channel_prefix: handle.key("pr:feed:"),
        });
        Ok(Self {
            handle,
            hub,
            set_script: Script::from_lua(SET_SCRIPT),
            clear_script: Script::from_lua(CLEAR_SCRIPT),
            list_script: Script::from_lua(LIST_SCRIPT),
            claim_script: Script::from_lua(CLAIM_SCRIPT),
        })
    }

    fn entry_key(&self, game_id: Uuid, player_id: &str) -> String {
        self.handle.key(&format!("pr:{game_id}:p:{player_id}"))
    }

    fn index_key(&self, game_id: Uuid, status: Option<PresenceStatus>) -> String {
        match status {
            Some(status) => self
                .handle
                .key(&format!("pr:{game_id}:s:{}", status.as_str())),
            None => self.handle.key(&format!("pr:{game_id}:all")),
        }
    }

    fn channel(&self, game_id: Uuid) -> String {
        self.handle.key(&format!("pr:feed:{game_id}"))
    }

    /// The keys every write script takes, in its KEYS order.
    fn write_keys(&self, game_id: Uuid, player_id: &str) -> Vec<String> {
        let mut keys = vec![
            self.entry_key(game_id, player_id),
            self.index_key(game_id, None),
        ];
        keys.extend(PresenceStatus::SETTABLE.map(|status| self.index_key(game_id, Some(status))));
        keys.push(self.handle.key("pr:due"));
        keys
    }
}

fn due_member(game_id: Uuid, player_id: &str) -> String {
    format!("{game_id}|{player_id}")
}

fn text(value: &Value) -> Option<String> {
    value.as_str().map(|s| s.into_owned())
}

/// Builds an entry from the hash fields status, activity, data, session_id, updated.
fn entry_from(player_id: String, fields: &[Value]) -> Option<PresenceEntry> {
    let updated = text(fields.get(4)?)?.parse::<i64>().ok()?;
    Some(PresenceEntry {
        player_id,
        status: PresenceStatus::parse(&text(fields.first()?)?).unwrap_or(PresenceStatus::Playing),
        activity: text(fields.get(1)?).unwrap_or_default(),
        data: text(fields.get(2)?)
            .and_then(|raw| serde_json::from_str(&raw).ok())
            .unwrap_or_else(|| serde_json::json!({})),
        session_id: text(fields.get(3)?).filter(|s| !s.is_empty()),
        updated_at: from_millis(updated),
    })
}

#[async_trait]
impl Presence for RedisPresence {
    async fn set(
        &self,
        game_id: Uuid,
        entry: &PresenceEntry,
        message: &str,
    ) -> Result<(), HotError> {
        let updated_ms = millis(entry.updated_at);
        let args: Vec<String> = vec![
            entry.player_id.clone(),
            entry.status.as_str().to_string(),
            entry.activity.clone(),
            entry.data.to_string(),
            entry.session_id.clone().unwrap_or_default(),
            updated_ms.to_string(),
            RETAIN.num_seconds().to_string(),
            (3 + entry.status.index()).to_string(),
            due_member(game_id, &entry.player_id),
            millis(entry.updated_at + OFFLINE_AFTER).to_string(),
            self.channel(game_id),
            message.to_string(),
        ];
        let _: i64 = self
            .set_script
            .evalsha_with_reload(
                self.handle.client()?,
                self.write_keys(game_id, &entry.player_id),
                args,
            )
            .await?;
        Ok(())
    }

    async fn clear(&self, game_id: Uuid, player_id: &str, message: &str) -> Result<bool, HotError> {
        let args = vec![
            player_id.to_string(),
            due_member(game_id, player_id),
            self.channel(game_id),
            message.to_string(),
        ];
        let existed: i64 = self
            .clear_script
            .evalsha_with_reload(
                self.handle.client()?,
                self.write_keys(game_id, player_id),
                args,
            )
            .await?;
        Ok(existed == 1)
    }

    async fn get(
        &self,
        game_id: Uuid,
        player_id: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<PresenceEntry>, HotError> {
        let fields: Vec<Value> = self
            .handle
            .client()?
            .hmget(
                self.entry_key(game_id, player_id),
                vec!["status", "activity", "data", "session_id", "updated"],
            )
            .await?;
        Ok(entry_from(player_id.to_string(), &fields).filter(|entry| entry.is_retained_at(now)))
    }

    async fn active(
        &self,
        game_id: Uuid,
        status: Option<PresenceStatus>,
        now: DateTime<Utc>,
        offset: u64,
        limit: u64,
    ) -> Result<PresencePage, HotError> {
        let args = vec![
            millis(now - OFFLINE_AFTER).to_string(),
            offset.to_string(),
            limit.to_string(),
            self.handle.key(&format!("pr:{game_id}:p:")),
        ];
        let reply: Value = self
            .list_script
            .evalsha_with_reload(
                self.handle.client()?,
                vec![self.index_key(game_id, status)],
                args,
            )
            .await?;
        let mut values = reply.into_array().into_iter();
        let active_count = values
            .next()
            .and_then(|count| count.as_i64())
            .ok_or_else(|| HotError::Reply("presence list without a count".into()))?;
        let rest: Vec<Value> = values.collect();
        let entries = rest
            .chunks(6)
            .filter_map(|chunk| entry_from(text(&chunk[0])?, chunk.get(1..)?))
            .collect();
        Ok(PresencePage {
            active_count: active_count.max(0) as u64,
            entries,
        })
    }

    async fn announce_offline(
        &self,
        now: DateTime<Utc>,
        max: usize,
        message: OfflineMessage,
    ) -> Result<Vec<WentOffline>, HotError> {
        let reply: Value = self
            .claim_script
            .evalsha_with_reload(
                self.handle.client()?,
                vec![self.handle.key("pr:due")],
                vec![
                    millis(now).to_string(),
                    max.to_string(),
                    self.handle.prefix.to_string(),
                ],
            )
            .await?;
        let values = reply.into_array();
        let mut announced = Vec::with_capacity(values.len() / 2);
        for pair in values.chunks(2) {
            let (Some(member), Some(score)) =
                (pair.first().and_then(text), pair.get(1).and_then(text))
            else {
                continue;
            };
            let Some((game, player_id)) = member.split_once('|') else {
                continue;
            };
            let (Ok(game_id), Ok(due_ms)) = (Uuid::parse_str(game), score.parse::<f64>()) else {
                continue;
            };
            let last_updated = from_millis(due_ms as i64) - OFFLINE_AFTER;
            let _: i64 = self
                .handle
                .client()?
                .publish(self.channel(game_id), message(player_id, last_updated))
                .await?;
            announced.push(WentOffline {
                game_id,
                player_id: player_id.to_string(),
                last_updated,
            });
        }
        Ok(announced)
    }

    async fn subscribe(&self, game_id: Uuid) -> Result<FeedSubscription, HotError> {
        self.hub.subscribe(game_id).await
    }

    async fn revoke(&self, game_id: Uuid, user_id: Option<Uuid>) -> Result<(), HotError> {
        let _: i64 = self
            .handle
            .client()?
            .publish(self.channel(game_id), super::revoked_message(user_id))
            .await?;
        Ok(())
    }
}
