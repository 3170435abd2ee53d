//! Dashboard accounts: register, login (with lockout), the current user, password reset and
//! invitations' pending accounts; and the operator's repairs from the shell (`admin`).
pub mod admin;
pub mod dashboard_api;
pub mod error;
pub mod service;

pub use error::AccountError;
