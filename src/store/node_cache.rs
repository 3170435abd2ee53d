//! What every per-node cache of what games set up (API keys, event schemas, board definitions,
//! remote config) does the same way: entries served for a time to live, a bound on how many are
//! held, a generation that keeps a read started before a change from caching what it read, and
//! following change announcements (`Cached`). Each cache is a `NodeCache` of its own `Policy`,
//! with its lookups written as methods of that type next to the feature.
use crate::store::hot::changes::{Cached, Stale};
use chrono::{DateTime, Utc};
use parking_lot::Mutex;
use std::{
    collections::HashMap,
    hash::Hash,
    sync::atomic::{AtomicU64, Ordering},
    time::{Duration, Instant},
};
use uuid::Uuid;

/// A point in time an entry is stamped with: `Instant` for a cache timed by the node alone,
/// `DateTime<Utc>` for one timed by the application's clock.
pub trait Moment: Copy + Send + 'static {
    /// How long after `earlier` this is; `None` when it is before `earlier` (a clock set back).
    fn since(self, earlier: Self) -> Option<Duration>;
}

impl Moment for Instant {
    fn since(self, earlier: Self) -> Option<Duration> {
        Some(self.saturating_duration_since(earlier))
    }
}

impl Moment for DateTime<Utc> {
    fn since(self, earlier: Self) -> Option<Duration> {
        (self - earlier).to_std().ok()
    }
}

/// What one cache holds, for how long, and which game each entry is about.
pub trait Policy: Send + Sync + 'static {
    type Key: Eq + Hash + Send;
    type Value: Clone + Send;
    type Moment: Moment;
    /// How long an entry is served after it was stamped.
    const TTL: Duration;
    /// An insert into a cache holding this many entries first sweeps out the expired ones.
    const SWEEP_AT: usize;
    /// Whether such an insert empties the cache when it still holds `SWEEP_AT` entries after
    /// the sweep.
    const CLEAR_WHEN_FULL: bool = false;
    /// The game an entry is about, whose changes forget it; `None`: no game's, a game's change
    /// keeps it.
    fn game(key: &Self::Key, value: &Self::Value) -> Option<Uuid>;
}

/// Each key's value and when it was stamped.
type Entries<P> = HashMap<<P as Policy>::Key, (<P as Policy>::Value, <P as Policy>::Moment)>;

/// A per-node cache run by the policy `P`.
pub struct NodeCache<P: Policy> {
    entries: Mutex<Entries<P>>,
    /// Bumped by every forget: a read that started before one does not cache what it read.
    generation: AtomicU64,
}

impl<P: Policy> Default for NodeCache<P> {
    fn default() -> Self {
        Self {
            entries: Mutex::new(HashMap::new()),
            generation: AtomicU64::new(0),
        }
    }
}

/// Whether an entry stamped `at` is served at `now`.
fn fresh<P: Policy>(now: P::Moment, at: P::Moment) -> bool {
    now.since(at).is_some_and(|age| age < P::TTL)
}

/// Whether a sweep at `now` drops an entry stamped `at` (one stamped after `now` is kept).
fn expired<P: Policy>(now: P::Moment, at: P::Moment) -> bool {
    now.since(at).is_some_and(|age| age >= P::TTL)
}

impl<P: Policy> NodeCache<P> {
    /// Where the generation stands: take it before reading what `put_at` is to cache.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// The entry of `key` while `now` is within its time to live.
    pub fn get_at(&self, key: &P::Key, now: P::Moment) -> Option<P::Value> {
        let entries = self.entries.lock();
        let (value, at) = entries.get(key)?;
        fresh::<P>(now, *at).then(|| value.clone())
    }

    /// Caches `value` as read at `now`, unless something was forgotten since `generation` was
    /// taken (the read may predate that change).
    pub fn put_at(&self, key: P::Key, value: P::Value, generation: u64, now: P::Moment) {
        let mut entries = self.entries.lock();
        if self.generation() != generation {
            return;
        }
        if entries.len() >= P::SWEEP_AT {
            entries.retain(|_, (_, at)| !expired::<P>(now, *at));
            if P::CLEAR_WHEN_FULL && entries.len() >= P::SWEEP_AT {
                entries.clear();
            }
        }
        entries.insert(key, (value, now));
    }

