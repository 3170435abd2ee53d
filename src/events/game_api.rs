//! `POST /v1/track`: games send analytics events.
use super::{schemas::Violation, service};
use crate::{auth::ApiKeyAuth, http::ApiTags, state::AppState};
use poem_openapi::{payload::Json, ApiResponse, Object, OpenApi};

pub struct TrackApi {
    pub state: AppState,
}

/// The game's monthly event quota after this request.
#[derive(Object)]
pub struct QuotaStatus {
    /// Events left this UTC month.
    pub remaining: u64,
    /// Monthly event limit of the game's tier.
    pub limit: u64,
}

/// An event that does not match the event schema of its name.
#[derive(Object)]
pub struct SchemaViolation {
    /// Position of the event in the request (0 for a single event).
    pub index: u64,
    pub event_name: String,
    pub message: String,
}

#[derive(Object)]
pub struct TrackAccepted {
    /// Events accepted by this request (a retried `event_id` is accepted, stored once).
    pub received: u64,
    pub quota: QuotaStatus,
    /// Present in `warn` validation mode when some stored events break their schema.
    #[oai(skip_serializing_if_is_none)]
    #[oai(nullable)]
    pub warnings: Option<Vec<SchemaViolation>>,
}

#[derive(ApiResponse)]
pub enum Tracked {
    /// Committed to the cold store.
    #[oai(status = 202)]
    Accepted(Json<TrackAccepted>),
}

pub fn violation_view(violation: Violation) -> SchemaViolation {
    SchemaViolation {
        index: violation.index as u64,
        event_name: violation.event_name,
        message: violation.message,
    }
}

#[OpenApi(prefix_path = "/v1/track", tag = "ApiTags::Events")]
impl TrackApi {
    /// Send one event or an array of up to 100 events.
    ///
    /// Each event: `event_name` (required, 1-128 characters), `session_id` (required),
    /// `player_id`, `properties` (object), `client_timestamp` (ISO 8601) and `event_id` (up to
    /// 64 characters; a retried event with the same id is stored once). The request is all or
    /// nothing: 400 when any event is invalid (or, with `event_validation` `enforce`, breaks its
    /// schema: `{error, violations}`), 413 `{error, limit, received}` above 100 events, 429
    /// `{error, quota: {current, limit, remaining}}` when the monthly quota cannot hold it, 503
    /// when storage is unavailable (retry). A 202 means the events are committed.
    #[oai(path = "/", method = "post", operation_id = "track")]
    async fn track(
        &self,
        auth: ApiKeyAuth,
        body: Json<serde_json::Value>,
    ) -> poem::Result<Tracked> {
        auth.player_optional()?;
        let player = auth.player().map(str::to_string);
        let accepted = service::track(&self.state, auth.0, player.as_deref(), body.0).await?;
        let warnings = (!accepted.warnings.is_empty())
            .then(|| accepted.warnings.into_iter().map(violation_view).collect());
        Ok(Tracked::Accepted(Json(TrackAccepted {
            received: accepted.received,
            quota: QuotaStatus {
                remaining: accepted.remaining,
                limit: accepted.limit,
            },
            warnings,
        })))
    }
}
