//! Storing a game's config, and the per-node cache that answers `GET /v1/config`.
//!
//! The cache keeps, per game, the finished response body and its ETag for `CACHE_TTL`. A change
//! made through this node empties its entry at once; other nodes notice within `CACHE_TTL`
//! (they never hold an entry longer), so a game polling any node sees a change within a second.
use crate::http::json_text::quoted;
use crate::store::node_cache::{NodeCache, Policy};
use crate::{error::ApiError, http::timestamp, state::AppState};
use bytes::Bytes;
use chrono::{DateTime, Utc};
use entity::game_configs;
use sea_orm::{sea_query::OnConflict, ActiveValue::Set, EntityTrait};
use serde_json::Value;
use std::{sync::Arc, time::Duration};
use uuid::Uuid;

/// Largest config accepted, measured as the compact JSON serialization of `values`.
pub const MAX_CONFIG_BYTES: usize = 256 * 1024;
/// How long a node serves a config from memory before reading the cold store again.
pub const CACHE_TTL: Duration = Duration::from_secs(1);
/// Entries kept before expired ones are swept.
const SWEEP_AT: usize = 10_000;

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("values must be a JSON object")]
    NotAnObject,
    #[error("Config too large (limit 256 KiB)")]
    TooLarge { received: usize },
}

impl From<ConfigError> for ApiError {
    fn from(error: ConfigError) -> Self {
        match error {
            ConfigError::NotAnObject => ApiError::bad_request(error.to_string()),
            ConfigError::TooLarge { received } => ApiError::payload_too_large(error.to_string())
                .with("limit", MAX_CONFIG_BYTES)
                .with("received", received),
        }
    }
}

/// A game's config as stored: compact JSON object text, and when it was last set (`None`:
/// never, the config is the empty object).
pub struct StoredConfig {
    pub values_json: String,
    pub updated_at: Option<DateTime<Utc>>,
}

impl StoredConfig {
    pub fn values(&self) -> Result<Value, ApiError> {
        serde_json::from_str(&self.values_json).map_err(ApiError::internal)
    }
}

/// Checks `values` and turns it into the text that is stored.
pub fn parse_values(values: &Value) -> Result<String, ConfigError> {
    if !values.is_object() {
        return Err(ConfigError::NotAnObject);
    }
    let text = values.to_string();
    if text.len() > MAX_CONFIG_BYTES {
        return Err(ConfigError::TooLarge {
            received: text.len(),
        });
    }
    Ok(text)
}

pub async fn load(state: &AppState, game_id: Uuid) -> Result<StoredConfig, ApiError> {
    let row = game_configs::Entity::find_by_id(game_id)
        .one(&state.db)
        .await?;
    Ok(match row {
        Some(row) => StoredConfig {
            values_json: row.values_json,
            updated_at: Some(row.updated_at),
        },
        None => StoredConfig {
            values_json: "{}".into(),
            updated_at: None,
        },
    })
}

/// Replaces the game's config with `values_json` in one upsert, and makes every node's copy
/// stale.
#[tracing::instrument(skip_all, fields(game_id = %game_id))]
pub async fn store(
    state: &AppState,
    game_id: Uuid,
    values_json: String,
) -> Result<StoredConfig, ApiError> {
    let now = state.now();
    let row = game_configs::ActiveModel {
        game_id: Set(game_id),
        values_json: Set(values_json.clone()),
        updated_at: Set(now),
    };
    game_configs::Entity::insert(row)
        .on_conflict(
            OnConflict::column(game_configs::Column::GameId)
                .update_columns([
                    game_configs::Column::ValuesJson,
                    game_configs::Column::UpdatedAt,
                ])
                .to_owned(),
        )
        .exec_without_returning(&state.db)
        .await?;
    state.game_changed(game_id).await;
    Ok(StoredConfig {
        values_json,
        updated_at: Some(now),
    })
}

/// What `GET /v1/config` answers for one game: the whole body, ready to send, and its ETag.
pub struct Published {
    pub body: Bytes,
    pub etag: String,
}

impl Published {
    fn new(config: StoredConfig) -> Self {
        let updated_at = config
            .updated_at
            .map(|at| quoted(&timestamp(at)))
            .unwrap_or_else(|| "null".into());
        let body = format!(
            r#"{{"config":{},"updated_at":{updated_at}}}"#,
            config.values_json
        );
        // The body decides the tag, so equal answers share it on every node and across restarts.
        let etag = format!("\"{}\"", &crate::auth::sha256_hex(&body)[..32]);
        Self {
            body: Bytes::from(body),
            etag,
        }
    }

    /// True when an `If-None-Match` header value names this version (weak comparison, `*`
    /// matches any, as RFC 9110 asks for GET).
    pub fn matches(&self, if_none_match: &str) -> bool {
        if_none_match
            .split(',')
            .map(str::trim)
            .any(|tag| tag == "*" || tag.strip_prefix("W/").unwrap_or(tag) == self.etag)
    }
}

/// Per-node cache of published configs.
pub type ConfigCache = NodeCache<PublishedConfigs>;

/// What `ConfigCache` holds: a game's published config by its id, for `CACHE_TTL` of the
/// application's clock.
pub struct PublishedConfigs;

impl Policy for PublishedConfigs {
    type Key = Uuid;
    type Value = Arc<Published>;
    type Moment = DateTime<Utc>;
    const TTL: Duration = CACHE_TTL;
    const SWEEP_AT: usize = SWEEP_AT;
    fn game(game_id: &Uuid, _: &Arc<Published>) -> Option<Uuid> {
        Some(*game_id)
    }
}

impl ConfigCache {
    pub async fn get(&self, state: &AppState, game_id: Uuid) -> Result<Arc<Published>, ApiError> {
        let now = state.now();
        if let Some(published) = self.get_at(&game_id, now) {
            return Ok(published);
        }
        let generation = self.generation();
        let published = Arc::new(Published::new(load(state, game_id).await?));
        self.put_at(game_id, published.clone(), generation, now);
        Ok(published)
    }
}

/// This node's published configs.
pub fn cache(state: &AppState) -> &ConfigCache {
    &state.parts.config
}
