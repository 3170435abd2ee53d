//! In-process presence: the same behaviour as the Redis one for a single node.
use super::{
    from_millis, millis, FeedHub, FeedSubscription, OfflineMessage, Presence, PresenceEntry,
    PresencePage, PresenceStatus, WentOffline, OFFLINE_AFTER, RETAIN,
};
use crate::store::hot::HotError;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use parking_lot::Mutex;
use std::{
    collections::{BTreeSet, HashMap},
    ops::Bound,
    sync::Arc,
};
use uuid::Uuid;

/// One game's entries and their indexes by (last update in ms, player id).
#[derive(Default)]
struct GamePresence {
    entries: HashMap<String, PresenceEntry>,
    by_time: BTreeSet<(i64, String)>,
    by_status: [BTreeSet<(i64, String)>; 4],
}

impl GamePresence {
    fn remove(&mut self, player_id: &str) -> Option<PresenceEntry> {
        let old = self.entries.remove(player_id)?;
        let position = (millis(old.updated_at), old.player_id.clone());
        self.by_time.remove(&position);
        self.by_status[old.status.index()].remove(&position);
        Some(old)
    }

    /// Forgets entries last updated before `cutoff_ms`.
    fn trim(&mut self, cutoff_ms: i64) {
        while let Some((at, player)) = self.by_time.first().cloned() {
            if at >= cutoff_ms {
                break;
            }
            self.remove(&player);
        }
    }
}

pub struct MemoryPresence {
    games: Mutex<HashMap<Uuid, GamePresence>>,
    /// Entries not yet announced as offline, by the time they go offline.
    due: Mutex<BTreeSet<(i64, Uuid, String)>>,
    hub: Arc<FeedHub>,
}

impl Default for MemoryPresence {
    fn default() -> Self {
        Self {
            games: Mutex::default(),
            due: Mutex::default(),
            hub: FeedHub::local(),
        }
    }
}

fn due_at(entry: &PresenceEntry) -> i64 {
    millis(entry.updated_at + OFFLINE_AFTER)
}

#[async_trait]
impl Presence for MemoryPresence {
    async fn set(
        &self,
        game_id: Uuid,
        entry: &PresenceEntry,
        message: &str,
    ) -> Result<(), HotError> {
        let at = millis(entry.updated_at);
        let previous = {
            let mut games = self.games.lock();
            let game = games.entry(game_id).or_default();
            let previous = game.remove(&entry.player_id);
            game.trim(millis(entry.updated_at - RETAIN));
            game.by_time.insert((at, entry.player_id.clone()));
            game.by_status[entry.status.index()].insert((at, entry.player_id.clone()));
            game.entries.insert(entry.player_id.clone(), entry.clone());
            previous
        };
        {
            let mut due = self.due.lock();
            if let Some(previous) = previous {
                due.remove(&(due_at(&previous), game_id, previous.player_id));
            }
            due.insert((due_at(entry), game_id, entry.player_id.clone()));
        }
        self.hub.deliver(game_id, Arc::from(message));
        Ok(())
    }

    async fn clear(&self, game_id: Uuid, player_id: &str, message: &str) -> Result<bool, HotError> {
        let removed = {
            let mut games = self.games.lock();
            let removed = games
                .get_mut(&game_id)
                .and_then(|game| game.remove(player_id));
            if games
                .get(&game_id)
                .is_some_and(|game| game.entries.is_empty())
            {
                games.remove(&game_id);
            }
            removed
        };
        let Some(removed) = removed else {
            return Ok(false);
        };
        self.due
            .lock()
            .remove(&(due_at(&removed), game_id, removed.player_id));
        self.hub.deliver(game_id, Arc::from(message));
        Ok(true)
    }

    async fn get(
        &self,
        game_id: Uuid,
        player_id: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<PresenceEntry>, HotError> {
        let games = self.games.lock();
        let entry = games
            .get(&game_id)
            .and_then(|game| game.entries.get(player_id));
        Ok(entry.filter(|entry| entry.is_retained_at(now)).cloned())
    }

    async fn active(
        &self,
        game_id: Uuid,
        status: Option<PresenceStatus>,
        now: DateTime<Utc>,
        offset: u64,
        limit: u64,
    ) -> Result<PresencePage, HotError> {
        let games = self.games.lock();
        let Some(game) = games.get(&game_id) else {
            return Ok(PresencePage {
                active_count: 0,
                entries: Vec::new(),
            });
        };
        let index = match status {
            Some(status) => &game.by_status[status.index()],
            None => &game.by_time,
        };
        // Active means last updated strictly after `now - OFFLINE_AFTER`.
        let from = (millis(now - OFFLINE_AFTER) + 1, String::new());
        let active = || {
            index
                .range((Bound::Included(from.clone()), Bound::Unbounded))
                .rev()
        };
        let entries = active()
            .skip(offset as usize)
            .take(limit as usize)
            .filter_map(|(_, player)| game.entries.get(player).cloned())
            .collect();
        Ok(PresencePage {
            active_count: active().count() as u64,
            entries,
        })
    }

    async fn announce_offline(
        &self,
        now: DateTime<Utc>,
        max: usize,
        message: OfflineMessage,
    ) -> Result<Vec<WentOffline>, HotError> {
        let claimed: Vec<(i64, Uuid, String)> = {
            let mut due = self.due.lock();
            let now_ms = millis(now);
            let mut claimed = Vec::new();
            while claimed.len() < max {
                match due.first() {
                    Some((at, _, _)) if *at <= now_ms => claimed.extend(due.pop_first()),
                    _ => break,
                }
            }
            claimed
        };
        {
            // The periodic check also forgets entries past retention in games nobody writes to.
            let cutoff_ms = millis(now - RETAIN);
            let mut games = self.games.lock();
            games.retain(|_, game| {
                game.trim(cutoff_ms);
                !game.entries.is_empty()
            });
        }
        let mut announced = Vec::with_capacity(claimed.len());
        for (due_ms, game_id, player_id) in claimed {
            let last_updated = from_millis(due_ms) - OFFLINE_AFTER;
            self.hub
                .deliver(game_id, Arc::from(message(&player_id, last_updated)));
            announced.push(WentOffline {
                game_id,
                player_id,
                last_updated,
            });
        }
        Ok(announced)
    }

    async fn subscribe(&self, game_id: Uuid) -> Result<FeedSubscription, HotError> {
        self.hub.subscribe(game_id).await
    }

    async fn revoke(&self, game_id: Uuid, user_id: Option<Uuid>) -> Result<(), HotError> {
        self.hub
            .deliver(game_id, Arc::from(super::revoked_message(user_id)));
        Ok(())
    }
}
