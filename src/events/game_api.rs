//! `POST /v1/track`: games send analytics events.
use super::{
    input::{self, IncomingEvent},
    schemas::Violation,
    service,
};
use crate::{
    auth::ApiKeyAuth,
    http::{schema::Timestamp, ApiTags},
    state::AppState,
    telemetry::{self, Refusal},
};
use poem::{http::StatusCode, Request, RequestBody};
use poem_openapi::{
    payload::{Json, ParsePayload, Payload},
    registry::{MetaSchema, MetaSchemaRef, Registry},
    types::{ParseFromJSON, ParseResult, ToJSON, Type},
    ApiResponse, Object, OpenApi,
};
use serde_json::Value;
use std::borrow::Cow;

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

// This type gives `/v1/track` its schema; the body itself is read field by field by
// `events::input` (in `TrackRequest`), whose error texts the interface fixes.
/// One analytics event as a game sends it.
#[derive(Object)]
#[oai(deny_unknown_fields)]
pub struct TrackEvent {
    /// 1 to 128 characters. Reserved names that metrics read: `crash`, `log` (with
    /// `properties.level` `error` or `warning`) and `purchase` (with numeric `properties.amount`).
    #[oai(validator(min_length = 1, max_length = 128))]
    pub event_name: String,
    /// 1 to 128 characters.
    #[oai(validator(min_length = 1, max_length = 128))]
    pub session_id: String,
    /// The player, when known: the active-user identity (else `session_id`).
    #[oai(nullable, validator(max_length = 128))]
    pub player_id: Option<String>,
    /// Any JSON object.
    #[oai(nullable)]
    pub properties: Option<std::collections::HashMap<String, Value>>,
    /// When it happened on the device; used unless more than 5 minutes in the future.
    #[oai(nullable)]
    pub client_timestamp: Option<Timestamp>,
    /// Up to 64 characters: a retried event with the same id is stored once per game.
    #[oai(nullable, validator(max_length = 64))]
    pub event_id: Option<String>,
}

/// The `/v1/track` body: one event, or an array of 1 to 100 events.
pub struct TrackBody(pub Value);

impl Type for TrackBody {
    const IS_REQUIRED: bool = true;
    type RawValueType = Value;
    type RawElementValueType = Value;

    fn name() -> Cow<'static, str> {
        "TrackBody".into()
    }
    fn schema_ref() -> MetaSchemaRef {
        let batch = MetaSchema {
            items: Some(Box::new(TrackEvent::schema_ref())),
            min_items: Some(1),
            max_items: Some(super::input::MAX_BATCH),
            ..MetaSchema::new("array")
        };
        MetaSchemaRef::Inline(Box::new(MetaSchema {
            one_of: vec![
                TrackEvent::schema_ref(),
                MetaSchemaRef::Inline(Box::new(batch)),
            ],
            ..MetaSchema::ANY
        }))
    }
    fn register(registry: &mut Registry) {
        TrackEvent::register(registry);
    }
    fn as_raw_value(&self) -> Option<&Value> {
        Some(&self.0)
    }
    fn raw_element_iter<'a>(&'a self) -> Box<dyn Iterator<Item = &'a Value> + 'a> {
        Box::new(std::iter::once(&self.0))
    }
}

impl ParseFromJSON for TrackBody {
    fn parse_from_json(value: Option<Value>) -> ParseResult<Self> {
        Ok(Self(value.unwrap_or_default()))
    }
}

impl ToJSON for TrackBody {
    fn to_json(&self) -> Option<Value> {
        Some(self.0.clone())
    }
}

/// The `/v1/track` body, parsed where the request comes in: its events, each checked field by
/// field (`events::input`), and whether they came as an array. A body that does not parse is
/// answered before the handler runs: 413 `{error, limit, received}` above the batch limit, 400
/// naming the first bad event (with its `index` in an array) otherwise; JSON that is not JSON
/// and a wrong content type as on every route.
pub struct TrackRequest {
    pub events: Vec<IncomingEvent>,
    pub batch: bool,
}

impl Payload for TrackRequest {
    const CONTENT_TYPE: &'static str = <Json<TrackBody> as Payload>::CONTENT_TYPE;

    fn check_content_type(content_type: &str) -> bool {
        <Json<TrackBody> as Payload>::check_content_type(content_type)
    }
    fn schema_ref() -> MetaSchemaRef {
        <Json<TrackBody> as Payload>::schema_ref()
    }
    fn register(registry: &mut Registry) {
        <Json<TrackBody> as Payload>::register(registry)
    }
}

impl ParsePayload for TrackRequest {
    const IS_REQUIRED: bool = true;

    async fn from_request(request: &Request, body: &mut RequestBody) -> poem::Result<Self> {
        let Json(TrackBody(body)) = Json::<TrackBody>::from_request(request, body).await?;
        let batch = body.is_array();
        let count = body.as_array().map_or(1, Vec::len) as u64;
        match input::parse_body(body) {
            Ok(events) => Ok(Self { events, batch }),
            Err(error) => {
                let reason = match error.status {
                    StatusCode::PAYLOAD_TOO_LARGE => Refusal::Size,
                    _ => Refusal::Validation,
                };
                telemetry::events_refused(reason, count);
                Err(error.into())
            }
        }
    }
}

poem_openapi::impl_apirequest_for_payload!(TrackRequest,);

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

/// What each operation here answers beyond the universal statuses (`http::error_responses`).
pub const STATUSES: crate::http::Statuses = crate::http::statuses! {
    track: [],
};

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
    async fn track(&self, auth: ApiKeyAuth, body: TrackRequest) -> poem::Result<Tracked> {
        auth.player_optional()?;
        let player = auth.player().map(str::to_string);
        let accepted = service::track(&self.state, auth.0, player.as_deref(), body).await?;
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
