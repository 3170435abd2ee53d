//! Activity and presence routes of the game side (API key): `POST|DELETE /v1/activity` and
//! `GET /v1/presence[/{player_id}]`.
use super::service::{
    self, parse_activity, parse_details, parse_page, parse_session_id, parse_status, PresenceError,
};
use crate::player_id::PlayerId;
use crate::words::{PresenceStatus, Word};
use crate::{
    auth::ApiKeyAuth,
    http::NoContent,
    http::{timestamp, ApiTags},
    state::AppState,
    store::hot::presence::{PresenceEntry, PresencePage},
};
use poem_openapi::{
    param::{Path, Query},
    payload::Json,
    Object, OpenApi,
};
use serde_json::Value;
use uuid::Uuid;

pub struct PresenceApi {
    pub state: AppState,
}

#[derive(Object)]
#[oai(deny_unknown_fields)]
pub struct SetActivity {
    /// 1 to 128 characters.
    pub player_id: String,
    /// Up to 128 characters.
    #[oai(nullable)]
    pub session_id: Option<String>,
    /// What the player is doing, 1 to 256 characters.
    pub activity: String,
    /// Structured activity data: a JSON object of at most 8 KiB.
    #[oai(nullable)]
    pub details: Option<Value>,
    /// `details` under the name reads answer with (`data`): send one or the other, not both.
    #[oai(nullable)]
    pub data: Option<Value>,
    /// `playing` (default), `waiting` or `idle`.
    #[oai(nullable)]
    pub status: Option<Word<PresenceStatus>>,
}

#[derive(Object)]
#[oai(deny_unknown_fields)]
pub struct ClearActivity {
    pub player_id: String,
}

#[derive(Object)]
pub struct Success {
    pub success: bool,
}

/// A player's presence.
#[derive(Object)]
pub struct PresenceItem {
    pub player_id: String,
    /// `playing`, `waiting`, `idle`, or `offline` after 10 minutes without an update.
    pub status: PresenceStatus,
    pub activity: String,
    /// The activity's `details`.
    pub data: Value,
    pub last_updated: String,
}

#[derive(Object)]
pub struct PresenceList {
    /// Players not offline (of the requested status), over every page.
    pub active_count: u64,
    /// This page, most recently updated first.
    pub players: Vec<PresenceItem>,
}

/// What each operation here answers beyond the universal statuses (`http::error_responses`):
/// 404: a player with no presence.
pub const STATUSES: crate::http::Statuses = crate::http::statuses! {
    setActivity: [],
    clearActivity: [],
    listPresence: [],
    getPresence: [404],
};

#[OpenApi(prefix_path = "/v1", tag = "ApiTags::Presence")]
impl PresenceApi {
    /// Set what a player is doing now (rich presence).
    ///
    /// Refreshes the player's presence; a player without an update for 10 minutes reads as
    /// offline.
    #[oai(path = "/activity", method = "post", operation_id = "setActivity")]
    async fn set_activity(
        &self,
        auth: ApiKeyAuth,
        body: Json<SetActivity>,
    ) -> poem::Result<Json<Success>> {
        let body = body.0;
        let player_id = PlayerId::parse(&body.player_id)
            .map_err(PresenceError::from)?
            .into_string();
        auth.acts_as(&player_id)?;
        let entry = PresenceEntry {
            player_id,
            session_id: parse_session_id(body.session_id)?,
            status: parse_status(body.status.as_ref().map(|word| word.0.as_str()))?,
            activity: parse_activity(&body.activity)?,
            data: parse_details(match (body.details, body.data) {
                (Some(_), Some(_)) => return Err(PresenceError::DetailsTwice.into()),
                (details, None) => details,
                (None, data) => data,
            })?,
            updated_at: self.state.now(),
        };
        self.state
            .hot
            .presence
            .set(
                auth.0.game_id,
                &entry,
                &super::feed::updated_message(&entry),
            )
            .await
            .map_err(crate::error::ApiError::from)?;
        Ok(Json(Success { success: true }))
    }

    /// Clear a player's activity (e.g. on quit). 204 whether or not there was one.
    #[oai(path = "/activity", method = "delete", operation_id = "clearActivity")]
    async fn clear_activity(
        &self,
        auth: ApiKeyAuth,
        body: Json<ClearActivity>,
    ) -> poem::Result<NoContent> {
        let player_id = PlayerId::parse(&body.player_id)
            .map_err(PresenceError::from)?
            .into_string();
        auth.acts_as(&player_id)?;
        self.state
            .hot
            .presence
            .clear(
                auth.0.game_id,
                &player_id,
                &super::feed::cleared_message(&player_id, self.state.now()),
            )
            .await
            .map_err(crate::error::ApiError::from)?;
        Ok(NoContent::Done)
    }

    /// Players who are not offline, most recently updated first.
    ///
    /// Optionally of one status. Paged: `limit` 1 to 1000 (default 100), `offset` (default 0);
    /// `active_count` counts every page.
    #[oai(path = "/presence", method = "get", operation_id = "listPresence")]
    async fn list_presence(
        &self,
        auth: ApiKeyAuth,
        /// `playing`, `waiting` or `idle`.
        status: Query<Option<String>>,
        limit: Query<Option<i64>>,
        offset: Query<Option<i64>>,
    ) -> poem::Result<Json<PresenceList>> {
        auth.may_read_reports()?;
        let status = status
            .0
            .as_deref()
            .map(|raw| parse_status(Some(raw)))
            .transpose()?;
        let (limit, offset) = parse_page(limit.0, offset.0)?;
        let now = self.state.now();
        let page = page(&self.state, auth.0.game_id, status, offset, limit).await?;
        Ok(Json(PresenceList {
            active_count: page.active_count,
            players: page
                .entries
                .into_iter()
                .map(|entry| presence_item(entry, now))
                .collect(),
        }))
    }

    /// One player's presence.
    ///
    /// `offline` after 10 minutes of silence; kept for 24 hours after the last update; 404 for
    /// a player with no presence.
    #[oai(
        path = "/presence/:player_id",
        method = "get",
        operation_id = "getPresence"
    )]
    async fn get_presence(
        &self,
        auth: ApiKeyAuth,
        player_id: Path<String>,
    ) -> poem::Result<Json<PresenceItem>> {
        let player = PlayerId::parse(&player_id.0).map_err(PresenceError::from)?;
        let now = self.state.now();
        let entry = self
            .state
            .hot
            .presence
            .get(auth.0.game_id, player.as_str(), now)
            .await
            .map_err(crate::error::ApiError::from)?
            .ok_or(service::PresenceError::UnknownPlayer)?;
        Ok(Json(presence_item(entry, now)))
    }
}

/// A page of the game's active entries, newest first.
pub(super) async fn page(
    state: &AppState,
    game_id: Uuid,
    status: Option<crate::store::hot::presence::PresenceStatus>,
    offset: u64,
    limit: u64,
) -> Result<PresencePage, crate::error::ApiError> {
    Ok(state
        .hot
        .presence
        .active(game_id, status, state.now(), offset, limit)
        .await?)
}

fn presence_item(entry: PresenceEntry, now: chrono::DateTime<chrono::Utc>) -> PresenceItem {
    PresenceItem {
        status: entry.status_at(now),
        last_updated: timestamp(entry.updated_at),
        player_id: entry.player_id,
        activity: entry.activity,
        data: entry.data,
    }
}
