//! In-process leaderboards: a `BTreeSet` in rank order per board plus a map by player. Ranks
//! are counted by walking the set (O(rank)), which is fine for the single-node default.
use super::{
    score_from_sort, sort_score, HotAround, HotBoard, HotEntry, HotPage, Leaderboards, RankedEntry,
    Submitted,
};
use crate::store::hot::HotError;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use parking_lot::Mutex;
use std::{
    cmp::Ordering,
    collections::{BTreeSet, HashMap},
};

/// Position on a board: sort score, then who reached it first, then player id.
#[derive(Debug, Clone)]
struct RankKey {
    sort: f64,
    reached_micros: i64,
    player_id: String,
}

impl PartialEq for RankKey {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for RankKey {}
impl PartialOrd for RankKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for RankKey {
    fn cmp(&self, other: &Self) -> Ordering {
        self.sort
            .total_cmp(&other.sort)
            .then(self.reached_micros.cmp(&other.reached_micros))
            .then_with(|| self.player_id.cmp(&other.player_id))
    }
}

/// Versions handed out to boards: unique for the life of the process, so a board dropped and
/// rebuilt never repeats one.
static VERSIONS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

fn next_version() -> u64 {
    VERSIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

#[derive(Default)]
struct Board {
    loaded: bool,
    version: u64,
    expires_at: Option<DateTime<Utc>>,
    order: BTreeSet<RankKey>,
    /// Player -> rank key, payload, revision.
    players: HashMap<String, (RankKey, String, i64)>,
}

impl Board {
    fn merge(&mut self, entry: &HotEntry, board: &HotBoard) -> bool {
        let key = RankKey {
            sort: sort_score(entry.score, board.lower_is_better),
            reached_micros: entry.reached_micros,
            player_id: entry.player_id.clone(),
        };
        if let Some((stored, _, revision)) = self.players.get(&entry.player_id) {
            let stale = if board.by_revision {
                *revision >= entry.revision
            } else {
                *stored <= key
            };
            if stale {
                return false;
            }
            let stored = stored.clone();
            self.order.remove(&stored);
        }
        self.order.insert(key.clone());
        self.players.insert(
            entry.player_id.clone(),
            (key, entry.payload.clone(), entry.revision),
        );
        self.version = next_version();
        true
    }

    fn ranked(&self, rank: u64, key: &RankKey, lower_is_better: bool) -> RankedEntry {
        let (payload, revision) = self
            .players
            .get(&key.player_id)
            .map(|(_, p, revision)| (p.clone(), *revision))
            .unwrap_or_default();
        RankedEntry {
            rank,
            entry: HotEntry {
                player_id: key.player_id.clone(),
                score: score_from_sort(key.sort, lower_is_better),
                reached_micros: key.reached_micros,
                payload,
                revision,
            },
        }
    }

    fn rank_of(&self, key: &RankKey) -> u64 {
        self.order.range(..key).count() as u64 + 1
    }

    fn slice(&self, offset: u64, limit: u64, lower_is_better: bool) -> Vec<RankedEntry> {
        self.order
            .iter()
            .enumerate()
            .skip(offset as usize)
            .take(limit as usize)
            .map(|(index, key)| self.ranked(index as u64 + 1, key, lower_is_better))
            .collect()
    }
}

#[derive(Default)]
pub struct MemoryLeaderboards {
    boards: Mutex<HashMap<String, Board>>,
}

fn name(board: &HotBoard) -> String {
    format!("{}\u{0}{}", board.board_id, board.period)
}

impl MemoryLeaderboards {
    /// Runs `f` on the board when it is loaded and not expired.
    fn with_loaded<T>(
        &self,
        board: &HotBoard,
        now: DateTime<Utc>,
        f: impl FnOnce(&mut Board) -> T,
    ) -> Option<T> {
        let mut boards = self.boards.lock();
        let key = name(board);
        let live = match boards.get(&key) {
            Some(found) => found.loaded && found.expires_at.is_none_or(|at| at > now),
            None => return None,
        };
        if !live {
            if boards
                .get(&key)
                .is_some_and(|b| b.expires_at.is_some_and(|at| at <= now))
            {
                boards.remove(&key);
            }
            return None;
        }
        boards.get_mut(&key).map(f)
    }
}

#[async_trait]
impl Leaderboards for MemoryLeaderboards {
    async fn submit(
        &self,
        board: &HotBoard,
        entry: &HotEntry,
        now: DateTime<Utc>,
    ) -> Result<Option<Submitted>, HotError> {
        let lower = board.lower_is_better;
        Ok(self.with_loaded(board, now, |stored| {
            let changed = stored.merge(entry, board);
            if changed {
                stored.expires_at = board.expires_at;
            }
            let key = stored.players[&entry.player_id].0.clone();
            let rank = stored.rank_of(&key);
            Submitted {
                changed,
                standing: stored.ranked(rank, &key, lower),
            }
        }))
    }

    async fn load(
        &self,
        board: &HotBoard,
        entries: &[HotEntry],
        complete: bool,
        now: DateTime<Utc>,
    ) -> Result<(), HotError> {
        let mut boards = self.boards.lock();
        // Rebuilds are rare (once per board and period): a good moment to drop expired boards.
        boards.retain(|_, b| b.expires_at.is_none_or(|at| at > now));
        let stored = boards.entry(name(board)).or_default();
        if stored.expires_at.is_some_and(|at| at <= now) {
            *stored = Board::default();
        }
        for entry in entries {
            stored.merge(entry, board);
        }
        stored.expires_at = board.expires_at;
        stored.loaded |= complete;
        stored.version = next_version();
        Ok(())
    }

    async fn page(
        &self,
        board: &HotBoard,
        offset: u64,
        limit: u64,
        now: DateTime<Utc>,
    ) -> Result<Option<HotPage>, HotError> {
        Ok(self.with_loaded(board, now, |stored| HotPage {
            total: stored.order.len() as u64,
            entries: stored.slice(offset, limit, board.lower_is_better),
        }))
    }

    async fn around(
        &self,
        board: &HotBoard,
        player_id: &str,
        radius: u64,
        now: DateTime<Utc>,
    ) -> Result<Option<HotAround>, HotError> {
        Ok(self.with_loaded(board, now, |stored| {
            let total = stored.order.len() as u64;
            let Some((key, _, _)) = stored.players.get(player_id) else {
                return HotAround {
                    total,
                    player: None,
                    entries: Vec::new(),
                };
            };
            let rank = stored.rank_of(key);
            let player = stored.ranked(rank, key, board.lower_is_better);
            let first = rank.saturating_sub(radius).max(1);
            let entries = stored.slice(first - 1, rank + radius - first + 1, board.lower_is_better);
            HotAround {
                total,
                player: Some(player),
                entries,
            }
        }))
    }

    async fn remove(
        &self,
        board: &HotBoard,
        player_id: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, HotError> {
        Ok(self
            .with_loaded(board, now, |stored| {
                match stored.players.remove(player_id) {
                    Some((key, _, _)) => {
                        stored.version = next_version();
                        stored.order.remove(&key)
                    }
                    None => false,
                }
            })
            .unwrap_or(false))
    }

    async fn version(
        &self,
        board: &HotBoard,
        now: DateTime<Utc>,
    ) -> Result<Option<String>, HotError> {
        Ok(self.with_loaded(board, now, |stored| stored.version.to_string()))
    }

    async fn expire(
        &self,
        board: &HotBoard,
        after_secs: u64,
        now: DateTime<Utc>,
    ) -> Result<(), HotError> {
        let mut boards = self.boards.lock();
        if after_secs == 0 {
            boards.remove(&name(board));
        } else if let Some(stored) = boards.get_mut(&name(board)) {
            stored.expires_at = Some(now + chrono::Duration::seconds(after_secs as i64));
        }
        Ok(())
    }
}
