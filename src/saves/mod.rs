//! Cloud saves per player and slot, with optimistic concurrency.
use crate::state::AppState;

/// This feature's `#[OpenApi]` structs, mounted by `api.rs`.
pub fn apis(_state: &AppState) -> impl poem_openapi::OpenApi {
    crate::api::NoApi
}
