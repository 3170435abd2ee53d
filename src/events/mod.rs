//! Event ingestion: `POST /v1/track`, quotas, event schemas and the group-commit writer.
use crate::state::AppState;

/// This feature's `#[OpenApi]` structs, mounted by `api.rs`.
pub fn apis(_state: &AppState) -> impl poem_openapi::OpenApi {
    crate::api::NoApi
}
