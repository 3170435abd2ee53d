//! `GET /v1/admin/users` and `GET /v1/admin/usage` (instance admin only).
use super::{service, AdminError};
use crate::events::{quota, writer::month_of};
use crate::games::service::monthly_quota;
use crate::http::schema::Timestamp;
use crate::words::{AccountStatus, Tier};
use crate::{accounts::service as accounts, auth::BearerAuth, http::ApiTags, state::AppState};
use poem_openapi::{param::Query, payload::Json, Object, OpenApi};

pub struct AdminApi {
    pub state: AppState,
}

/// An account on this server.
#[derive(Object)]
pub struct AdminUser {
    pub user_id: String,
    pub email: String,
    /// `active` or `pending` (invited, no password yet).
    pub status: AccountStatus,
    /// Whether the account is an instance admin.
    pub is_admin: bool,
    /// Games the account is a member of, in any role.
    pub games: u64,
    /// Games the account owns.
    pub owned_games: u64,
    pub created_at: Timestamp,
}

#[derive(Object)]
pub struct AdminUserPage {
    pub users: Vec<AdminUser>,
    /// Accounts on the server in all.
    pub total: u64,
    /// The `offset` of the next page; absent on the last.
    #[oai(skip_serializing_if_is_none)]
    pub next_offset: Option<u64>,
}

/// A game's events this month against its quota.
#[derive(Object)]
pub struct GameUsage {
    pub game_id: String,
    pub name: String,
    pub tier: Tier,
    /// Events counted this month (the count `/v1/track` enforces, as `GET
    /// /v1/games/{game_id}/usage` answers it).
    pub used: u64,
    /// The monthly quota: the tier's, or the one the admin set (`quota_set`).
    pub limit: u64,
    /// Events left this month.
    pub remaining: u64,
    pub quota_set: bool,
}

#[derive(Object)]
pub struct UsagePage {
    /// `YYYY-MM` (UTC).
    pub month: String,
    /// Games that stored the most events this month first.
    pub games: Vec<GameUsage>,
    /// Games on the server in all.
    pub total: u64,
    /// The `offset` of the next page; absent on the last.
    #[oai(skip_serializing_if_is_none)]
    pub next_offset: Option<u64>,
}

impl AdminApi {
    /// The caller, who must be an instance admin, and the page asked for.
    async fn admin_page(
        &self,
        auth: BearerAuth,
        limit: Option<u64>,
        offset: Option<u64>,
    ) -> Result<(u64, u64), AdminError> {
        let user = accounts::current_user(&self.state.db, auth.0).await?;
        if !user.is_admin {
            return Err(AdminError::NotAdmin);
        }
        let limit = limit.unwrap_or(50);
        if !(1..=100).contains(&limit) {
            return Err(AdminError::InvalidLimit);
        }
        Ok((limit, offset.unwrap_or(0)))
    }
}

fn next_offset(offset: u64, shown: usize, total: u64) -> Option<u64> {
    let next = offset + shown as u64;
    (shown > 0 && next < total).then_some(next)
}

/// What each operation here answers beyond the universal statuses (`http::error_responses`):
/// 403: not the instance admin.
pub const STATUSES: crate::http::Statuses = crate::http::statuses! {
    adminListUsers: [403],
    adminListUsage: [403],
};

#[OpenApi(prefix_path = "/v1/admin", tag = "ApiTags::Admin")]
impl AdminApi {
    /// Every account on this server, oldest first, with the games each is in (instance admin
    /// only). `limit` 1 to 100 (default 50), `offset` from 0.
    #[oai(path = "/users", method = "get", operation_id = "adminListUsers")]
    async fn users(
        &self,
        auth: BearerAuth,
        limit: Query<Option<u64>>,
        offset: Query<Option<u64>>,
    ) -> poem::Result<Json<AdminUserPage>> {
        let (limit, offset) = self.admin_page(auth, limit.0, offset.0).await?;
        let page = service::users(&self.state.db, offset, limit).await?;
        let users = page
            .rows
            .into_iter()
            .map(|row| {
                Ok(AdminUser {
                    user_id: row.user.id.to_string(),
                    status: AccountStatus::stored(&row.user.status)?,
                    email: row.user.email,
                    is_admin: row.user.is_admin,
                    games: row.games,
                    owned_games: row.owned_games,
                    created_at: Timestamp::from(row.user.created_at),
                })
            })
            .collect::<Result<Vec<_>, AdminError>>()?;
        Ok(Json(AdminUserPage {
            next_offset: next_offset(offset, users.len(), page.total),
            total: page.total,
            users,
        }))
    }

    /// Every game's events this UTC month against its quota, the busiest first (instance admin
    /// only). `limit` 1 to 100 (default 50), `offset` from 0.
    #[oai(path = "/usage", method = "get", operation_id = "adminListUsage")]
    async fn usage(
        &self,
        auth: BearerAuth,
        limit: Query<Option<u64>>,
        offset: Query<Option<u64>>,
    ) -> poem::Result<Json<UsagePage>> {
        let (limit, offset) = self.admin_page(auth, limit.0, offset.0).await?;
        let month = month_of(self.state.now());
        let page = service::games_by_usage(&self.state.db, &month, offset, limit).await?;
        let mut games = Vec::with_capacity(page.rows.len());
        for (game, _stored) in page.rows {
            // The enforced count (the hot counter, which also holds requests in flight), so
            // the figure is the one the game's own usage page shows.
            let used = quota::used(&self.state, game.id, &month)
                .await
                .map_err(AdminError::from)?;
            let tier = Tier::stored(&game.tier).map_err(AdminError::from)?;
            let limit = monthly_quota(tier, game.event_quota);
            games.push(GameUsage {
                game_id: game.id.to_string(),
                name: game.name,
                tier,
                used,
                limit,
                remaining: limit.saturating_sub(used),
                quota_set: game.event_quota.is_some(),
            });
        }
        Ok(Json(UsagePage {
            month,
            next_offset: next_offset(offset, games.len(), page.total),
            total: page.total,
            games,
        }))
    }
}
