//! `AppState`: everything a handler or job needs, built once in `app.rs`, cheap to clone.
use crate::{
    auth::{api_key::KeyCache, jwt::JwtKeys},
    cli::Settings,
    clock::SharedClock,
    notify::email::Mailer,
    store::{hot::HotStore, Db},
};
use std::sync::Arc;

#[derive(Clone)]
pub struct AppState {
    pub db: Db,
    pub hot: HotStore,
    pub clock: SharedClock,
    pub mailer: Arc<dyn Mailer>,
    pub jwt: Arc<JwtKeys>,
    pub keys: Arc<KeyCache>,
    pub settings: Arc<Settings>,
    /// Base URL put in e-mailed links.
    pub public_url: Arc<str>,
    /// Event ingestion: the group-commit writer and the compiled event-schema cache.
    pub ingest: crate::events::Ingest,
    /// Leaderboard definitions recently read by this node.
    pub boards: Arc<crate::leaderboards::boards::BoardCache>,
    /// Leaderboard pages this node rendered, reused while their board is unchanged.
    pub pages: Arc<crate::leaderboards::pages::PageCache>,
    /// Leaderboard submissions' group-commit writer.
    pub scores: Arc<crate::leaderboards::writer::ScoreWriter>,
}

impl AppState {
    pub fn now(&self) -> chrono::DateTime<chrono::Utc> {
        self.clock.now()
    }
}

impl AppState {
    /// A state with no database behind it, enough to build the OpenAPI document.
    pub fn detached() -> Self {
        let settings = Settings::defaults();
        let hot = HotStore::in_process();
        Self {
            ingest: crate::events::Ingest::new(Db::default(), hot.quotas.clone(), 1),
            boards: Arc::default(),
            pages: Arc::default(),
            scores: Arc::new(crate::leaderboards::writer::ScoreWriter::new(
                Db::default(),
                crate::leaderboards::writer::ScoreRows,
                1,
            )),
            db: Db::default(),
            hot,
            clock: Arc::new(crate::clock::SystemClock),
            mailer: Arc::new(crate::notify::email::LogMailer),
            jwt: Arc::new(JwtKeys::new(b"detached")),
            keys: Arc::new(KeyCache::default()),
            public_url: Arc::from("http://127.0.0.1:8080"),
            settings: Arc::new(settings),
        }
    }
}
