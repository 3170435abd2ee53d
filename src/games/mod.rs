//! Games, their members and roles, and their API keys (dashboard, JWT).
pub mod access;
pub mod api;
pub mod keys_api;
pub mod service;

pub use access::{require_role, Access, Role};
