//! Funnel endpoints: definitions under `/v1/games/{game_id}/funnels` (dashboard, editors
//! write, members read) and reports under `/v1/funnels` (game side, API key).
use super::service::{self, Mode};
use crate::{
    auth::{ApiKeyAuth, BearerAuth},
    error::ApiError,
    games::{access::Role, require_role},
    http::{timestamp, ApiTags},
    state::AppState,
};
use entity::funnels;
use poem_openapi::{
    param::{Path, Query},
    payload::Json,
    types::MaybeUndefined,
    ApiResponse, Object, OpenApi,
};
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter,
};
use uuid::Uuid;

pub struct FunnelDefinitionsApi {
    pub state: AppState,
}

pub struct FunnelsApi {
    pub state: AppState,
}

#[derive(Object)]
#[oai(deny_unknown_fields)]
pub struct CreateFunnel {
    /// 1 to 100 characters.
    pub name: String,
    /// `loose` (default): steps in any order, repeats counted once. `strict`: each step after
    /// the previous one.
    pub mode: Option<String>,
    /// 2 to 20 event names, in funnel order.
    pub steps: Vec<String>,
    /// Optional conversion window in hours (1 to 8760), counted from the user's first step-1
    /// event in the range.
    pub within_hours: Option<i64>,
}

#[derive(Object)]
#[oai(deny_unknown_fields)]
pub struct UpdateFunnel {
    pub name: Option<String>,
    pub mode: Option<String>,
    pub steps: Option<Vec<String>>,
    /// A number sets the window; `null` removes it.
    pub within_hours: MaybeUndefined<i64>,
}

/// A funnel definition.
#[derive(Object)]
pub struct Funnel {
    pub funnel_id: String,
    pub game_id: String,
    pub name: String,
    /// `loose` or `strict`.
    pub mode: String,
    pub steps: Vec<String>,
    /// Conversion window in hours; null when there is none.
    pub within_hours: Option<i32>,
    pub created_at: String,
    pub updated_at: String,
}

#[derive(Object)]
pub struct FunnelList {
    pub funnels: Vec<Funnel>,
}

/// One step of a funnel report.
#[derive(Object)]
pub struct FunnelStep {
    /// Position, from 1.
    pub step: u32,
    /// The step's event name.
    pub event: String,
    /// Users who reached this step.
    pub count: u64,
    /// Percent of the previous step's users lost at this step; absent on step 1.
    #[oai(skip_serializing_if_is_none)]
    pub dropoff: Option<f64>,
}

/// Conversion through a funnel over a range of UTC days.
#[derive(Object)]
pub struct FunnelReport {
    pub funnel_id: String,
    pub name: String,
    /// `loose` or `strict`.
    pub mode: String,
    /// First day counted (UTC, inclusive).
    pub from: String,
    /// Last day counted (UTC, inclusive).
    pub to: String,
    #[oai(skip_serializing_if_is_none)]
    pub within_hours: Option<i32>,
    pub steps: Vec<FunnelStep>,
    /// Last step over first step, in percent; 0 when nobody started.
    pub overall_conversion: f64,
}

#[derive(ApiResponse)]
pub enum FunnelCreated {
    #[oai(status = 201)]
    Created(Json<Funnel>),
}

#[derive(ApiResponse)]
pub enum FunnelDeleted {
    #[oai(status = 204)]
    NoContent,
}

pub fn funnel_view(funnel: funnels::Model) -> Funnel {
    Funnel {
        funnel_id: funnel.id.to_string(),
        game_id: funnel.game_id.to_string(),
        steps: service::steps_of(&funnel),
        mode: funnel.mode,
        name: funnel.name,
        within_hours: funnel.within_hours,
        created_at: timestamp(funnel.created_at),
        updated_at: timestamp(funnel.updated_at),
    }
}

