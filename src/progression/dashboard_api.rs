//! `GET /v1/games/{game_id}/progression`: the steps of the game with their starts, completes,
//! fails, fail rate and attempts to complete (dashboard, members).
use super::service;
use crate::{
    auth::BearerAuth,
    error::ApiError,
    games::{access::Role, require_role},
    http::ApiTags,
    query,
    state::AppState,
    words::Environment,
};
use poem_openapi::{
    param::{Path, Query},
    payload::Json,
    Object, OpenApi,
};
use uuid::Uuid;

pub struct ProgressionApi {
    pub state: AppState,
}

/// One step of the game: a path of one to three levels (`level1` / `level2` / `level3`).
#[derive(Object)]
pub struct ProgressionStep {
    /// The step's level names, outermost first (e.g. `["world 1", "level 3"]`).
    pub levels: Vec<String>,
    /// `progression` events with `status` `start`.
    pub starts: u64,
    /// ... `complete`.
    pub completes: u64,
    /// ... `fail`.
    pub fails: u64,
    /// Fails as a percent of completes plus fails (two decimals); null when there are neither.
    #[oai(nullable)]
    pub fail_rate: Option<f64>,
    /// Average `attempt` of the completes that sent one (two decimals); null when none did.
    #[oai(nullable)]
    pub average_attempts: Option<f64>,
}

/// The progression steps over a range of UTC days.
#[derive(Object)]
pub struct ProgressionReport {
    pub from: String,
    pub to: String,
    #[oai(nullable)]
    pub environment: Option<Environment>,
    /// Every step with events in the range, ordered by level names (numbers as numbers).
    pub steps: Vec<ProgressionStep>,
}

/// What each operation here answers beyond the universal statuses (`http::error_responses`):
/// 403: not a member of the game.
pub const STATUSES: crate::http::Statuses = crate::http::statuses! {
    getGameProgression: [403],
};

#[OpenApi(prefix_path = "/v1/games", tag = "ApiTags::Analytics")]
impl ProgressionApi {
    /// Progression of the game (any member): for each step (the `level1`..`level3` path of
    /// `progression` events) the starts, completes and fails in the range, the fail rate and
    /// the average attempts to complete. `from`/`to` are UTC days `YYYY-MM-DD`, inclusive
    /// (default: the 30 days up to today; at most 366 days). Only events of the documented
    /// shape count (`docs/events.md`).
    #[oai(
        path = "/:game_id/progression",
        method = "get",
        operation_id = "getGameProgression"
    )]
    async fn progression(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        /// First day, `YYYY-MM-DD` (UTC).
        from: Query<Option<String>>,
        /// Last day, `YYYY-MM-DD` (UTC).
        to: Query<Option<String>>,
        /// Only events sent with `development` or `production` keys (default: both).
        environment: Query<Option<String>>,
    ) -> poem::Result<Json<ProgressionReport>> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Viewer).await?;
        let (from, to, environment) =
            query::report_days(&from.0, &to.0, &environment.0, self.state.now())?;
        let steps = service::steps(
            &self.state.db,
            game_id.0,
            environment.map(Environment::as_str),
            from,
            to,
        )
        .await
        .map_err(ApiError::from)?;
        Ok(Json(ProgressionReport {
            from: from.to_string(),
            to: to.to_string(),
            environment,
            steps: steps
                .into_iter()
                .map(|step| ProgressionStep {
                    levels: step.levels,
                    starts: step.starts,
                    completes: step.completes,
                    fails: step.fails,
                    fail_rate: step.fail_rate,
                    average_attempts: step.average_attempts,
                })
                .collect(),
        }))
    }
}
