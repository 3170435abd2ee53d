//! Redis leaderboards. Per board and period three keys share one hash slot:
//! `lb:{board:period}:z`, a sorted set whose members are `<reached micros, 20 digits>:<player>`
//! scored by the sort score (so equal scores order by who reached them first, then player id),
//! `...:h`, a hash player -> `<member><payload>` (`<member><revision, 20 digits><payload>` on a
//! board kept by revision), and `...:m`, the "loaded" marker, whose value
//! is the board's version: Redis' clock in microseconds when loaded, incremented by every change.
//! Every operation is one Lua script, so it is atomic and sees the marker and the data together.
use super::{
    score_from_sort, sort_score, HotAround, HotBoard, HotEntry, HotPage, Leaderboards, RankedEntry,
    Submitted,
};
use crate::store::hot::{redis::RedisHandle, HotError};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use fred::{
    interfaces::KeysInterface,
    types::{scripts::Script, Value},
};

/// Width of the member prefix: 20 digits of reached-at micros and a colon.
const PREFIX_LEN: usize = 21;

/// Width of the revision kept after the member on boards kept by revision.
const REVISION_LEN: usize = 20;

/// Shared by SUBMIT and LOAD: keep the better of the stored and the offered entry, or, when
/// `rev` is given (20 digits, so strings compare as numbers), the one of the higher revision.
/// Returns 1 when the offered entry replaced (or created) the stored one.
const MERGE_FN: &str = r#"
local function merge(z, h, player, sort, member, rev, payload)
  local score = tonumber(sort)
  local old = redis.call('HGET', h, player)
  if old then
    local oldmember = string.sub(old, 1, #member)
    if rev ~= '' then
      if string.sub(old, #member + 1, #member + #rev) >= rev then return 0 end
      redis.call('ZREM', z, oldmember)
    else
      local oldscore = redis.call('ZSCORE', z, oldmember)
      if oldscore then
        oldscore = tonumber(oldscore)
        if oldscore < score or (oldscore == score and oldmember <= member) then
          return 0
        end
        redis.call('ZREM', z, oldmember)
      end
    end
  end
  redis.call('ZADD', z, sort, member)
  redis.call('HSET', h, player, member .. rev .. payload)
  return 1
end
local function keep_for(ttl)
  for i = 1, 3 do
    if ttl > 0 then redis.call('EXPIRE', KEYS[i], ttl) else redis.call('PERSIST', KEYS[i]) end
  end
end
"#;

const SUBMIT_BODY: &str = r#"
if redis.call('EXISTS', KEYS[3]) == 0 then return {-1} end
local player, member = ARGV[1], ARGV[3]
local changed = merge(KEYS[1], KEYS[2], player, ARGV[2], member, ARGV[6], ARGV[4])
if changed == 1 then
  redis.call('INCR', KEYS[3])
  keep_for(tonumber(ARGV[5]))
end
local stored = redis.call('HGET', KEYS[2], player)
local storedmember = string.sub(stored, 1, #member)
return {changed, redis.call('ZRANK', KEYS[1], storedmember), redis.call('ZSCORE', KEYS[1], storedmember), stored}
"#;

const LOAD_BODY: &str = r#"
for i = 3, #ARGV, 5 do
  merge(KEYS[1], KEYS[2], ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4])
end
if ARGV[2] == '1' or redis.call('EXISTS', KEYS[3]) == 1 then
  local now = redis.call('TIME')
  redis.call('SET', KEYS[3], now[1] .. string.format('%06d', tonumber(now[2])))
end
keep_for(tonumber(ARGV[1]))
return 1
"#;

/// Shared by PAGE and AROUND: `members` (ZRANGE ... WITHSCORES) as (member, score, stored)
/// triples appended to `out`, the stored values fetched with one HMGET.
const TRIPLES_FN: &str = r#"
local function triples(h, members, out)
  if #members == 0 then return out end
  local players = {}
  for i = 1, #members, 2 do players[#players + 1] = string.sub(members[i], 22) end
  local stored = redis.call('HMGET', h, unpack(players))
  for i = 1, #players do
    out[#out + 1] = members[2 * i - 1]
    out[#out + 1] = members[2 * i]
    out[#out + 1] = stored[i] or ''
  end
  return out
end
"#;

const PAGE_BODY: &str = r#"
if redis.call('EXISTS', KEYS[3]) == 0 then return {-1} end
local out = {redis.call('ZCARD', KEYS[1])}
local limit = tonumber(ARGV[2])
if limit <= 0 then return out end
local offset = tonumber(ARGV[1])
return triples(KEYS[2], redis.call('ZRANGE', KEYS[1], offset, offset + limit - 1, 'WITHSCORES'), out)
"#;

const AROUND_BODY: &str = r#"
if redis.call('EXISTS', KEYS[3]) == 0 then return {-1} end
local total = redis.call('ZCARD', KEYS[1])
local stored = redis.call('HGET', KEYS[2], ARGV[1])
if not stored then return {total, -1} end
local rank = redis.call('ZRANK', KEYS[1], string.sub(stored, 1, 21 + #ARGV[1]))
if not rank then return {total, -1} end
local radius = tonumber(ARGV[2])
local first = rank - radius
if first < 0 then first = 0 end
return triples(KEYS[2], redis.call('ZRANGE', KEYS[1], first, rank + radius, 'WITHSCORES'), {total, first})
"#;

const REMOVE: &str = r#"
if redis.call('EXISTS', KEYS[3]) == 0 then return 0 end
local stored = redis.call('HGET', KEYS[2], ARGV[1])
if not stored then return 0 end
redis.call('ZREM', KEYS[1], string.sub(stored, 1, 21 + #ARGV[1]))
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('INCR', KEYS[3])
return 1
"#;

const EXPIRE: &str = r#"
local ttl = tonumber(ARGV[1])
for i = 1, 3 do
  if ttl > 0 then redis.call('EXPIRE', KEYS[i], ttl) else redis.call('DEL', KEYS[i]) end
end
return 1
"#;

pub struct RedisLeaderboards {
    handle: RedisHandle,
    submit: Script,
    load: Script,
    page: Script,
    around: Script,
    remove: Script,
    expire: Script,
}

impl RedisLeaderboards {
    pub fn new(handle: RedisHandle) -> Self {
        Self {
            handle,
            submit: Script::from_lua(format!("{MERGE_FN}{SUBMIT_BODY}")),
            load: Script::from_lua(format!("{MERGE_FN}{LOAD_BODY}")),
            page: Script::from_lua(format!("{TRIPLES_FN}{PAGE_BODY}")),
            around: Script::from_lua(format!("{TRIPLES_FN}{AROUND_BODY}")),
            remove: Script::from_lua(REMOVE),
            expire: Script::from_lua(EXPIRE),
        }
    }

    fn keys(&self, board: &HotBoard) -> Vec<String> {
        let base = format!("lb:{{{}:{}}}", board.board_id, board.period);
        ["z", "h", "m"]
            .iter()
            .map(|suffix| self.handle.key(&format!("{base}:{suffix}")))
            .collect()
    }

    async fn run(
        &self,
        script: &Script,
        board: &HotBoard,
        args: Vec<String>,
    ) -> Result<Value, HotError> {
        Ok(script
            .evalsha_with_reload::<Value, _, _>(self.handle.client()?, self.keys(board), args)
            .await?)
    }
}

/// Seconds the keys should live from `now`; 0 = for good.
fn ttl_secs(board: &HotBoard, now: DateTime<Utc>) -> u64 {
    match board.expires_at {
        Some(at) => (at - now).num_seconds().max(1) as u64,
        None => 0,
    }
}

fn member(entry: &HotEntry) -> String {
    format!("{:020}:{}", entry.reached_micros.max(0), entry.player_id)
}

/// The revision as kept after the member: 20 digits on boards kept by revision, else nothing.
fn revision(board: &HotBoard, entry: &HotEntry) -> String {
    if board.by_revision {
        format!("{:020}", entry.revision.max(0))
    } else {
        String::new()
    }
}

fn reply(detail: &str) -> HotError {
    HotError::Reply(detail.to_string())
}

fn text(value: Value) -> Result<String, HotError> {
    value
        .into_string()
        .ok_or_else(|| reply("expected a string"))
}

/// An entry from a member, its sort score and the stored `<member>[<revision>]<payload>`.
fn decode(
    member: Value,
    sort: Value,
    stored: Value,
    board: &HotBoard,
) -> Result<HotEntry, HotError> {
    let member = text(member)?;
    let sort = sort.as_f64().ok_or_else(|| reply("expected a score"))?;
    let stored = text(stored)?;
    if member.len() < PREFIX_LEN {
        return Err(reply("malformed member"));
    }
    let reached_micros = member[..PREFIX_LEN - 1]
        .parse::<i64>()
        .map_err(|_| reply("malformed member"))?;
    let (revision, payload_at) = if board.by_revision {
        let end = member.len() + REVISION_LEN;
        let revision = stored
            .get(member.len()..end)
            .and_then(|digits| digits.parse::<i64>().ok())
            .ok_or_else(|| reply("malformed revision"))?;
        (revision, end)
    } else {
        (0, member.len())
    };
    Ok(HotEntry {
        player_id: member[PREFIX_LEN..].to_string(),
        score: score_from_sort(sort, board.lower_is_better),
        reached_micros,
        payload: stored.get(payload_at..).unwrap_or_default().to_string(),
        revision,
    })
}

/// `(member, score, stored)` triples from `values`, ranked from `first_rank`.
fn ranked_triples(
    values: Vec<Value>,
    first_rank: u64,
    board: &HotBoard,
) -> Result<Vec<RankedEntry>, HotError> {
    let mut entries = Vec::with_capacity(values.len() / 3);
    let mut values = values.into_iter();
    while let (Some(member), Some(sort), Some(stored)) =
        (values.next(), values.next(), values.next())
    {
        let rank = first_rank + entries.len() as u64;
        entries.push(RankedEntry {
            rank,
            entry: decode(member, sort, stored, board)?,
        });
    }
    Ok(entries)
}

fn not_loaded(values: &[Value]) -> bool {
    values.first().and_then(Value::as_i64) == Some(-1)
}

#[async_trait]
impl Leaderboards for RedisLeaderboards {
    async fn submit(
        &self,
        board: &HotBoard,
        entry: &HotEntry,
        now: DateTime<Utc>,
    ) -> Result<Option<Submitted>, HotError> {
        let args = vec![
            entry.player_id.clone(),
            format!("{:?}", sort_score(entry.score, board.lower_is_better)),
            member(entry),
            entry.payload.clone(),
            ttl_secs(board, now).to_string(),
            revision(board, entry),
        ];
        let values = self.run(&self.submit, board, args).await?.into_array();
        if not_loaded(&values) {
            return Ok(None);
        }
        let mut values = values.into_iter();
        let (Some(changed), Some(rank), Some(sort), Some(stored)) =
            (values.next(), values.next(), values.next(), values.next())
        else {
            return Err(reply("short submit reply"));
        };
        let stored_text = text(stored)?;
        let member_len = PREFIX_LEN + entry.player_id.len();
        let stored_member = stored_text
            .get(..member_len)
            .ok_or_else(|| reply("malformed entry"))?
            .to_string();
        let standing = decode(
            Value::from(stored_member),
            sort,
            Value::from(stored_text),
            board,
        )?;
        let rank = rank.as_i64().ok_or_else(|| reply("expected a rank"))?;
        Ok(Some(Submitted {
            changed: changed.as_i64() == Some(1),
            standing: RankedEntry {
                rank: rank as u64 + 1,
                entry: standing,
            },
        }))
    }

    async fn load(
        &self,
        board: &HotBoard,
        entries: &[HotEntry],
        complete: bool,
        now: DateTime<Utc>,
    ) -> Result<(), HotError> {
        let mut args = Vec::with_capacity(2 + entries.len() * 5);
        args.push(ttl_secs(board, now).to_string());
        args.push(if complete { "1" } else { "0" }.to_string());
        for entry in entries {
            args.push(entry.player_id.clone());
            args.push(format!(
                "{:?}",
                sort_score(entry.score, board.lower_is_better)
            ));
            args.push(member(entry));
            args.push(revision(board, entry));
            args.push(entry.payload.clone());
        }
        self.run(&self.load, board, args).await?;
        Ok(())
    }

    async fn page(
        &self,
        board: &HotBoard,
        offset: u64,
        limit: u64,
        _now: DateTime<Utc>,
    ) -> Result<Option<HotPage>, HotError> {
        let values = self
            .run(
                &self.page,
                board,
                vec![offset.to_string(), limit.to_string()],
            )
            .await?
            .into_array();
        if not_loaded(&values) {
            return Ok(None);
        }
        let mut values = values.into_iter();
        let total = values
            .next()
            .and_then(|v| v.as_i64())
            .ok_or_else(|| reply("expected a count"))? as u64;
        let entries = ranked_triples(values.collect(), offset + 1, board)?;
        Ok(Some(HotPage { total, entries }))
    }

    async fn around(
        &self,
        board: &HotBoard,
        player_id: &str,
        radius: u64,
        _now: DateTime<Utc>,
    ) -> Result<Option<HotAround>, HotError> {
        let args = vec![player_id.to_string(), radius.to_string()];
        let values = self.run(&self.around, board, args).await?.into_array();
        if not_loaded(&values) {
            return Ok(None);
        }
        let mut values = values.into_iter();
        let total = values
            .next()
            .and_then(|v| v.as_i64())
            .ok_or_else(|| reply("expected a count"))? as u64;
        let first = values
            .next()
            .and_then(|v| v.as_i64())
            .ok_or_else(|| reply("expected a rank"))?;
        if first < 0 {
            return Ok(Some(HotAround {
                total,
                player: None,
                entries: Vec::new(),
            }));
        }
        let entries = ranked_triples(values.collect(), first as u64 + 1, board)?;
        let player = entries
            .iter()
            .find(|e| e.entry.player_id == player_id)
            .cloned();
        Ok(Some(HotAround {
            total,
            player,
            entries,
        }))
    }

    async fn remove(
        &self,
        board: &HotBoard,
        player_id: &str,
        _now: DateTime<Utc>,
    ) -> Result<bool, HotError> {
        let removed = self
            .run(&self.remove, board, vec![player_id.to_string()])
            .await?;
        Ok(removed.as_i64() == Some(1))
    }

    async fn version(
        &self,
        board: &HotBoard,
        _now: DateTime<Utc>,
    ) -> Result<Option<String>, HotError> {
        let marker = self.keys(board).swap_remove(2);
        Ok(self.handle.client()?.get(marker).await?)
    }

    async fn expire(
        &self,
        board: &HotBoard,
        after_secs: u64,
        _now: DateTime<Utc>,
    ) -> Result<(), HotError> {
        self.run(&self.expire, board, vec![after_secs.to_string()])
            .await?;
        Ok(())
    }
}
