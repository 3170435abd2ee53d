//! Presence input rules and the background check that announces players going offline.
use crate::{
    state::AppState,
    store::hot::presence::{PresenceStatus, WentOffline},
    words::WordSet,
};
use serde_json::Value;

pub const MAX_SESSION_ID_LENGTH: usize = 128;
pub const MAX_ACTIVITY_LENGTH: usize = 256;
/// Largest `details` object, serialized.
pub const MAX_DETAILS_BYTES: usize = 8 * 1024;
/// Page size of the presence and live lists when `limit` is not given, and its maximum.
pub const DEFAULT_PAGE_SIZE: u64 = 100;
pub const MAX_PAGE_SIZE: u64 = 1000;
pub const MAX_OFFSET: u64 = 100_000;
/// How often the offline check runs, and how many entries one run claims at most.
pub const OFFLINE_CHECK_EVERY: std::time::Duration = std::time::Duration::from_secs(1);
const OFFLINE_CHECK_BATCH: usize = 1000;

/// What can go wrong with presence input, in this feature's words.
#[derive(Debug, thiserror::Error)]
pub enum PresenceError {
    #[error(transparent)]
    PlayerId(#[from] crate::player_id::InvalidPlayerId),
    #[error("session_id must be at most 128 characters")]
    SessionId,
    #[error("activity must be 1 to 256 characters")]
    Activity,
    #[error("details must be a JSON object of at most 8 KiB")]
    Details,
    #[error("details and data are one field under two names: send one of them")]
    DetailsTwice,
    #[error("status must be one of: playing, waiting, idle")]
    Status,
    #[error("limit must be between 1 and 1000")]
    Limit,
    #[error("offset must be between 0 and 100000")]
    Offset,
    #[error("No presence for this player")]
    UnknownPlayer,
}

crate::error::answers!(PresenceError as error {
    400: PlayerId(_) | SessionId | Activity | Details | DetailsTwice | Status | Limit | Offset,
    404: UnknownPlayer,
});

pub fn parse_session_id(raw: Option<String>) -> Result<Option<String>, PresenceError> {
    match raw {
        Some(session) if session.chars().count() > MAX_SESSION_ID_LENGTH => {
            Err(PresenceError::SessionId)
        }
        Some(session) if session.is_empty() => Ok(None),
        other => Ok(other),
    }
}

pub fn parse_activity(raw: &str) -> Result<String, PresenceError> {
    if raw.trim().is_empty() || raw.chars().count() > MAX_ACTIVITY_LENGTH {
        return Err(PresenceError::Activity);
    }
    Ok(raw.to_string())
}

/// `details` is optional (an empty object then) and must be an object when given.
pub fn parse_details(raw: Option<Value>) -> Result<Value, PresenceError> {
    match raw {
        None | Some(Value::Null) => Ok(Value::Object(Default::default())),
        Some(details @ Value::Object(_)) if details.to_string().len() <= MAX_DETAILS_BYTES => {
            Ok(details)
        }
        Some(_) => Err(PresenceError::Details),
    }
}

/// The status the game sets: `playing` when not given.
pub fn parse_status(raw: Option<&str>) -> Result<PresenceStatus, PresenceError> {
    match raw {
        None => Ok(PresenceStatus::Playing),
        // `offline` is a word of the set, but what silence makes, never what a game sets.
        Some(raw) => match PresenceStatus::from_word(raw) {
            Some(PresenceStatus::Offline) | None => Err(PresenceError::Status),
            Some(status) => Ok(status),
        },
    }
}

/// `limit` and `offset` of a list, with their defaults.
pub fn parse_page(limit: Option<i64>, offset: Option<i64>) -> Result<(u64, u64), PresenceError> {
    let limit = limit.unwrap_or(DEFAULT_PAGE_SIZE as i64);
    if !(1..=MAX_PAGE_SIZE as i64).contains(&limit) {
        return Err(PresenceError::Limit);
    }
    let offset = offset.unwrap_or(0);
    if !(0..=MAX_OFFSET as i64).contains(&offset) {
        return Err(PresenceError::Offset);
    }
    Ok((limit as u64, offset as u64))
}

/// One run of the offline check: announces every entry that went silent since the last run.
/// Safe on any number of nodes at once: each entry is claimed by exactly one of them.
pub async fn announce_offline(
    state: &AppState,
) -> Result<Vec<WentOffline>, crate::store::hot::HotError> {
    let mut announced = Vec::new();
    // Bounded so one run never monopolises the worker; the rest waits for the next run.
    for _ in 0..10 {
        let batch = state
            .hot
            .presence
            .announce_offline(
                state.now(),
                OFFLINE_CHECK_BATCH,
                super::feed::offline_message,
            )
            .await?;
        let done = batch.len() < OFFLINE_CHECK_BATCH;
        announced.extend(batch);
        if done {
            break;
        }
    }
    Ok(announced)
}
