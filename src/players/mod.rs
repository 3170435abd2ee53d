//! Player identity (opt-in per game, `player_auth`): a game client signs a player in with a
//! device id or with a custom id its studio's backend signed, and gets a short-lived player
//! token; with it, every player-scoped route acts only as that player (see
//! `auth::schemes::ApiKeyAuth::acts_as`). Identities of one player can be linked, so progress
//! follows the player from a device to an account.
pub mod error;
pub mod game_api;
pub mod service;

pub use error::PlayerError;

use crate::state::AppState;

/// This feature's `#[OpenApi]` structs, mounted by `api.rs`.
pub fn apis(state: &AppState) -> impl poem_openapi::OpenApi {
    game_api::PlayersApi {
        state: state.clone(),
    }
}
