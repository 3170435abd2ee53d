//! Leaderboards: score submission, ranked reads, periods and archives, moderation.
//!
//! - `game_api.rs`: game side (`/v1/leaderboards`, API key); `dashboard_api.rs`: dashboard definitions
//!   and moderation (`/v1/games/{game_id}/leaderboards`, JWT).
//! - `boards.rs`: definitions; `period.rs`: period keys; `reset_schedule.rs`: cron-style
//!   reset schedules; `service.rs`: submissions, reads and
//!   rebuilds; `moderation.rs`: bans and approvals; `archive.rs`: the worker's archiving;
//!   `tournament.rs`: tournament boards (time window, player limit, joining); `results.rs`:
//!   finished periods' standings POSTed to a board's results webhook (`results_api.rs`: their
//!   delivery history).
//! - The ranking itself lives in the hot store (`store::hot::leaderboards`), with the cold
//!   store holding every entry so it can always be rebuilt.
use crate::state::AppState;

pub mod archive;
pub mod boards;
pub mod dashboard_api;
pub mod error;
pub mod game_api;
pub mod moderation;
pub mod pages;
pub mod period;
pub mod reset_schedule;
pub mod results;
pub mod results_api;
pub mod score;
pub mod service;
pub mod tournament;
pub mod writer;

pub use archive::archive_finished_periods;
pub use results::deliver_results;

/// This feature's `#[OpenApi]` structs, mounted by `api.rs`.
pub fn apis(state: &AppState) -> impl poem_openapi::OpenApi {
    (
        game_api::LeaderboardsApi {
            state: state.clone(),
        },
        dashboard_api::LeaderboardAdminApi {
            state: state.clone(),
        },
        results_api::LeaderboardResultsApi {
            state: state.clone(),
        },
    )
}
