//! Player data rights (GDPR articles 15 and 17): export everything stored about one player of
//! a game as one JSON document, erase it from the cold and hot stores, and the game's audit
//! list of both. Owners only.
//!
//! - `dashboard_api.rs`: the routes (`/v1/games/{game_id}/players/{player_id}/data`, `/audit`);
//!   `export.rs`: the streamed export document; `service.rs`: every query but those of
//!   `leaderboard_results.rs` (the player's place in stored results webhook payloads).
//! - Reaches into leaderboards (a board's hot handle) and presence (the feed's "cleared"
//!   message), whose data it exports and erases.
use crate::{state::AppState, store::hot::HotError};

pub mod dashboard_api;
pub mod export;
pub mod leaderboard_results;
pub mod service;

/// This feature's `#[OpenApi]` structs, mounted by `api.rs`.
pub fn apis(state: &AppState) -> impl poem_openapi::OpenApi {
    dashboard_api::PlayerDataApi {
        state: state.clone(),
    }
}

#[derive(Debug, thiserror::Error)]
pub enum PlayerDataError {
    #[error(transparent)]
    InvalidPlayerId(#[from] crate::player_id::InvalidPlayerId),
    #[error("limit must be 1 to 100")]
    InvalidLimit,
    #[error(transparent)]
    Stored(#[from] crate::words::CorruptWord),
    #[error(transparent)]
    Storage(#[from] sea_orm::DbErr),
    #[error(transparent)]
    Hot(#[from] HotError),
}

crate::error::answers!(PlayerDataError as error {
    400: InvalidPlayerId(_) | InvalidLimit,
    passes: Stored | Storage | Hot,
});
