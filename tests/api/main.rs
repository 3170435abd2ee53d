//! Black-box suite: each test starts the real server on port 0 with its own database and talks
//! HTTP to it, as a game client and as the dashboard would. `PLAYTRACE_TEST_BACKEND=services`
//! runs the same tests on PostgreSQL + Redis.
mod contract;
mod helpers;
mod mail_sink;
mod pg_template;

mod accounts;
mod accounts_abuse;
mod achievements;
mod admin_cli;
mod admin_reads;
mod alerts;
mod analytics;
mod config;
mod conformance;
mod connections;
mod cors;
mod currency;
mod dashboard;
mod deployment;
mod error_texts;
mod errors;
mod events;
mod faults;
mod funnel_strategies;
mod funnels;
mod games;
mod health;
mod invitations;
mod keys;
mod kpis;
mod leaderboards;
mod limits;
mod metrics_endpoint;
mod nodes;
mod openapi;
mod player_data;
mod players;
mod presence;
mod progression_economy;
mod progression_economy_generated;
mod proxy;
mod retention;
mod retention_grid;
mod saves;
mod text_input;
