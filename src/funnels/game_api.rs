//! Funnel reports under `/v1/funnels` (game side, API key).
use super::{
    service,
    views::{self, funnel_view, FunnelList, FunnelReport},
    FunnelError,
};
use crate::{auth::ApiKeyAuth, http::ApiTags, state::AppState};
use poem_openapi::{
    param::{Path, Query},
    payload::Json,
    OpenApi,
};
use uuid::Uuid;

pub struct FunnelsApi {
    pub state: AppState,
}

/// What each operation here answers beyond the universal statuses (`http::error_responses`):
/// 404: an unknown funnel.
pub const STATUSES: crate::http::Statuses = crate::http::statuses! {
    listFunnelsWithKey: [],
    getFunnelReportWithKey: [404],
};

#[OpenApi(prefix_path = "/v1/funnels", tag = "ApiTags::Funnels")]
impl FunnelsApi {
    /// The funnels defined for the key's game.
    #[oai(path = "/", method = "get", operation_id = "listFunnelsWithKey")]
    async fn list(&self, auth: ApiKeyAuth) -> poem::Result<Json<FunnelList>> {
        auth.may_read_reports()?;
        let funnels = service::list(&self.state, auth.0.game_id).await?;
        Ok(Json(FunnelList {
            funnels: funnels
                .into_iter()
                .map(funnel_view)
                .collect::<Result<_, _>>()?,
        }))
    }

    /// Conversion through one funnel over UTC days `from`..`to` (inclusive, `YYYY-MM-DD`).
    /// Without `to` the range ends today; without `from` it covers the 30 days up to `to`
    /// (at most 366 days). A user is the event's `player_id`, else its `session_id`.
    #[oai(
        path = "/:funnel_id",
        method = "get",
        operation_id = "getFunnelReportWithKey"
    )]
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
        auth.may_read_reports()?;
        // A malformed id names no funnel: 404 like an unknown one.
        let funnel_id = Uuid::parse_str(&funnel_id.0).map_err(|_| FunnelError::NotFound)?;
        let funnel = service::find(&self.state, auth.0.game_id, funnel_id).await?;
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
}
