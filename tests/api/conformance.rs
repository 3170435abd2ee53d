//! Conformance suites of the hot-store traits, one file per trait: every test runs against the
//! in-process store always and against Redis (with a fresh key prefix) on the services backend,
//! through `helpers::hot_stores()`.
mod leaderboards;
mod limits;
mod locks;
mod presence;
mod quotas;
