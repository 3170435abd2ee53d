//! The `/v1/track` body, parsed once at the edge: one event object or an array of at most 100,
//! each checked field by field. Code behind `IncomingEvent` trusts it.
use crate::{
    error::ApiError,
    player_id::{InvalidPlayerId, PlayerId},
};
use chrono::{DateTime, NaiveDateTime, Utc};
use serde_json::{Map, Value};

/// Most events one request may carry.
pub const MAX_BATCH: usize = 100;
/// `event_name` length in characters.
pub const MAX_EVENT_NAME_CHARS: usize = 128;
/// `session_id` length in characters (`player_id` follows `crate::player_id`'s rule).
pub const MAX_ID_CHARS: usize = 128;
/// `event_id` length in characters.
pub const MAX_EVENT_ID_CHARS: usize = 64;

const FIELDS: &[&str] = &[
    "event_name",
    "session_id",
    "player_id",
    "properties",
    "client_timestamp",
    "event_id",
];

/// What is wrong with one event, in the client's words.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum InvalidEvent {
    #[error("an event must be a JSON object")]
    NotAnObject,
    #[error("{0} is required")]
    Missing(&'static str),
    #[error("{0} must be a string")]
    NotAString(&'static str),
    #[error("{0} must be {1} to {2} characters")]
    Length(&'static str, usize, usize),
    #[error("properties must be an object")]
    PropertiesNotAnObject,
    #[error("client_timestamp must be an ISO 8601 timestamp, e.g. 2026-11-21T10:00:00Z")]
    BadTimestamp,
    #[error("unknown field {0} (allowed: event_name, session_id, player_id, properties, client_timestamp, event_id)")]
    UnknownField(String),
    #[error("{0} must not contain a NUL character")]
    NulCharacter(&'static str),
    #[error(transparent)]
    PlayerId(#[from] InvalidPlayerId),
}

impl InvalidEvent {
    /// The event's field at fault (`None` when the event itself is).
    pub fn field(&self) -> Option<&str> {
        match self {
            Self::NotAnObject => None,
            Self::Missing(field)
            | Self::NotAString(field)
            | Self::Length(field, _, _)
            | Self::NulCharacter(field) => Some(field),
            Self::PropertiesNotAnObject => Some("properties"),
            Self::BadTimestamp => Some("client_timestamp"),
            Self::UnknownField(field) => Some(field),
            Self::PlayerId(_) => Some("player_id"),
        }
    }
}

/// One valid event as the client sent it.
#[derive(Debug, Clone, PartialEq)]
pub struct IncomingEvent {
    pub event_name: String,
    pub session_id: String,
    pub player_id: Option<PlayerId>,
    pub properties: Map<String, Value>,
    pub client_timestamp: Option<DateTime<Utc>>,
    pub event_id: Option<String>,
}

/// Parses a whole request body. Any bad event refuses the request: 413 above the batch limit,
/// 400 naming the first bad event (and its `index` for arrays) otherwise, with the `field` at
/// fault written as every 400 writes a place in the body (`event_name`, `[3].session_id`).
pub fn parse_body(body: Value) -> Result<Vec<IncomingEvent>, ApiError> {
    match body {
        Value::Array(items) => {
            if items.len() > MAX_BATCH {
                return Err(ApiError::payload_too_large(format!(
                    "Batch too large: at most {MAX_BATCH} events per request"
                ))
                .with("limit", MAX_BATCH)
                .with("received", items.len()));
            }
            if items.is_empty() {
                return Err(ApiError::bad_request("The batch holds no events"));
            }
            items
                .into_iter()
                .enumerate()
                .map(|(index, item)| {
                    parse_event(item).map_err(|e| {
                        let field = match e.field() {
                            Some(field) => format!("[{index}].{field}"),
                            None => format!("[{index}]"),
                        };
                        ApiError::bad_request(format!("events[{index}]: {e}"))
                            .with("index", index)
                            .with("field", field)
                    })
                })
                .collect()
        }
        Value::Object(_) => Ok(vec![parse_event(body).map_err(|e| {
            let error = ApiError::bad_request(e.to_string());
            match e.field() {
                Some(field) => error.with("field", field),
                None => error,
            }
        })?]),
        _ => Err(ApiError::bad_request(
            "The body must be an event object or an array of events",
        )),
    }
}

pub fn parse_event(item: Value) -> Result<IncomingEvent, InvalidEvent> {
    let Value::Object(mut fields) = item else {
        return Err(InvalidEvent::NotAnObject);
    };
    if let Some(unknown) = fields.keys().find(|k| !FIELDS.contains(&k.as_str())) {
        return Err(InvalidEvent::UnknownField(
            unknown.chars().take(64).collect(),
        ));
    }
    let event_name = event_name(fields.remove("event_name"))?;
    let session_id = required_text(fields.remove("session_id"), "session_id", MAX_ID_CHARS)?;
    let player_id = player_id(fields.remove("player_id"))?;
    let event_id = optional_text(fields.remove("event_id"), "event_id", MAX_EVENT_ID_CHARS)?;
    let properties = match fields.remove("properties") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(properties)) => properties,
        Some(_) => return Err(InvalidEvent::PropertiesNotAnObject),
    };
    // PostgreSQL cannot store NUL in text or jsonb; refusing it here keeps one client's odd
    // bytes from failing the group write other clients' events share.
    if properties
        .iter()
        .any(|(k, v)| k.contains('\0') || holds_nul(v))
    {
        return Err(InvalidEvent::NulCharacter("properties"));
    }
    let client_timestamp = match fields.remove("client_timestamp") {
        None | Some(Value::Null) => None,
        Some(Value::String(raw)) => Some(parse_timestamp(&raw).ok_or(InvalidEvent::BadTimestamp)?),
        Some(_) => return Err(InvalidEvent::NotAString("client_timestamp")),
    };
    Ok(IncomingEvent {
        event_name,
        session_id,
        player_id,
        properties,
        client_timestamp,
        event_id,
    })
}

/// Event names are identifiers: 1 to 128 characters, no surrounding whitespace trimmed away.
pub fn check_event_name(name: &str) -> Result<(), InvalidEvent> {
    let length = name.chars().count();
    if length == 0 || length > MAX_EVENT_NAME_CHARS {
        return Err(InvalidEvent::Length("event_name", 1, MAX_EVENT_NAME_CHARS));
    }
    if name.contains('\0') {
        return Err(InvalidEvent::NulCharacter("event_name"));
    }
    Ok(())
}

fn event_name(value: Option<Value>) -> Result<String, InvalidEvent> {
    match value {
        None | Some(Value::Null) => Err(InvalidEvent::Missing("event_name")),
        Some(Value::String(name)) => {
            check_event_name(&name)?;
            Ok(name)
        }
        Some(_) => Err(InvalidEvent::NotAString("event_name")),
    }
}

fn player_id(value: Option<Value>) -> Result<Option<PlayerId>, InvalidEvent> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => parse_player_id(&text).map(Some),
        Some(_) => Err(InvalidEvent::NotAString("player_id")),
    }
}

