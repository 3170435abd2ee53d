//! Outgoing notifications: e-mail through SMTP (lettre) and chat webhooks.
pub mod email;
pub mod webhook;
