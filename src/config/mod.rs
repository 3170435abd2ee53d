//! Remote config: values set in the dashboard, read by games with their API key.
pub mod api;
