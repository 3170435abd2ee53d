//! `/v1/games/{game_id}/event-schemas`: JSON Schemas (draft 2020-12) for the `properties` of
//! each event name, applied according to the game's `event_validation` mode (dashboard, JWT).
use super::schemas;
use crate::{
    auth::BearerAuth,
    games::{require_role, Role},
    http::{timestamp, ApiTags},
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
    pub created_at: String,
    pub updated_at: String,
}

#[derive(Object)]
pub struct EventSchemaList {
    pub event_schemas: Vec<EventSchema>,
}

#[derive(ApiResponse)]
pub enum SchemaSaved {
    /// A schema replaced the previous one of this event name.
    #[oai(status = 200)]
    Replaced(Json<EventSchema>),
    /// The event name had no schema before.
    #[oai(status = 201)]
    Created(Json<EventSchema>),
}

#[derive(ApiResponse)]
pub enum SchemaDeleted {
    #[oai(status = 204)]
    NoContent,
}

fn view(row: event_schemas::Model) -> EventSchema {
    EventSchema {
        event_name: row.event_name,
        schema: Any(row.schema),
        created_at: timestamp(row.created_at),
        updated_at: timestamp(row.updated_at),
    }
}

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
        Ok(Json(EventSchemaList {
            event_schemas: rows.into_iter().map(view).collect(),
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
    ) -> poem::Result<SchemaDeleted> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Editor).await?;
        schemas::delete(&self.state, game_id.0, event_name.0).await?;
        Ok(SchemaDeleted::NoContent)
    }
}
