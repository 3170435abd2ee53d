//! playtrace: a self-hostable game analytics and live-ops backend.
//!
//! One binary serves the HTTP API (game side with API keys, dashboard with JWTs) and runs the
//! background worker. Durable data lives in the cold store (SQLite or PostgreSQL through
//! SeaORM); fast-changing shared state in the hot store (in-process or Redis).
pub mod accounts;
pub mod achievements;
pub mod admin;
pub mod aggregates;
pub mod alerts;
pub mod analytics;
pub mod api;
pub mod app;
pub mod auth;
pub mod cli;
pub mod clock;
pub mod config;
pub mod connections;
pub mod cors;
pub mod dashboard;
pub mod economy;
pub mod error;
pub mod events;
pub mod funnels;
pub mod games;
pub mod health;
pub mod http;
pub mod leaderboards;
pub mod limits;
pub mod notify;
pub mod player_data;
pub mod player_id;
pub mod players;
pub mod presence;
pub mod progression;
pub mod query;
pub mod saves;
pub mod state;
pub mod store;
pub mod telemetry;
pub mod words;
pub mod worker;

/// Work to finish before the process exits (e.g. flushing queued writes). Features that keep
/// work in memory add their flush here.
pub async fn shutdown_hooks(state: &state::AppState) {
    events::ingest(state).flush().await;
    leaderboards::writer::scores(state).flush().await;
}
