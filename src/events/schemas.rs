//! Event schemas: compiling a JSON Schema (draft 2020-12) for an event name's `properties`,
//! a short per-node cache of each game's compiled schemas, and checking events against them.
use super::input::IncomingEvent;
use crate::store::hot::changes::{Cached, Stale};
use crate::{error::ApiError, store::Db};
use entity::event_schemas;
use jsonschema::{PatternOptions, Validator};
use parking_lot::Mutex;
use sea_orm::{ColumnTrait, DbErr, EntityTrait, QueryFilter};
use serde_json::Value;
use std::{
    collections::HashMap,
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc,
    },
    time::{Duration, Instant},
};
use uuid::Uuid;

/// How long a node trusts its compiled copy of a game's schemas. A change reaches the node that
/// made it at once and the other nodes within this time.
pub const CACHE_TTL: Duration = Duration::from_secs(5);
/// Largest schema accepted, serialised.
pub const MAX_SCHEMA_BYTES: usize = 64 * 1024;
/// The only `$schema` accepted (and the one assumed when absent).
pub const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";
/// Violations reported per event; the rest are summarised away.
const MAX_MESSAGES_PER_EVENT: usize = 10;

/// One event that does not match its schema (an item of `violations` or `warnings`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub index: usize,
    pub event_name: String,
    pub message: String,
}

/// Checks and compiles a schema sent by the dashboard.
pub fn compile(schema: &Value) -> Result<Validator, ApiError> {
    if !schema.is_object() && !schema.is_boolean() {
        return Err(ApiError::bad_request(
            "A JSON Schema must be an object or a boolean",
        ));
    }
    if let Some(dialect) = schema.get("$schema") {
        let dialect = dialect.as_str().unwrap_or_default().trim_end_matches('#');
        if dialect != DRAFT_2020_12 {
            return Err(ApiError::bad_request(format!(
                "Only JSON Schema draft 2020-12 is supported ($schema {DRAFT_2020_12})"
            )));
        }
    }
    if serde_json::to_vec(schema)
        .map(|b| b.len())
        .unwrap_or(usize::MAX)
        > MAX_SCHEMA_BYTES
    {
        return Err(ApiError::payload_too_large(format!(
            "A schema may be at most {MAX_SCHEMA_BYTES} bytes"
        )));
    }
    jsonschema::draft202012::options()
        // Linear-time regular expressions: a `pattern` from a dashboard user must not be able
        // to stall ingestion with catastrophic backtracking.
        .with_pattern_options(PatternOptions::regex())
        .build(schema)
        .map_err(|e| {
            ApiError::bad_request(format!("Invalid JSON Schema: {}", clip(&e.to_string())))
        })
}

/// A game's compiled schemas by event name.
#[derive(Default)]
pub struct GameSchemas {
    validators: HashMap<String, Validator>,
}

impl GameSchemas {
    /// Every violation in `events`, in event order.
    pub fn check(&self, events: &[IncomingEvent]) -> Vec<Violation> {
        let mut violations = Vec::new();
        for (index, event) in events.iter().enumerate() {
            let Some(validator) = self.validators.get(&event.event_name) else {
                continue;
            };
            let properties = Value::Object(event.properties.clone());
            let mut messages = validator.iter_errors(&properties).map(|error| {
                let path = error.instance_path.to_string();
                let text = clip(&error.to_string());
                if path.is_empty() {
                    text
                } else {
                    format!("{path}: {text}")
                }
            });
            for message in messages.by_ref().take(MAX_MESSAGES_PER_EVENT) {
                violations.push(Violation {
                    index,
                    event_name: event.event_name.clone(),
                    message,
                });
            }
            let more = messages.count();
            if more > 0 {
                violations.push(Violation {
                    index,
                    event_name: event.event_name.clone(),
                    message: format!("and {more} more violations"),
                });
            }
        }
        violations
    }

    pub fn is_empty(&self) -> bool {
        self.validators.is_empty()
    }
}

/// Per-node cache of compiled schemas, per game.
#[derive(Default)]
pub struct SchemaCache {
    games: Mutex<HashMap<Uuid, (Arc<GameSchemas>, Instant)>>,
    /// Bumped by every forget: a read that started before one does not cache what it read.
    generation: AtomicU64,
}

impl SchemaCache {
    pub async fn for_game(&self, db: &Db, game_id: Uuid) -> Result<Arc<GameSchemas>, DbErr> {
        if let Some((schemas, at)) = self.games.lock().get(&game_id) {
            if at.elapsed() < CACHE_TTL {
                return Ok(schemas.clone());
            }
        }
        let generation = self.generation.load(Ordering::Acquire);
        let rows = event_schemas::Entity::find()
            .filter(event_schemas::Column::GameId.eq(game_id))
            .all(db)
            .await?;
        let mut validators = HashMap::new();
        for row in rows {
            match compile(&row.schema) {
                Ok(validator) => {
                    validators.insert(row.event_name, validator);
                }
                // Stored schemas were valid when saved; one that no longer compiles is skipped
                // (logged) rather than blocking every event of the game.
                Err(error) => {
                    tracing::warn!(%game_id, event_name = %row.event_name, error = %error, "stored event schema does not compile")
                }
            }
        }
        let schemas = Arc::new(GameSchemas { validators });
        let mut games = self.games.lock();
        if self.generation.load(Ordering::Acquire) != generation {
            return Ok(schemas);
        }
        if games.len() > 10_000 {
            games.retain(|_, (_, at)| at.elapsed() < CACHE_TTL);
        }
        games.insert(game_id, (schemas.clone(), Instant::now()));
        Ok(schemas)
    }

    /// Drops the cached schemas of a game after a change.
    pub fn forget(&self, game_id: Uuid) {
        let mut games = self.games.lock();
        self.generation.fetch_add(1, Ordering::AcqRel);
        games.remove(&game_id);
    }

    pub fn forget_all(&self) {
        let mut games = self.games.lock();
        self.generation.fetch_add(1, Ordering::AcqRel);
        games.clear();
    }
}

fn clip(text: &str) -> String {
    let mut clipped: String = text.chars().take(300).collect();
    if clipped.len() < text.len() {
        clipped.push('…');
    }
    clipped
}

impl Cached for SchemaCache {
    fn forget_stale(&self, stale: Stale) {
        match stale {
            Stale::Game(game_id) => self.forget(game_id),
            Stale::Everything => self.forget_all(),
        }
    }
}
