//! The live feed's messages as dashboards receive them (`activity.updated`,
//! `activity.cleared`, `presence.offline`), rendered here once and carried by the hot store.
use crate::{http::timestamp, store::hot::presence::PresenceEntry};
use chrono::{DateTime, Utc};
use serde_json::json;

/// The feed message for a set entry.
pub fn updated_message(entry: &PresenceEntry) -> String {
    json!({
        "type": "activity.updated",
        "player_id": entry.player_id,
        "status": entry.status.as_str(),
        "activity": entry.activity,
        "details": entry.data,
        "session_id": entry.session_id,
        "updated_at": timestamp(entry.updated_at),
    })
    .to_string()
}

/// The feed message for a cleared entry.
pub fn cleared_message(player_id: &str, now: DateTime<Utc>) -> String {
    json!({ "type": "activity.cleared", "player_id": player_id, "cleared_at": timestamp(now) })
        .to_string()
}

/// The feed message for an entry that went silent.
pub fn offline_message(player_id: &str, last_updated: DateTime<Utc>) -> String {
    json!({ "type": "presence.offline", "player_id": player_id, "last_updated": timestamp(last_updated) })
        .to_string()
}