/// The player, by the one rule (and in the words) of every route: `crate::player_id`.
pub fn parse_player_id(text: &str) -> Result<PlayerId, InvalidEvent> {
    Ok(PlayerId::parse(text)?)
}

fn required_text(
    value: Option<Value>,
    field: &'static str,
    max: usize,
) -> Result<String, InvalidEvent> {
    optional_text(value, field, max)?.ok_or(InvalidEvent::Missing(field))
}

fn optional_text(
    value: Option<Value>,
    field: &'static str,
    max: usize,
) -> Result<Option<String>, InvalidEvent> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => {
            check_text(&text, field, max)?;
            Ok(Some(text))
        }
        Some(_) => Err(InvalidEvent::NotAString(field)),
    }
}

/// A text field's rule: 1 to `max` characters, no NUL.
pub fn check_text(text: &str, field: &'static str, max: usize) -> Result<(), InvalidEvent> {
    let length = text.chars().count();
    if length == 0 || length > max {
        return Err(InvalidEvent::Length(field, 1, max));
    }
    if text.contains('\0') {
        return Err(InvalidEvent::NulCharacter(field));
    }
    Ok(())
}

fn holds_nul(value: &Value) -> bool {
    match value {
        Value::String(text) => text.contains('\0'),
        Value::Array(items) => items.iter().any(holds_nul),
        Value::Object(fields) => fields.iter().any(|(k, v)| k.contains('\0') || holds_nul(v)),
        _ => false,
    }
}

/// RFC 3339 (`2026-11-21T10:00:00Z`, `...+02:00`, fractions allowed), or the same without an
/// offset, read as UTC.
pub fn parse_timestamp(raw: &str) -> Option<DateTime<Utc>> {
    if let Ok(at) = DateTime::parse_from_rfc3339(raw) {
        return Some(at.with_timezone(&Utc));
    }
    ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%dT%H:%M:%S"]
        .iter()
        .find_map(|format| NaiveDateTime::parse_from_str(raw, format).ok())
        .map(|naive| naive.and_utc())
}
