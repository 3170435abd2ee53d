//! Event schemas: compiling a JSON Schema (draft 2020-12) for an event name's `properties`,
//! storing them per game and event name, a short per-node cache of each game's compiled
//! schemas, and checking events against them.
use super::{
    input::{self, IncomingEvent},
    EventError,
};
use crate::store::node_cache::{NodeCache, Policy};
use crate::{state::AppState, store::Db};
use entity::{event_schemas, events};
use jsonschema::{PatternOptions, Validator};
use sea_orm::{
    sea_query::OnConflict, ColumnTrait, DbErr, EntityTrait, QueryFilter, QueryOrder,
    TransactionTrait,
};
use serde_json::Value;
use std::{
    collections::HashMap,
    sync::Arc,
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
pub fn compile(schema: &Value) -> Result<Validator, EventError> {
    if !schema.is_object() && !schema.is_boolean() {
        return Err(EventError::invalid(
            "A JSON Schema must be an object or a boolean",
        ));
    }
    if let Some(dialect) = schema.get("$schema") {
        let dialect = dialect.as_str().unwrap_or_default().trim_end_matches('#');
        if dialect != DRAFT_2020_12 {
            return Err(EventError::invalid(format!(
                "Only JSON Schema draft 2020-12 is supported ($schema {DRAFT_2020_12})"
            )));
        }
    }
    if serde_json::to_vec(schema)
        .map(|b| b.len())
        .unwrap_or(usize::MAX)
        > MAX_SCHEMA_BYTES
    {
        return Err(EventError::SchemaTooLarge);
    }
    jsonschema::draft202012::options()
        // Linear-time regular expressions: a `pattern` from a dashboard user must not be able
        // to stall ingestion with catastrophic backtracking.
        .with_pattern_options(PatternOptions::regex())
        .build(schema)
        .map_err(|e| EventError::invalid(format!("Invalid JSON Schema: {}", clip(&e.to_string()))))
}

/// An event name a schema is stored under: the same rule as the events' own names.
pub fn parse_event_name(raw: &str) -> Result<String, EventError> {
    input::check_event_name(raw).map_err(|e| EventError::invalid(e.to_string()))?;
    Ok(raw.to_string())
}

/// Stores `schema` (checked first) for the game's `event_name`, replacing the one it had.
/// The stored row, and whether the name had no schema before.
pub async fn put(
    state: &AppState,
    game_id: Uuid,
    event_name: String,
    schema: Value,
) -> Result<(event_schemas::Model, bool), EventError> {
    compile(&schema)?;
    let now = state.now();
    let txn = state.db.begin().await?;
    let existed = event_schemas::Entity::find_by_id((game_id, event_name.clone()))
        .one(&txn)
        .await?;
    let row = event_schemas::Model {
        game_id,
        event_name,
        schema,
        created_at: existed.as_ref().map(|r| r.created_at).unwrap_or(now),
        updated_at: now,
    };
    event_schemas::Entity::insert(event_schemas::ActiveModel::from(row.clone()))
        .on_conflict(
            OnConflict::columns([
                event_schemas::Column::GameId,
                event_schemas::Column::EventName,
            ])
            .update_columns([
                event_schemas::Column::Schema,
                event_schemas::Column::UpdatedAt,
            ])
            .to_owned(),
        )
        .exec_without_returning(&txn)
        .await?;
    txn.commit().await?;
    state.game_changed(game_id).await;
    Ok((row, existed.is_none()))
}

/// The game's schemas, by event name.
pub async fn list(
    state: &AppState,
    game_id: Uuid,
) -> Result<Vec<event_schemas::Model>, EventError> {
    Ok(event_schemas::Entity::find()
        .filter(event_schemas::Column::GameId.eq(game_id))
        .order_by_asc(event_schemas::Column::EventName)
        .all(&state.db)
        .await?)
}

pub async fn find(
    state: &AppState,
    game_id: Uuid,
    event_name: String,
) -> Result<event_schemas::Model, EventError> {
    event_schemas::Entity::find_by_id((game_id, event_name))
        .one(&state.db)
        .await?
        .ok_or(EventError::NoSchema)
}

/// Removes the schema of the game's `event_name`: its events are no longer checked.
pub async fn delete(state: &AppState, game_id: Uuid, event_name: String) -> Result<(), EventError> {
    let deleted = event_schemas::Entity::delete_by_id((game_id, event_name))
        .exec(&state.db)
        .await?;
    if deleted.rows_affected == 0 {
        return Err(EventError::NoSchema);
    }
    state.game_changed(game_id).await;
    Ok(())
}

/// What `properties` breaks in a schema, each message prefixed with the JSON pointer of the
/// offending value: at most 10, then one `and N more violations`. Empty when it matches.
fn messages(validator: &Validator, properties: &Value) -> Vec<String> {
    let mut errors = validator.iter_errors(properties).map(|error| {
        let path = error.instance_path.to_string();
        let text = clip(&error.to_string());
        if path.is_empty() {
            text
        } else {
            format!("{path}: {text}")
        }
    });
    let mut messages: Vec<String> = errors.by_ref().take(MAX_MESSAGES_PER_EVENT).collect();
    let more = errors.count();
    if more > 0 {
        messages.push(format!("and {more} more violations"));
    }
    messages
}

/// One stored event that breaks a schema being tried, with what it breaks.
pub struct FailingEvent {
    pub event: events::Model,
    pub messages: Vec<String>,
}

/// Tries `schema` (checked and compiled as `put` does) on the newest `limit` stored events of
/// the game's `event_name`, storing nothing: how many events were checked, and those that
/// break it, newest first.
#[tracing::instrument(skip_all, fields(%game_id))]
pub async fn check_stored(
    state: &AppState,
    game_id: Uuid,
    event_name: &str,
    schema: &Value,
    limit: u64,
) -> Result<(usize, Vec<FailingEvent>), EventError> {
    let validator = compile(schema)?;
    let events = super::recent::newest_named(&state.db, game_id, event_name, limit).await?;
    let checked = events.len();
    let violations = events
        .into_iter()
        .filter_map(|event| {
            let messages = messages(&validator, &event.properties);
            (!messages.is_empty()).then_some(FailingEvent { event, messages })
        })
        .collect();
    Ok((checked, violations))
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
            let Some(validator) = self
                .validators
                .get(&event.event_name)
                .or_else(|| STANDARD.get(event.event_name.as_str()))
            else {
                continue;
            };
            let properties = Value::Object(event.properties.clone());
            for message in messages(validator, &properties) {
                violations.push(Violation {
                    index,
                    event_name: event.event_name.clone(),
                    message,
                });
            }
        }
        violations
    }

    pub fn is_empty(&self) -> bool {
        self.validators.is_empty()
    }
}