async fn build_report(
    state: &AppState,
    funnel: &funnels::Model,
    from: Option<&str>,
    to: Option<&str>,
    environment: Option<&str>,
) -> Result<FunnelReport, ApiError> {
    let environment = parse_environment(environment)?;
    let report = service::report(state, funnel, from, to, environment).await?;
    Ok(FunnelReport {
        funnel_id: funnel.id.to_string(),
        name: funnel.name.clone(),
        mode: funnel.mode.clone(),
        from: report.from.to_string(),
        to: report.to.to_string(),
        within_hours: funnel.within_hours,
        steps: report
            .steps
            .into_iter()
            .map(|s| FunnelStep {
                step: s.step,
                event: s.event,
                count: s.count,
                dropoff: s.dropoff,
            })
            .collect(),
        overall_conversion: report.overall_conversion,
    })
}

fn parse_environment(raw: Option<&str>) -> Result<Option<&str>, ApiError> {
    match raw {
        None => Ok(None),
        Some(environment @ ("development" | "production")) => Ok(Some(environment)),
        Some(_) => Err(ApiError::bad_request(
            "environment must be development or production",
        )),
    }
}

#[OpenApi(prefix_path = "/v1/games", tag = "ApiTags::Funnels")]
impl FunnelDefinitionsApi {
    /// Define a funnel (editor): a name, a mode and 2 to 20 ordered event names.
    #[oai(
        path = "/:game_id/funnels",
        method = "post",
        operation_id = "createFunnel"
    )]
    async fn create(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        body: Json<CreateFunnel>,
    ) -> poem::Result<FunnelCreated> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Editor).await?;
        let name = service::parse_name(&body.name)?;
        let mode = Mode::parse(body.mode.as_deref().unwrap_or("loose"))?;
        let steps = service::parse_steps(&body.steps)?;
        let within_hours = body
            .within_hours
            .map(service::parse_within_hours)
            .transpose()?;
        let existing = funnels::Entity::find()
            .filter(funnels::Column::GameId.eq(game_id.0))
            .count(&self.state.db)
            .await
            .map_err(ApiError::from)?;
        if existing >= service::MAX_FUNNELS_PER_GAME {
            return Err(ApiError::conflict("A game can have at most 100 funnels").into());
        }
        let now = self.state.now();
        let funnel = funnels::Model {
            id: Uuid::now_v7(),
            game_id: game_id.0,
            name,
            mode: mode.as_str().into(),
            steps: serde_json::json!(steps),
            within_hours,
            created_at: now,
            updated_at: now,
        };
        funnels::Entity::insert(funnels::ActiveModel::from(funnel.clone()))
            .exec_without_returning(&self.state.db)
            .await
            .map_err(ApiError::from)?;
        Ok(FunnelCreated::Created(Json(funnel_view(funnel))))
    }

    /// The game's funnel definitions (any member).
    #[oai(
        path = "/:game_id/funnels",
        method = "get",
        operation_id = "listFunnelDefinitions"
    )]
    async fn list(&self, auth: BearerAuth, game_id: Path<Uuid>) -> poem::Result<Json<FunnelList>> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Viewer).await?;
        let funnels = service::list(&self.state, game_id.0).await?;
        Ok(Json(FunnelList {
            funnels: funnels.into_iter().map(funnel_view).collect(),
        }))
    }

    /// One funnel definition (any member).
    #[oai(
        path = "/:game_id/funnels/:funnel_id",
        method = "get",
        operation_id = "getFunnelDefinition"
    )]
    async fn get(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        funnel_id: Path<Uuid>,
    ) -> poem::Result<Json<Funnel>> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Viewer).await?;
        Ok(Json(funnel_view(
            service::find(&self.state, game_id.0, funnel_id.0).await?,
        )))
    }

    /// Change a funnel (editor). Reports are computed from the events at read time, so a
    /// change applies to past data too.
    #[oai(
        path = "/:game_id/funnels/:funnel_id",
        method = "patch",
        operation_id = "updateFunnel"
    )]
    async fn update(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        funnel_id: Path<Uuid>,
        body: Json<UpdateFunnel>,
    ) -> poem::Result<Json<Funnel>> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Editor).await?;
        let funnel = service::find(&self.state, game_id.0, funnel_id.0).await?;
        let body = body.0;
        let mut changes: funnels::ActiveModel = funnel.into();
        if let Some(name) = &body.name {
            changes.name = Set(service::parse_name(name)?);
        }
        if let Some(mode) = &body.mode {
            changes.mode = Set(Mode::parse(mode)?.as_str().into());
        }
        if let Some(steps) = &body.steps {
            changes.steps = Set(serde_json::json!(service::parse_steps(steps)?));
        }
        match body.within_hours {
            MaybeUndefined::Value(hours) => {
                changes.within_hours = Set(Some(service::parse_within_hours(hours)?))
            }
            MaybeUndefined::Null => changes.within_hours = Set(None),
            MaybeUndefined::Undefined => {}
        }
        changes.updated_at = Set(self.state.now());
        let funnel = changes
            .update(&self.state.db)
            .await
            .map_err(ApiError::from)?;
        Ok(Json(funnel_view(funnel)))
    }

    /// Conversion through one funnel, for the dashboard (any member): the same report as
    /// `GET /v1/funnels/{funnel_id}` with the same `from`, `to` and `environment` parameters.
    #[oai(
        path = "/:game_id/funnels/:funnel_id/report",
        method = "get",
        operation_id = "getFunnelReport"
    )]
    async fn report(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        funnel_id: Path<Uuid>,
        /// First day, `YYYY-MM-DD` (UTC).
        from: Query<Option<String>>,
        /// Last day, `YYYY-MM-DD` (UTC).
        to: Query<Option<String>>,
        /// Count only events sent with `development` or `production` keys (default: both).
        environment: Query<Option<String>>,
    ) -> poem::Result<Json<FunnelReport>> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Viewer).await?;
        let funnel = service::find(&self.state, game_id.0, funnel_id.0).await?;
        Ok(Json(
            build_report(
                &self.state,
                &funnel,
                from.0.as_deref(),
                to.0.as_deref(),
                environment.0.as_deref(),
            )
            .await?,
        ))
    }

    /// Delete a funnel (editor).
    #[oai(
        path = "/:game_id/funnels/:funnel_id",
        method = "delete",
        operation_id = "deleteFunnel"
    )]
    async fn delete(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        funnel_id: Path<Uuid>,
    ) -> poem::Result<FunnelDeleted> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Editor).await?;
        let funnel = service::find(&self.state, game_id.0, funnel_id.0).await?;
        funnels::Entity::delete_by_id(funnel.id)
            .exec(&self.state.db)
            .await
            .map_err(ApiError::from)?;
        Ok(FunnelDeleted::NoContent)
    }
}

