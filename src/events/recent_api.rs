//! `GET /v1/games/{game_id}/events` (recent events, by cursor) and
//! `GET /v1/games/{game_id}/events/counts` (events per name over UTC days): what the dashboard
//! reads of a game's stored events (any member).
use super::recent::{self, Cursor, Filter};
use crate::http::schema::Timestamp;
use crate::words::{CorruptWord, Environment};
use crate::{
    auth::BearerAuth,
    games::{require_role, Role},
    http::ApiTags,
    query,
    state::AppState,
};
use chrono::Duration;
use entity::events;
use poem_openapi::{
    param::{Path, Query},
    payload::Json,
    Object, OpenApi,
};
use serde_json::Value;
use uuid::Uuid;

pub struct EventsApi {
    pub state: AppState,
}

/// A stored event.
#[derive(Object)]
pub struct StoredEvent {
    /// The event's id, given when it was stored.
    pub id: String,
    /// The client's `event_id` (its retry key), when it sent one.
    #[oai(nullable)]
    pub event_id: Option<String>,
    pub event_name: String,
    #[oai(nullable)]
    pub player_id: Option<String>,
    pub session_id: String,
    /// `development` or `production`: the environment of the API key that sent it.
    pub environment: Environment,
    /// The event's `properties` (a JSON object).
    pub properties: Value,
    /// `client_timestamp`, or the receive time when there was none (or it was more than 5
    /// minutes ahead).
    pub occurred_at: Timestamp,
    pub received_at: Timestamp,
}

#[derive(Object)]
pub struct RecentEvents {
    /// Newest first (by `occurred_at`).
    pub events: Vec<StoredEvent>,
    /// Pass as `before` for the next page; null on the last page.
    #[oai(nullable)]
    pub next_before: Option<String>,
}

#[derive(Object)]
pub struct EventNameCount {
    pub event_name: String,
    pub count: u64,
}

#[derive(Object)]
pub struct EventCounts {
    pub from: String,
    pub to: String,
    #[oai(nullable)]
    pub environment: Option<Environment>,
    /// Every event of the range.
    pub total: u64,
    /// One item per event name, the most frequent first, then by name.
    pub counts: Vec<EventNameCount>,
}

pub fn stored_event_view(row: events::Model) -> Result<StoredEvent, CorruptWord> {
    Ok(StoredEvent {
        id: row.id.to_string(),
        event_id: row.event_id,
        event_name: row.event_name,
        player_id: row.player_id,
        session_id: row.session_id,
        environment: Environment::stored(&row.environment)?,
        properties: row.properties,
        occurred_at: Timestamp::from(row.occurred_at),
        received_at: Timestamp::from(row.received_at),
    })
}

/// What each operation here answers beyond the universal statuses (`http::error_responses`):
/// 403: not a member of the game.
pub const STATUSES: crate::http::Statuses = crate::http::statuses! {
    listRecentEvents: [403],
    countEventsByName: [403],
};

#[OpenApi(prefix_path = "/v1/games", tag = "ApiTags::Events")]
impl EventsApi {
    /// The game's recent events, newest first (any member).
    ///
    /// Ordered by `occurred_at`, then id. Paged by cursor: `limit` 1 to 200 (default 50); pass
    /// a page's `next_before` as `before` for the next one (events stored meanwhile never
    /// repeat or shift a page). Optionally only one `event_name`, `player_id` or `environment`.
    #[oai(
        path = "/:game_id/events",
        method = "get",
        operation_id = "listRecentEvents"
    )]
    #[allow(clippy::too_many_arguments)] // one argument per query parameter
    async fn list(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        /// 1 to 200 (default 50).
        limit: Query<Option<i64>>,
        /// The `next_before` of the previous page.
        before: Query<Option<String>>,
        event_name: Query<Option<String>>,
        player_id: Query<Option<String>>,
        /// `development` or `production` (default: both).
        environment: Query<Option<String>>,
    ) -> poem::Result<Json<RecentEvents>> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Viewer).await?;
        let limit = recent::parse_page_size(limit.0)?;
        let before = before.0.as_deref().map(Cursor::decode).transpose()?;
        let filter = Filter::parse(event_name.0, player_id.0, environment.0.as_deref())?;
        let (rows, next) = recent::page(&self.state.db, game_id.0, &filter, before, limit)
            .await
            .map_err(crate::error::ApiError::from)?;
        Ok(Json(RecentEvents {
            events: rows
                .into_iter()
                .map(stored_event_view)
                .collect::<Result<_, _>>()?,
            next_before: next.map(|cursor| cursor.encode()),
        }))
    }

    /// Events per name over a range of UTC days (any member).
    ///
    /// `from`/`to` are `YYYY-MM-DD`, inclusive, by `occurred_at` (default: the 30 days up to
    /// today; at most 366 days), as for `GET /v1/games/{game_id}/metrics`.
    #[oai(
        path = "/:game_id/events/counts",
        method = "get",
        operation_id = "countEventsByName"
    )]
    async fn counts(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        /// First day, `YYYY-MM-DD` (UTC).
        from: Query<Option<String>>,
        /// Last day, `YYYY-MM-DD` (UTC).
        to: Query<Option<String>>,
        /// Only events sent with `development` or `production` keys (default: both).
        environment: Query<Option<String>>,
    ) -> poem::Result<Json<EventCounts>> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Viewer).await?;
        let environment = query::parse_optional_environment(environment.0.as_deref())?;
        let (from, to) = query::day_range(
            from.0.as_deref(),
            to.0.as_deref(),
            self.state.now().date_naive(),
            query::DEFAULT_DAYS,
            query::MAX_DAYS,
        )?;
        let counts = recent::counts(
            &self.state.db,
            game_id.0,
            environment.map(Environment::as_str),
            query::midnight(from),
            query::midnight(to) + Duration::days(1),
        )
        .await
        .map_err(crate::error::ApiError::from)?;
        Ok(Json(EventCounts {
            from: from.to_string(),
            to: to.to_string(),
            environment,
            total: counts.iter().map(|(_, count)| count).sum(),
            counts: counts
                .into_iter()
                .map(|(event_name, count)| EventNameCount { event_name, count })
                .collect(),
        }))
    }
}
