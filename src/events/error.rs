//! What can go wrong with events and event schemas, in their own words, and how each answers
//! over HTTP.
use super::{quota, schemas::Violation, schemas::MAX_SCHEMA_BYTES};
use serde_json::{json, Value};

#[derive(Debug, thiserror::Error)]
pub enum EventError {
    /// An event name or a schema that breaks its rule.
    #[error("{0}")]
    Invalid(String),
    #[error("A schema may be at most {MAX_SCHEMA_BYTES} bytes")]
    SchemaTooLarge,
    #[error("No schema for this event name")]
    NoSchema,
    /// Events refused in `enforce` mode, with every violation.
    #[error("Events do not match their event schema")]
    Violations(Vec<Violation>),
    /// The request does not fit in the game's monthly quota.
    #[error("Monthly event quota exceeded")]
    OverQuota { current: u64, limit: u64 },
    /// The writer could not commit the events (the cause is logged where it happened).
    #[error("Storage temporarily unavailable, retry later")]
    NotStored,
    /// An event names another player than the request's player token.
    #[error("This player token is for another player")]
    OtherPlayer,
    /// An event's value the aggregates cannot count (`service::check_values`), naming the
    /// field, and the event's `index` in a batch.
    #[error("{}{message}", index.map(|index| format!("events[{index}]: ")).unwrap_or_default())]
    BadValue {
        index: Option<usize>,
        field: &'static str,
        message: String,
    },
    #[error(transparent)]
    Cold(#[from] sea_orm::DbErr),
}

impl EventError {
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::Invalid(message.into())
    }
}

crate::error::answers!(EventError as error {
    400: Invalid(_),
    403: OtherPlayer,
    404: NoSchema,
    413: SchemaTooLarge,
    503: NotStored,
    passes: Cold,
    other {
        Violations(ref violations) => {
            let items: Vec<Value> = violations.iter().map(violation_json).collect();
            ApiError::bad_request(error.to_string()).with("violations", items)
        },
        OverQuota { current, limit } => quota::exceeded(current, limit),
        BadValue { index, field, .. } => {
            let answer = ApiError::bad_request(error.to_string());
            match index {
                Some(index) => answer.with("index", index),
                None => answer,
            }
            .with("field", field)
        },
    }
});

fn violation_json(violation: &Violation) -> Value {
    json!({ "index": violation.index, "event_name": violation.event_name, "message": violation.message })
}
