//! Game API keys: 256 random bits, shown once, stored as SHA-256. Lookups go through a short
//! per-node cache so the hot path costs no database round trip.
use crate::store::hot::changes::{Cached, Stale};
use crate::store::Db;
use entity::{api_keys, games};
use parking_lot::Mutex;
use sea_orm::{ColumnTrait, DbErr, EntityTrait, QueryFilter};
use std::{
    collections::HashMap,
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc,
    },
    time::{Duration, Instant},
};
use uuid::Uuid;

/// Every key starts with this, so leaked keys are easy to grep for.
pub const KEY_PREFIX: &str = "pt_";
/// How many leading characters of a key are kept in clear to tell keys apart in listings.
pub const SHOWN_PREFIX_LEN: usize = 11;
/// How long a node trusts its cached view of a key. Revocation is immediate on the node that
/// handles it and reaches the other nodes within this time.
pub const CACHE_TTL: Duration = Duration::from_secs(2);

/// What a valid key tells a request about its caller.
#[derive(Debug, Clone)]
pub struct KeyContext {
    pub key_id: Uuid,
    pub game_id: Uuid,
    pub environment: String,
    pub tier: String,
    pub event_validation: String,
    pub rate_limit_per_minute: Option<u64>,
    /// Web origins whose browser builds may use the key (CORS); `*` allows any.
    pub allowed_origins: Vec<String>,
}

impl KeyContext {
    pub fn allows_origin(&self, origin: &str) -> bool {
        self.allowed_origins
            .iter()
            .any(|allowed| allowed == "*" || allowed == origin)
    }
}

pub fn generate() -> String {
    format!("{KEY_PREFIX}{}", crate::auth::random_hex(32))
}

pub fn shown_prefix(key: &str) -> String {
    key.chars().take(SHOWN_PREFIX_LEN).collect()
}

#[derive(Default)]
pub struct KeyCache {
    entries: Mutex<HashMap<String, (Option<Arc<KeyContext>>, Instant)>>,
    /// Bumped by every forget: a lookup that started before one does not cache what it read.
    generation: AtomicU64,
}

impl KeyCache {
    /// The key's context, or `None` for an unknown or revoked key.
    pub async fn resolve(&self, db: &Db, raw_key: &str) -> Result<Option<Arc<KeyContext>>, DbErr> {
        let hash = crate::auth::sha256_hex(raw_key);
        if let Some((context, at)) = self.entries.lock().get(&hash) {
            if at.elapsed() < CACHE_TTL {
                return Ok(context.clone());
            }
        }
        let generation = self.generation.load(Ordering::Acquire);
        let found = api_keys::Entity::find()
            .filter(api_keys::Column::KeyHash.eq(hash.clone()))
            .filter(api_keys::Column::RevokedAt.is_null())
            .find_also_related(games::Entity)
            .one(db)
            .await?;
        let context = found.and_then(|(key, game)| {
            let game = game?;
            Some(Arc::new(KeyContext {
                key_id: key.id,
                game_id: game.id,
                environment: key.environment,
                rate_limit_per_minute: game.rate_limit_per_minute.map(|l| l.max(0) as u64),
                allowed_origins: crate::games::service::origins_of(&game),
                tier: game.tier,
                event_validation: game.event_validation,
            }))
        });
        let mut entries = self.entries.lock();
        if self.generation.load(Ordering::Acquire) != generation {
            return Ok(context);
        }
        if entries.len() > 50_000 {
            entries.retain(|_, (_, at)| at.elapsed() < CACHE_TTL);
        }
        entries.insert(hash, (context.clone(), Instant::now()));
        Ok(context)
    }

    /// Forgets every cached key of `game_id` (after a revoke, a game change or deletion).
    pub fn forget_game(&self, game_id: Uuid) {
        let mut entries = self.entries.lock();
        self.generation.fetch_add(1, Ordering::AcqRel);
        entries.retain(|_, (context, _)| context.as_ref().map(|c| c.game_id) != Some(game_id));
    }

    pub fn forget_all(&self) {
        let mut entries = self.entries.lock();
        self.generation.fetch_add(1, Ordering::AcqRel);
        entries.clear();
    }
}

impl Cached for KeyCache {
    fn forget_stale(&self, stale: Stale) {
        match stale {
            Stale::Game(game_id) => self.forget_game(game_id),
            Stale::Everything => self.forget_all(),
        }
    }
}
