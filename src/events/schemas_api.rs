//! `/v1/games/{game_id}/event-schemas`: JSON Schemas (draft 2020-12) for the `properties` of
//! each event name, applied according to the game's `event_validation` mode, and tried on the
//! stored events before saving (dashboard, JWT).
use super::{schemas, EventError};
use crate::http::schema::Timestamp;
use crate::{
    auth::BearerAuth,
    games::{require_role, Role},
    http::ApiTags,
    http::NoContent,
    state::AppState,
};
use entity::event_schemas;
use poem_openapi::{param::Path, payload::Json, types::Any, ApiResponse, Object, OpenApi};
use serde_json::Value;
use uuid::Uuid;

pub struct EventSchemasApi {
    pub state: AppState,
}

#[derive(Object)]
pub struct EventSchema {
    pub event_name: String,
    /// The JSON Schema the event's `properties` must match.
    pub schema: Any<Value>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

#[derive(Object)]
pub struct EventSchemaList {
    pub event_schemas: Vec<EventSchema>,
    /// The ready schemas of the standard event kinds (`progression`, `resource`): they check
    /// the game's events of those names unless the game stored a schema of its own for one.
    pub ready_schemas: Vec<ReadySchema>,
}

/// A standard event kind's ready schema (docs/events.md).
#[derive(Object)]
pub struct ReadySchema {
    pub event_name: String,
    pub schema: Any<Value>,
    /// False when the game stored a schema of its own for the name, which applies instead.
    pub in_use: bool,
}

/// A schema to try on the stored events of its event name.
#[derive(Object)]
#[oai(deny_unknown_fields)]
pub struct CheckSchema {
    /// The JSON Schema, as the PUT would take it.
    pub schema: Value,
    /// How many of the newest events of the name to check: 1 to 1000 (default 100).
    #[oai(nullable)]
    pub limit: Option<i64>,
}

/// A stored event that would break the schema.
#[derive(Object)]
pub struct StoredViolation {
    /// The stored event's id.
    pub id: String,
    /// The client's `event_id`, when it sent one.
    #[oai(nullable)]
    pub event_id: Option<String>,
    #[oai(nullable)]
    pub player_id: Option<String>,
    pub occurred_at: Timestamp,
    /// What it breaks, prefixed with the JSON pointer of the offending value.
    pub message: String,
}

#[derive(Object)]
pub struct SchemaCheck {
    pub event_name: String,
    /// Events checked: the newest `limit` of the name, or all of them when there are fewer.
    pub checked: u64,
    /// One item per message (up to 10 per event, then `and N more violations`), newest event
    /// first; empty when every checked event matches.
    pub violations: Vec<StoredViolation>,
}

/// Events a schema check reads when the body gives no `limit`, and the most it may read.
const DEFAULT_CHECK_LIMIT: i64 = 100;
const MAX_CHECK_LIMIT: i64 = 1000;

#[derive(ApiResponse)]
pub enum SchemaSaved {
    /// A schema replaced the previous one of this event name.
    #[oai(status = 200)]
    Replaced(Json<EventSchema>),
    /// The event name had no schema before.
    #[oai(status = 201)]
    Created(Json<EventSchema>),
}

fn view(row: event_schemas::Model) -> EventSchema {
    EventSchema {
        event_name: row.event_name,
        schema: Any(row.schema),
        created_at: Timestamp::from(row.created_at),
        updated_at: Timestamp::from(row.updated_at),
    }
}

/// What each operation here answers beyond the universal statuses (`http::error_responses`):
/// 403: not a member, or a role below the one needed; 404: no schema for that event.
pub const STATUSES: crate::http::Statuses = crate::http::statuses! {
    putEventSchema: [403],
    checkEventSchema: [403],
    listEventSchemas: [403],
    getEventSchema: [403, 404],
    deleteEventSchema: [403, 404],
};

#[OpenApi(prefix_path = "/v1/games", tag = "ApiTags::Events")]
impl EventSchemasApi {
    /// Set the JSON Schema (draft 2020-12) that the `properties` of `event_name` events must
    /// match (editor). The body is the schema itself; an invalid schema is refused with 400.
    #[oai(
        path = "/:game_id/event-schemas/:event_name",
        method = "put",
        operation_id = "putEventSchema"
    )]
    async fn put(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        event_name: Path<String>,
        body: Json<Value>,
    ) -> poem::Result<SchemaSaved> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Editor).await?;
        let name = schemas::parse_event_name(&event_name.0)?;
        let (row, created) = schemas::put(&self.state, game_id.0, name, body.0).await?;
        Ok(if created {
            SchemaSaved::Created(Json(view(row)))
        } else {
            SchemaSaved::Replaced(Json(view(row)))
        })
    }

    /// Try a schema on the newest stored events of `event_name` before saving it (any member).
    ///
    /// Checks the newest `limit` events of the name (1 to 1000, default 100) against `schema`
    /// and lists those that would break it; nothing is stored. An invalid schema is refused as
    /// the PUT refuses it.
    #[oai(
        path = "/:game_id/event-schemas/:event_name/check",
        method = "post",
        operation_id = "checkEventSchema"
    )]
    async fn check(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        event_name: Path<String>,
        body: Json<CheckSchema>,
    ) -> poem::Result<Json<SchemaCheck>> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Viewer).await?;
        let name = schemas::parse_event_name(&event_name.0)?;
        let limit = body.0.limit.unwrap_or(DEFAULT_CHECK_LIMIT);
        if !(1..=MAX_CHECK_LIMIT).contains(&limit) {
            return Err(EventError::invalid(format!(
                "limit must be an integer from 1 to {MAX_CHECK_LIMIT}"
            ))
            .into());
        }
        let (checked, failing) =
            schemas::check_stored(&self.state, game_id.0, &name, &body.0.schema, limit as u64)
                .await?;
        let violations = failing
            .into_iter()
            .flat_map(|failing| {
                let event = failing.event;
                failing
                    .messages
                    .into_iter()
                    .map(move |message| StoredViolation {
                        id: event.id.to_string(),
                        event_id: event.event_id.clone(),
                        player_id: event.player_id.clone(),
                        occurred_at: Timestamp::from(event.occurred_at),
                        message,
                    })
            })
            .collect();
        Ok(Json(SchemaCheck {
            event_name: name,
            checked: checked as u64,
            violations,
        }))
    }

    /// The game's event schemas, by event name.
    #[oai(
        path = "/:game_id/event-schemas",
        method = "get",
        operation_id = "listEventSchemas"
    )]
    async fn list(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
    ) -> poem::Result<Json<EventSchemaList>> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Viewer).await?;
        let rows = schemas::list(&self.state, game_id.0).await?;
        let ready_schemas = [super::standard::PROGRESSION, super::standard::RESOURCE]
            .into_iter()
            .map(|name| ReadySchema {
                event_name: name.to_string(),
                schema: Any(super::standard::schema_of(name).expect("a standard event name")),
                in_use: !rows.iter().any(|row| row.event_name == name),
            })
            .collect();
        Ok(Json(EventSchemaList {
            event_schemas: rows.into_iter().map(view).collect(),
            ready_schemas,
        }))
    }

    /// The event schema of one event name.
    #[oai(
        path = "/:game_id/event-schemas/:event_name",
        method = "get",
        operation_id = "getEventSchema"
    )]
    async fn get(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        event_name: Path<String>,
    ) -> poem::Result<Json<EventSchema>> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Viewer).await?;
        let row = schemas::find(&self.state, game_id.0, event_name.0).await?;
        Ok(Json(view(row)))
    }

    /// Remove an event name's schema (editor): its events are no longer checked.
    #[oai(
        path = "/:game_id/event-schemas/:event_name",
        method = "delete",
        operation_id = "deleteEventSchema"
    )]
    async fn delete(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        event_name: Path<String>,
    ) -> poem::Result<NoContent> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Editor).await?;
        schemas::delete(&self.state, game_id.0, event_name.0).await?;
        Ok(NoContent::Done)
    }
}
