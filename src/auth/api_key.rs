//! Game API keys: 256 random bits, shown once, stored as SHA-256. Lookups go through a short
//! per-node cache so the hot path costs no database round trip.
use super::player_token::PlayerAuth;
use crate::store::node_cache::{NodeCache, Policy};
use crate::store::Db;
use crate::words::{CorruptWord, Environment, EventValidation, Tier};
use entity::{api_keys, games};
use sea_orm::{ColumnTrait, DbErr, EntityTrait, QueryFilter};
use std::{
    sync::Arc,
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
    pub environment: Environment,
    pub tier: Tier,
    /// The monthly event quota the admin set instead of the tier's.
    pub event_quota: Option<i64>,
    pub event_validation: EventValidation,
    pub rate_limit_per_minute: Option<u64>,
    /// Web origins whose browser builds may use the key (CORS); `*` allows any.
    pub allowed_origins: Vec<String>,
    /// Whether player tokens are issued and demanded.
    pub player_auth: PlayerAuth,
    /// The secret the studio's backend signs custom player ids with, when one is set.
    pub player_secret: Option<String>,
    /// Whether the bare key may read reports not about one player (funnels, presence list).
    pub key_reads: bool,
    pub player_rate_limit_per_minute: Option<u64>,
    /// Whether a score may create a leaderboard the dashboard has not defined.
    pub leaderboards_from_scores: bool,
    /// How many leaderboards scores may create.
    pub score_board_limit: u32,
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

/// Per-node cache of key lookups by key hash, unknown and revoked keys (`None`) included.
pub type KeyCache = NodeCache<KeyLookups>;

/// What `KeyCache` holds: a key's context by the key's hash, for `CACHE_TTL`. A game's change
/// forgets its keys; an unknown key belongs to no game and waits out its time to live.
pub struct KeyLookups;

impl Policy for KeyLookups {
    type Key = String;
    type Value = Option<Arc<KeyContext>>;
    type Moment = Instant;
    const TTL: Duration = CACHE_TTL;
    /// Swept once it holds more than 50 000 keys.
    const SWEEP_AT: usize = 50_001;
    fn game(_: &String, context: &Option<Arc<KeyContext>>) -> Option<Uuid> {
        context.as_ref().map(|c| c.game_id)
    }
}

impl KeyCache {
    /// The key's context, or `None` for an unknown or revoked key.
    pub async fn resolve(&self, db: &Db, raw_key: &str) -> Result<Option<Arc<KeyContext>>, DbErr> {
        let hash = crate::auth::sha256_hex(raw_key);
        if let Some(context) = self.get(&hash) {
            return Ok(context);
        }
        let generation = self.generation();
        let found = api_keys::Entity::find()
            .filter(api_keys::Column::KeyHash.eq(hash.clone()))
            .filter(api_keys::Column::RevokedAt.is_null())
            .find_also_related(games::Entity)
            .one(db)
            .await?;
        let context = match found {
            Some((key, Some(game))) => Some(Arc::new(context(key, game).map_err(|corrupt| {
                // The rows hold words the service wrote from its enums: a fault of the data.
                DbErr::Custom(corrupt.to_string())
            })?)),
            _ => None,
        };
        self.put(hash, context.clone(), generation);
        Ok(context)
    }
}

/// A key's context from its rows, the stored words parsed once here.
fn context(key: api_keys::Model, game: games::Model) -> Result<KeyContext, CorruptWord> {
    Ok(KeyContext {
        key_id: key.id,
        game_id: game.id,
        environment: Environment::stored(&key.environment)?,
        rate_limit_per_minute: game.rate_limit_per_minute.map(|l| l.max(0) as u64),
        allowed_origins: game.origins(),
        player_auth: PlayerAuth::stored(&game.player_auth)?,
        player_secret: game.player_secret.clone(),
        key_reads: game.key_reads,
        player_rate_limit_per_minute: game.player_rate_limit_per_minute.map(|l| l.max(0) as u64),
        tier: Tier::stored(&game.tier)?,
        event_quota: game.event_quota,
        event_validation: EventValidation::stored(&game.event_validation)?,
        leaderboards_from_scores: game.leaderboards_from_scores,
        score_board_limit: game.score_board_limit.max(0) as u32,
    })
}
