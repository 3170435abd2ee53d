//! Dashboard accounts: register, login (with lockout), the current user, password reset and
//! invitations' pending accounts.
pub mod dashboard_api;
pub mod error;
pub mod service;

pub use error::AccountError;
