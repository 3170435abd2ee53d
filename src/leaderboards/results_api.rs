//! `GET /v1/games/{game_id}/leaderboards/{board_name}/deliveries` (JWT, viewer): the history
//! of a board's results webhook deliveries (see `results.rs`).
use super::{
    boards::{self, BoardName},
    error::LeaderboardError,
    results,
};
use crate::{
    auth::BearerAuth,
    games::{require_role, Role},
    http::{schema::Timestamp, ApiTags},
    state::AppState,
    words::{ResultsDeliveryStatus, ResultsReason},
};
use poem_openapi::{param::Path, payload::Json, Object, OpenApi};
use uuid::Uuid;

/// Deliveries the history shows: the newest.
pub const HISTORY_LIMIT: u64 = 100;

pub struct LeaderboardResultsApi {
    pub state: AppState,
}

#[derive(Object)]
pub struct ResultDelivery {
    /// Also the `Idempotency-Key` header of every attempt.
    pub id: Uuid,
    /// The key of the period whose results it carries.
    pub period: String,
    /// `period_end`, `manual_reset` or `tournament_end`.
    pub reason: ResultsReason,
    /// `pending` (to be sent or retried), `delivered` or `failed` (given up after 10 attempts).
    pub status: ResultsDeliveryStatus,
    pub attempts: u32,
    /// Why the last failed attempt failed (never the receiver's response body).
    #[oai(nullable)]
    pub last_error: Option<String>,
    /// When the next attempt is due; null once delivered or failed.
    #[oai(nullable)]
    pub next_attempt_at: Option<Timestamp>,
    #[oai(nullable)]
    pub delivered_at: Option<Timestamp>,
    pub created_at: Timestamp,
}

#[derive(Object)]
pub struct ResultDeliveries {
    /// Newest first, at most 100.
    pub deliveries: Vec<ResultDelivery>,
}

/// What each operation here answers beyond the universal statuses (`http::error_responses`):
/// 403: not a member of the game; 404: an unknown board.
pub const STATUSES: crate::http::Statuses = crate::http::statuses! {
    listLeaderboardResultDeliveries: [403, 404],
};

#[OpenApi(prefix_path = "/v1/games", tag = "ApiTags::Leaderboards")]
impl LeaderboardResultsApi {
    /// A board's results webhook deliveries (viewer), newest first: one per period that ended
    /// after the webhook was set, with its status, attempts and last error.
    #[oai(
        path = "/:game_id/leaderboards/:board_name/deliveries",
        method = "get",
        operation_id = "listLeaderboardResultDeliveries"
    )]
    async fn deliveries(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        board_name: Path<String>,
    ) -> poem::Result<Json<ResultDeliveries>> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Viewer).await?;
        let name = BoardName::parse(&board_name.0)?;
        let board = boards::get(&self.state, game_id.0, &name).await?;
        let rows = results::history(&self.state, &board, HISTORY_LIMIT).await?;
        let mut deliveries = Vec::with_capacity(rows.len());
        for row in rows {
            let status =
                ResultsDeliveryStatus::stored(&row.status).map_err(LeaderboardError::from)?;
            deliveries.push(ResultDelivery {
                id: row.id,
                period: row.period,
                reason: ResultsReason::stored(&row.reason).map_err(LeaderboardError::from)?,
                status,
                attempts: row.attempts.max(0) as u32,
                last_error: row.last_error,
                next_attempt_at: (status == ResultsDeliveryStatus::Pending)
                    .then(|| Timestamp::from(row.next_attempt_at)),
                delivered_at: row.delivered_at.map(Timestamp::from),
                created_at: Timestamp::from(row.created_at),
            });
        }
        Ok(Json(ResultDeliveries { deliveries }))
    }
}
