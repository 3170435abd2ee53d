//! Alert rules: rule validation (`rules`), storing and reading them (`service`), judging their
//! figures (`judge`), reading and firing them and the worker job (`evaluate`), sending a firing's e-mail and webhook message
//! (`deliver`), and their endpoints. The metric series they compare come from the `analytics`
//! feature.
use crate::state::AppState;

pub mod dashboard_api;
pub mod deliver;
pub mod error;
pub mod evaluate;
pub mod judge;
pub mod rules;
pub mod service;

pub use error::AlertError;

/// This feature's `#[OpenApi]` structs, mounted by `api.rs`.
pub fn apis(state: &AppState) -> impl poem_openapi::OpenApi {
    dashboard_api::AlertsApi {
        state: state.clone(),
    }
}
