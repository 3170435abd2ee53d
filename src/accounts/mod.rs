//! Dashboard accounts: register, login (with lockout), the current user, password reset and
//! invitations' pending accounts.
pub mod api;
pub mod service;
