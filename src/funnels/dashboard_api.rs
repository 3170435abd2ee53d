//! Funnel definitions under `/v1/games/{game_id}/funnels` (dashboard, JWT): editors write,
//! members read, and any member reads a funnel's report.
use super::{
    service::{self, FunnelChanges, Mode, NewFunnel},
    views::{self, funnel_view, Funnel, FunnelList, FunnelReport},
    FunnelError,
};
use crate::words::{FunnelMode, Word};
use crate::{
    auth::BearerAuth,
    games::{access::Role, require_role},
    http::ApiTags,
    http::NoContent,
    state::AppState,
};
use poem_openapi::{
    param::{Path, Query},
    payload::Json,
    types::MaybeUndefined,
    ApiResponse, Object, OpenApi,
};
use uuid::Uuid;

pub struct FunnelDefinitionsApi {
    pub state: AppState,
}

#[derive(Object)]
#[oai(deny_unknown_fields)]
pub struct CreateFunnel {
    /// 1 to 100 characters.
    pub name: String,
    /// `loose` (default): steps in any order, repeats counted once. `strict`: each step after
    /// the previous one.
    #[oai(nullable)]
    pub mode: Option<Word<FunnelMode>>,
    /// 2 to 20 event names, in funnel order.
    pub steps: Vec<String>,
    /// Optional conversion window in hours (1 to 8760), counted from the user's first step-1
    /// event in the range.
    #[oai(nullable)]
    pub within_hours: Option<i64>,
}

#[derive(Object)]
#[oai(deny_unknown_fields)]
pub struct UpdateFunnel {
    #[oai(nullable)]
    pub name: Option<String>,
    #[oai(nullable)]
    pub mode: Option<Word<FunnelMode>>,
    #[oai(nullable)]
    pub steps: Option<Vec<String>>,
    /// A number sets the window; `null` removes it.
    #[oai(nullable)]
    pub within_hours: MaybeUndefined<i64>,
}

#[derive(ApiResponse)]
pub enum FunnelCreated {
    #[oai(status = 201)]
    Created(Json<Funnel>),
}

/// What each operation here answers beyond the universal statuses (`http::error_responses`):
/// 403: not a member, or a role below the one needed; 404: an unknown funnel; 409: the game has
/// the most funnels it may.
pub const STATUSES: crate::http::Statuses = crate::http::statuses! {
    createFunnel: [403, 409],
    listFunnelDefinitions: [403],
    getFunnelDefinition: [403, 404],
    updateFunnel: [403, 404],
    getFunnelReport: [403, 404],
    deleteFunnel: [403, 404],
};

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
        let mode = body
            .mode
            .as_ref()
            .map_or(Ok(Mode::Loose), Word::parse)
            .map_err(FunnelError::from)?;
        let steps = service::parse_steps(&body.steps)?;
        let within_hours = body
            .within_hours
            .map(service::parse_within_hours)
            .transpose()?;
        let funnel = service::create(
            &self.state,
            game_id.0,
            NewFunnel {
                name,
                mode,
                steps,
                within_hours,
            },
        )
        .await?;
        Ok(FunnelCreated::Created(Json(funnel_view(funnel)?)))
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
            funnels: funnels
                .into_iter()
                .map(funnel_view)
                .collect::<Result<_, _>>()?,
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
        )?))
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
        let changes = FunnelChanges {
            name: body.name.as_deref().map(service::parse_name).transpose()?,
            mode: body
                .mode
                .as_ref()
                .map(Word::parse)
                .transpose()
                .map_err(FunnelError::from)?,
            steps: body
                .steps
                .as_deref()
                .map(service::parse_steps)
                .transpose()?,
            within_hours: match body.within_hours {
                MaybeUndefined::Value(hours) => Some(Some(service::parse_within_hours(hours)?)),
                MaybeUndefined::Null => Some(None),
                MaybeUndefined::Undefined => None,
            },
        };
        let funnel = service::update(&self.state, funnel, changes).await?;
        Ok(Json(funnel_view(funnel)?))
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
            views::report(
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
    ) -> poem::Result<NoContent> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Editor).await?;
        service::delete(&self.state, game_id.0, funnel_id.0).await?;
        Ok(NoContent::Done)
    }
}
