//! Black-box suite: each test starts the real server on port 0 with its own database and talks
//! HTTP to it, as a game client and as the dashboard would. `PLAYTRACE_TEST_BACKEND=services`
//! runs the same tests on PostgreSQL + Redis.
mod helpers;
mod mail_sink;

mod accounts;
mod errors;
mod games;
mod health;
mod hot_conformance;
mod keys;
mod limits;
mod openapi;