    /// Forgets the entry of `key`.
    pub fn forget(&self, key: &P::Key) {
        self.forget_where(|entries| {
            entries.remove(key);
        });
    }

    /// Forgets every entry about `game_id`.
    pub fn forget_game(&self, game_id: Uuid) {
        self.forget_where(|entries| {
            entries.retain(|key, (value, _)| P::game(key, value) != Some(game_id))
        });
    }

    pub fn forget_all(&self) {
        self.forget_where(HashMap::clear);
    }

    /// Bumps the generation and drops entries, under the lock a `put_at` checks it under.
    fn forget_where(&self, forget: impl FnOnce(&mut Entries<P>)) {
        let mut entries = self.entries.lock();
        self.generation.fetch_add(1, Ordering::AcqRel);
        forget(&mut entries);
    }
}

/// A cache timed by the node alone reads its clock itself.
impl<P: Policy<Moment = Instant>> NodeCache<P> {
    pub fn get(&self, key: &P::Key) -> Option<P::Value> {
        self.get_at(key, Instant::now())
    }

    pub fn put(&self, key: P::Key, value: P::Value, generation: u64) {
        self.put_at(key, value, generation, Instant::now())
    }
}

impl<P: Policy> Cached for NodeCache<P> {
    fn forget_stale(&self, stale: Stale) {
        match stale {
            Stale::Game(game_id) => self.forget_game(game_id),
            Stale::Everything => self.forget_all(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Entries keyed by name, about the game they hold (if any); `CLEAR`: emptied when a
    /// sweep leaves it full.
    struct Named<const CLEAR: bool = false>;

    impl<const CLEAR: bool> Policy for Named<CLEAR> {
        type Key = &'static str;
        type Value = Option<Uuid>;
        type Moment = Instant;
        const TTL: Duration = Duration::from_secs(10);
        const SWEEP_AT: usize = 3;
        const CLEAR_WHEN_FULL: bool = CLEAR;
        fn game(_: &&'static str, game: &Option<Uuid>) -> Option<Uuid> {
            *game
        }
    }

    /// Entries keyed by their game, timed by a wall clock that may be set back.
    struct PerGame;

    impl Policy for PerGame {
        type Key = Uuid;
        type Value = u32;
        type Moment = DateTime<Utc>;
        const TTL: Duration = Duration::from_secs(1);
        const SWEEP_AT: usize = 2;
        fn game(game_id: &Uuid, _: &u32) -> Option<Uuid> {
            Some(*game_id)
        }
    }

    fn len<P: Policy>(cache: &NodeCache<P>) -> usize {
        cache.entries.lock().len()
    }

    #[test]
    fn entries_expire_after_their_ttl() {
        let cache = NodeCache::<Named>::default();
        let start = Instant::now();
        let game = Some(Uuid::now_v7());
        cache.put_at("a", game, cache.generation(), start);
        assert_eq!(cache.get_at(&"a", start), Some(game));
        let almost = start + <Named>::TTL - Duration::from_millis(1);
        assert_eq!(cache.get_at(&"a", almost), Some(game));
        assert_eq!(cache.get_at(&"a", start + <Named>::TTL), None);
        assert_eq!(cache.get_at(&"b", start), None);
    }

    #[test]
    fn entries_stamped_by_the_node_clock_are_served() {
        let cache = NodeCache::<Named>::default();
        cache.put("a", None, cache.generation());
        assert_eq!(cache.get(&"a"), Some(None));
    }

    #[test]
    fn a_clock_set_back_is_not_served_but_kept_by_sweeps() {
        let cache = NodeCache::<PerGame>::default();
        let now = Utc::now();
        let later = now + chrono::Duration::milliseconds(500);
        let game = Uuid::now_v7();
        cache.put_at(game, 1, cache.generation(), later);
        assert_eq!(cache.get_at(&game, now), None);
        assert_eq!(cache.get_at(&game, later), Some(1));
        // A sweep at `now` keeps the entry stamped after it, drops the expired one.
        let old = Uuid::now_v7();
        cache.put_at(
            old,
            2,
            cache.generation(),
            now - chrono::Duration::seconds(1),
        );
        cache.put_at(Uuid::now_v7(), 3, cache.generation(), now);
        assert_eq!(len(&cache), 2);
        assert_eq!(cache.get_at(&game, later), Some(1));
        assert_eq!(cache.get_at(&old, now), None);
    }

    #[test]
    fn a_read_older_than_a_forget_is_not_cached() {
        let cache = NodeCache::<Named>::default();
        let now = Instant::now();
        let before = cache.generation();
        cache.forget(&"unrelated");
        cache.put_at("a", None, before, now);
        assert_eq!(cache.get_at(&"a", now), None);
        let forgets: [fn(&NodeCache<Named>); 3] = [
            |c| c.forget_game(Uuid::now_v7()),
            |c| c.forget_all(),
            |c| c.forget_stale(Stale::Everything),
        ];
        for forget in forgets {
            let before = cache.generation();
            forget(&cache);
            assert_ne!(cache.generation(), before);
            cache.put_at("a", None, before, now);
            assert_eq!(cache.get_at(&"a", now), None);
        }
        cache.put_at("a", None, cache.generation(), now);
        assert_eq!(cache.get_at(&"a", now), Some(None));
    }

    #[test]
    fn a_game_change_forgets_that_games_entries_only() {
        let cache = NodeCache::<Named>::default();
        let now = Instant::now();
        let (changed, other) = (Uuid::now_v7(), Uuid::now_v7());
        let generation = cache.generation();
        cache.put_at("changed", Some(changed), generation, now);
        cache.put_at("other", Some(other), generation, now);
        cache.put_at("none", None, generation, now);
        cache.forget_stale(Stale::Game(changed));
        assert_eq!(cache.get_at(&"changed", now), None);
        assert_eq!(cache.get_at(&"other", now), Some(Some(other)));
        assert_eq!(cache.get_at(&"none", now), Some(None));
        cache.forget_stale(Stale::Everything);
        assert_eq!(len(&cache), 0);
    }

    #[test]
    fn a_game_change_forgets_entries_keyed_by_the_game() {
        let cache = NodeCache::<PerGame>::default();
        let now = Utc::now();
        let (changed, other) = (Uuid::now_v7(), Uuid::now_v7());
        cache.put_at(changed, 1, cache.generation(), now);
        cache.put_at(other, 2, cache.generation(), now);
        cache.forget_game(changed);
        assert_eq!(cache.get_at(&changed, now), None);
        assert_eq!(cache.get_at(&other, now), Some(2));
    }

    #[test]
    fn a_full_cache_sweeps_expired_entries() {
        let cache = NodeCache::<Named>::default();
        let start = Instant::now();
        let later = start + <Named>::TTL;
        cache.put_at("old", None, cache.generation(), start);
        cache.put_at("new 1", None, cache.generation(), later);
        cache.put_at("new 2", None, cache.generation(), later);
        cache.put_at("new 3", None, cache.generation(), later);
        assert_eq!(len(&cache), 3);
        assert_eq!(cache.get_at(&"new 1", later), Some(None));
        // Nothing expired: the cache grows past the mark.
        cache.put_at("new 4", None, cache.generation(), later);
        assert_eq!(len(&cache), 4);
    }

    #[test]
    fn a_cache_still_full_after_a_sweep_is_emptied_when_asked() {
        let cache = NodeCache::<Named<true>>::default();
        let now = Instant::now();
        for key in ["a", "b", "c"] {
            cache.put_at(key, None, cache.generation(), now);
        }
        cache.put_at("d", None, cache.generation(), now);
        assert_eq!(len(&cache), 1);
        assert_eq!(cache.get_at(&"d", now), Some(None));
        assert_eq!(cache.get_at(&"a", now), None);
    }
}
