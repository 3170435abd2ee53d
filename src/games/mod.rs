//! Games, their members and roles, and their API keys (dashboard, JWT).
pub mod access;
pub mod dashboard_api;
pub mod error;
pub mod keys_dashboard_api;
pub mod service;

pub use access::{require_role, Access, Role};
pub use error::GameError;
