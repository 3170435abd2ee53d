//! Achievements: definitions (dashboard), listing with per-player status, unlocking (game
//! side), and each achievement's unlock count and rarity.
pub mod api;
pub mod service;

use crate::state::AppState;
use std::sync::Arc;

/// This feature's `#[OpenApi]` structs, mounted by `api.rs`.
pub fn apis(state: &AppState) -> impl poem_openapi::OpenApi {
    api::AchievementsApi {
        state: state.clone(),
        player_counts: Arc::new(service::PlayerCounts::default()),
    }
}
