//! What every feature's HTTP layer shares: the OpenAPI tags, how timestamps are written, and
//! JSON bodies sent as stored text. It imports no feature, so any feature can use it.
pub mod docs_page;
pub mod document;
pub mod error_responses;
pub mod json_text;
pub mod parameters;
pub mod player_header;
pub mod schema;
pub mod text;
pub mod validation;

use chrono::{DateTime, SecondsFormat, Utc};
use poem_openapi::{ApiResponse, Tags};

#[derive(Tags)]
pub enum ApiTags {
    /// Liveness and readiness probes.
    Health,
    /// Dashboard accounts and tokens.
    Auth,
    /// Games, members and API keys (dashboard).
    Games,
    /// Remote config.
    Config,
    /// Analytics events (game side) and event schemas.
    Events,
    /// Leaderboards and their moderation.
    Leaderboards,
    /// Achievements.
    Achievements,
    /// Rich presence and live activity.
    Presence,
    /// Funnels.
    Funnels,
    /// Game analytics: metrics as time series, the KPIs.
    Analytics,
    /// Alert rules, their firings and notifications.
    Alerts,
    /// Cloud saves.
    Saves,
    /// Player identity: sign-in, linked identities, player tokens.
    Players,
    /// One player's data: export, erase, and the audit list of both.
    PlayerData,
    /// The instance admin's reads of the whole server: accounts and usage.
    Admin,
}

/// RFC 3339 UTC with a `Z`, e.g. `2026-11-21T10:00:00Z`.
pub fn timestamp(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Secs, true)
}

pub use document::document;
pub(crate) use error_responses::statuses;
pub use error_responses::Statuses;

/// The answer of a route that deletes or clears something: 204 with no body.
#[derive(ApiResponse)]
pub enum NoContent {
    #[oai(status = 204)]
    Done,
}
