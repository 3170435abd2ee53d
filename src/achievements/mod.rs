//! Achievements: definitions (dashboard), listing with per-player status, unlocking (game
//! side), and each achievement's unlock count and rarity.
pub mod dashboard_api;
pub mod game_api;
pub mod service;

use crate::state::AppState;
use std::sync::Arc;

/// This feature's `#[OpenApi]` structs, mounted by `api.rs`.
pub fn apis(state: &AppState) -> impl poem_openapi::OpenApi {
    // One count of each game's players, shared by both sides' rarity figures.
    let player_counts = Arc::new(service::PlayerCounts::default());
    (
        dashboard_api::AchievementDefinitionsApi {
            state: state.clone(),
            player_counts: player_counts.clone(),
        },
        game_api::AchievementsApi {
            state: state.clone(),
            player_counts,
        },
    )
}
