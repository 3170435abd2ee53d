//! `/v1/games/{game_id}/event-schemas`: JSON Schemas (draft 2020-12) for the `properties` of
//! each event name, applied according to the game's `event_validation` mode (dashboard, JWT).
use super::{input, schemas};
use crate::{
    auth::BearerAuth,
    error::ApiError,
    games::{require_role, Role},
    http::{timestamp, ApiTags},
    state::AppState,
};
use entity::event_schemas;
use poem_openapi::{param::Path, payload::Json, types::Any, ApiResponse, Object, OpenApi};
use sea_orm::{
    sea_query::OnConflict, ColumnTrait, EntityTrait, QueryFilter, QueryOrder, TransactionTrait,
};
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

fn event_name(raw: &str) -> Result<String, ApiError> {
    input::check_event_name(raw).map_err(|e| ApiError::bad_request(e.to_string()))?;
    Ok(raw.to_string())
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
        let name = self::event_name(&event_name.0)?;
        schemas::compile(&body.0)?;
        let now = self.state.now();
        let txn = self.state.db.begin().await.map_err(ApiError::from)?;
        let existed = event_schemas::Entity::find_by_id((game_id.0, name.clone()))
            .one(&txn)
            .await
            .map_err(ApiError::from)?;
        let row = event_schemas::Model {
            game_id: game_id.0,
            event_name: name,
            schema: body.0,
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
            .await
            .map_err(ApiError::from)?;
        txn.commit().await.map_err(ApiError::from)?;
        self.state.game_changed(game_id.0).await;
        Ok(match existed {
            Some(_) => SchemaSaved::Replaced(Json(view(row))),
            None => SchemaSaved::Created(Json(view(row))),
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
        let rows = event_schemas::Entity::find()
            .filter(event_schemas::Column::GameId.eq(game_id.0))
            .order_by_asc(event_schemas::Column::EventName)
            .all(&self.state.db)
            .await
            .map_err(ApiError::from)?;
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
        let row = event_schemas::Entity::find_by_id((game_id.0, event_name.0))
            .one(&self.state.db)
            .await
            .map_err(ApiError::from)?
            .ok_or_else(|| ApiError::not_found("No schema for this event name"))?;
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
        let deleted = event_schemas::Entity::delete_by_id((game_id.0, event_name.0))
            .exec(&self.state.db)
            .await
            .map_err(ApiError::from)?;
        if deleted.rows_affected == 0 {
            return Err(ApiError::not_found("No schema for this event name").into());
        }
        self.state.game_changed(game_id.0).await;
        Ok(SchemaDeleted::NoContent)
    }
}
