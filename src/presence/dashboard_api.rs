//! Activity routes of the dashboard (JWT): `GET /v1/activity/live` and the WebSocket
//! `GET /v1/activity/stream`.
use super::{
    game_api::page,
    service::{parse_page, parse_status},
    stream,
};
use crate::http::schema::Timestamp;
use crate::words::PresenceStatus;
use crate::{
    auth::BearerAuth,
    games::{access::Role, require_role},
    http::ApiTags,
    state::AppState,
};
use poem::web::websocket::{BoxWebSocketUpgraded, WebSocket};
use poem_openapi::{param::Query, payload::Json, Object, OpenApi};
use serde_json::Value;
use uuid::Uuid;

pub struct LiveActivityApi {
    pub state: AppState,
}

#[derive(Object)]
pub struct LiveActivity {
    pub player_id: String,
    /// `playing`, `waiting` or `idle`.
    pub status: PresenceStatus,
    pub activity: String,
    pub details: Value,
    pub updated_at: Timestamp,
}

/// What each operation here answers beyond the universal statuses (`http::error_responses`):
/// 403: not a member of the game.
pub const STATUSES: crate::http::Statuses = crate::http::statuses! {
    listLiveActivity: [403],
    streamActivity: [403],
};

#[OpenApi(prefix_path = "/v1", tag = "ApiTags::Presence")]
impl LiveActivityApi {
    /// The game's live activity (any member).
    ///
    /// Players who are not offline, most recently updated first; optionally only those of one
    /// `status`. Paged like `GET /v1/presence`: `limit` 1 to 1000 (default 100), `offset`.
    #[oai(
        path = "/activity/live",
        method = "get",
        operation_id = "listLiveActivity"
    )]
    async fn live(
        &self,
        auth: BearerAuth,
        game_id: Query<Uuid>,
        /// `playing`, `waiting` or `idle`.
        status: Query<Option<String>>,
        limit: Query<Option<i64>>,
        offset: Query<Option<i64>>,
    ) -> poem::Result<Json<Vec<LiveActivity>>> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Viewer).await?;
        let status = status
            .0
            .as_deref()
            .map(|raw| parse_status(Some(raw)))
            .transpose()?;
        let (limit, offset) = parse_page(limit.0, offset.0)?;
        let now = self.state.now();
        let page = page(&self.state, game_id.0, status, offset, limit).await?;
        Ok(Json(
            page.entries
                .into_iter()
                .map(|entry| LiveActivity {
                    status: entry.status_at(now),
                    player_id: entry.player_id,
                    activity: entry.activity,
                    details: entry.data,
                    updated_at: Timestamp::from(entry.updated_at),
                })
                .collect(),
        ))
    }

    /// WebSocket feed of the game's presence (any member), from every API node.
    ///
    /// Each text message is a JSON object `{type, player_id, ...}`: `activity.updated` (with status,
    /// activity, details, session_id, updated_at), `activity.cleared` (cleared_at) or
    /// `presence.offline` (last_updated). Browsers, which cannot set headers on a WebSocket,
    /// pass the token as `access_token`.
    #[oai(
        path = "/activity/stream",
        method = "get",
        operation_id = "streamActivity"
    )]
    async fn stream(
        &self,
        auth: BearerAuth,
        game_id: Query<Uuid>,
        /// The dashboard JWT, instead of the Authorization header.
        #[oai(name = "access_token")]
        _access_token: Query<Option<String>>,
        websocket: WebSocket,
    ) -> poem::Result<BoxWebSocketUpgraded> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Viewer).await?;
        let cap = self.state.settings.max_feeds_per_user;
        let slot = self
            .state
            .parts
            .feeds
            .take(auth.0, cap)
            .ok_or_else(|| {
                crate::error::ApiError::with_status(
                    429,
                    format!(
                        "Too many live feeds open: at most {cap} per user on a node; close another dashboard tab"
                    ),
                )
            })?;
        let access = stream::Access {
            state: self.state.clone(),
            user_id: auth.0,
            game_id: game_id.0,
        };
        let subscription = self
            .state
            .hot
            .presence
            .subscribe(game_id.0)
            .await
            .map_err(crate::error::ApiError::from)?;
        Ok(websocket
            .on_upgrade(move |socket| stream::pump(socket, subscription, access, slot))
            .boxed())
    }
}
