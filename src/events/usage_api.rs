//! `GET /v1/games/{game_id}/usage`: the game's event quota this month (dashboard, any member),
//! read from the counter `/v1/track` reserves against.
use super::{quota, writer::month_of};
use crate::words::Tier;
use crate::{
    auth::BearerAuth,
    games::{require_role, service::monthly_quota, Role},
    http::ApiTags,
    state::AppState,
};
use poem_openapi::{param::Path, payload::Json, Object, OpenApi};
use uuid::Uuid;

pub struct UsageApi {
    pub state: AppState,
}

/// A game's event quota in the current UTC month.
#[derive(Object)]
pub struct QuotaUsage {
    /// `YYYY-MM` (UTC).
    pub month: String,
    /// The game's tier, which sets `limit` unless the instance admin set a quota.
    pub tier: Tier,
    /// Events counted this month (development and production keys together).
    pub used: u64,
    /// Monthly event limit: the tier's, or the one the instance admin set for the game.
    pub limit: u64,
    /// Events left this month (0 when a lower tier's limit is below `used`).
    pub remaining: u64,
}

/// What each operation here answers beyond the universal statuses (`http::error_responses`):
/// 403: not a member of the game.
pub const STATUSES: crate::http::Statuses = crate::http::statuses! {
    getGameUsage: [403],
};

#[OpenApi(prefix_path = "/v1/games", tag = "ApiTags::Games")]
impl UsageApi {
    /// The game's event quota this UTC month (any member): the count `/v1/track` enforces,
    /// the same on every node.
    #[oai(
        path = "/:game_id/usage",
        method = "get",
        operation_id = "getGameUsage"
    )]
    async fn usage(&self, auth: BearerAuth, game_id: Path<Uuid>) -> poem::Result<Json<QuotaUsage>> {
        let access = require_role(&self.state.db, auth.0, game_id.0, Role::Viewer).await?;
        let month = month_of(self.state.now());
        let used = quota::used(&self.state, game_id.0, &month)
            .await
            .map_err(crate::error::ApiError::from)?;
        let tier = Tier::stored(&access.game.tier)?;
        let limit = monthly_quota(tier, access.game.event_quota);
        Ok(Json(QuotaUsage {
            month,
            tier,
            used,
            limit,
            remaining: limit.saturating_sub(used),
        }))
    }
}