#[OpenApi(prefix_path = "/v1/funnels", tag = "ApiTags::Funnels")]
impl FunnelsApi {
    /// The funnels defined for the key's game.
    #[oai(path = "/", method = "get", operation_id = "listFunnels")]
    async fn list(&self, auth: ApiKeyAuth) -> poem::Result<Json<FunnelList>> {
        let funnels = service::list(&self.state, auth.0.game_id).await?;
        Ok(Json(FunnelList {
            funnels: funnels.into_iter().map(funnel_view).collect(),
        }))
    }

    /// Conversion through one funnel over UTC days `from`..`to` (inclusive, `YYYY-MM-DD`).
    /// Without `to` the range ends today; without `from` it covers the 30 days up to `to`
    /// (at most 366 days). A user is the event's `player_id`, else its `session_id`.
    #[oai(path = "/:funnel_id", method = "get", operation_id = "getFunnel")]
    async fn get(
        &self,
        auth: ApiKeyAuth,
        funnel_id: Path<String>,
        /// First day, `YYYY-MM-DD` (UTC).
        from: Query<Option<String>>,
        /// Last day, `YYYY-MM-DD` (UTC).
        to: Query<Option<String>>,
        /// Count only events sent with `development` or `production` keys (default: both).
        environment: Query<Option<String>>,
    ) -> poem::Result<Json<FunnelReport>> {
        // A malformed id names no funnel: 404 like an unknown one.
        let funnel_id =
            Uuid::parse_str(&funnel_id.0).map_err(|_| ApiError::not_found("Funnel not found"))?;
        let funnel = service::find(&self.state, auth.0.game_id, funnel_id).await?;
        Ok(Json(
            build_report(
                &self.state,
                &funnel,
                from.0.as_deref(),
                to.0.as_deref(),
                environment.0.as_deref(),
            )
            .await?,
        ))
    }
}