/// The ready schemas of the standard event kinds (`super::standard`), which check a game's
/// events of those names when it has not stored a schema of its own for them.
static STANDARD: std::sync::LazyLock<HashMap<&'static str, Validator>> =
    std::sync::LazyLock::new(|| {
        [super::standard::PROGRESSION, super::standard::RESOURCE]
            .into_iter()
            .map(|name| {
                let schema = super::standard::schema_of(name).expect("a standard event name");
                (
                    name,
                    compile(&schema).expect("the standard schemas compile"),
                )
            })
            .collect()
    });

/// Whether an event name has a ready schema that applies without one of the game's own.
pub fn has_standard_schema(event_name: &str) -> bool {
    STANDARD.contains_key(event_name)
}

/// Per-node cache of compiled schemas, per game.
pub type SchemaCache = NodeCache<CompiledSchemas>;

/// What `SchemaCache` holds: a game's compiled schemas by its id, for `CACHE_TTL`.
pub struct CompiledSchemas;

impl Policy for CompiledSchemas {
    type Key = Uuid;
    type Value = Arc<GameSchemas>;
    type Moment = Instant;
    const TTL: Duration = CACHE_TTL;
    /// Swept once it holds more than 10 000 games.
    const SWEEP_AT: usize = 10_001;
    fn game(game_id: &Uuid, _: &Arc<GameSchemas>) -> Option<Uuid> {
        Some(*game_id)
    }
}

impl SchemaCache {
    pub async fn for_game(&self, db: &Db, game_id: Uuid) -> Result<Arc<GameSchemas>, DbErr> {
        if let Some(schemas) = self.get(&game_id) {
            return Ok(schemas);
        }
        let generation = self.generation();
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
        self.put(game_id, schemas.clone(), generation);
        Ok(schemas)
    }
}

fn clip(text: &str) -> String {
    let mut clipped: String = text.chars().take(300).collect();
    if clipped.len() < text.len() {
        clipped.push('…');
    }
    clipped
}
