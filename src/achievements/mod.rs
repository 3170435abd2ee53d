//! Achievements: definitions (dashboard), listing and unlocking (game side).
use crate::state::AppState;

/// This feature's `#[OpenApi]` structs, mounted by `api.rs`.
pub fn apis(_state: &AppState) -> impl poem_openapi::OpenApi {
    crate::api::NoApi
}
