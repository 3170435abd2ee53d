//! `AppState`: everything a handler or job needs, built once in `app.rs`, cheap to clone.
use crate::{
    auth::{api_key::KeyCache, jwt::JwtKeys},
    cli::Settings,
    clock::SharedClock,
    notify::email::Mailer,
    store::{
        hot::{changes::Stale, HotStore},
        Db,
    },
};
use std::sync::Arc;
use uuid::Uuid;

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
    /// Remote configs this node published recently.
    pub config: Arc<crate::config::service::ConfigCache>,
}

impl AppState {
    pub fn now(&self) -> chrono::DateTime<chrono::Utc> {
        self.clock.now()
    }

    /// Call once a change to what nodes cache about a game (its settings, keys, event schemas,
    /// board definitions, remote config) is stored: this node forgets it at once, and every
    /// other node as soon as the announcement reaches it (within a second, see
    /// `store::hot::changes`). The change is already stored, so a failed announcement is only
    /// logged: the other nodes then stop trusting their caches on their own.
    pub async fn game_changed(&self, game_id: Uuid) {
        self.forget(Stale::Game(game_id));
        if let Err(error) = self.hot.changes.announce(game_id).await {
            tracing::warn!(error.cause_chain = ?error, %game_id, "change not announced to other nodes");
        }
    }

    /// Drops what this node caches about games.
    pub fn forget(&self, stale: Stale) {
        self.caches().forget(stale);
    }

    fn caches(&self) -> Caches {
        Caches {
            keys: self.keys.clone(),
            schemas: self.ingest.schemas.clone(),
            boards: self.boards.clone(),
            config: self.config.clone(),
        }
    }

    /// Applies every change announcement this node receives from now on.
    pub fn follow_changes(&self) {
        // The caches only: the hot store holding the state would keep itself alive.
        let caches = self.caches();
        self.hot
            .changes
            .follow(Arc::new(move |stale| caches.forget(stale)));
    }
}

/// The per-node caches of what games set up, which a change announcement makes stale.
struct Caches {
    keys: Arc<KeyCache>,
    schemas: Arc<crate::events::schemas::SchemaCache>,
    boards: Arc<crate::leaderboards::boards::BoardCache>,
    config: Arc<crate::config::service::ConfigCache>,
}

impl Caches {
    fn forget(&self, stale: Stale) {
        match stale {
            Stale::Game(game_id) => {
                self.keys.forget_game(game_id);
                self.schemas.forget(game_id);
                self.boards.forget_game(Some(game_id));
                self.config.forget(game_id);
            }
            Stale::Everything => {
                self.keys.forget_all();
                self.schemas.forget_all();
                self.boards.forget_game(None);
                self.config.forget_all();
            }
        }
    }
}

impl AppState {
    /// A state with no database behind it, enough to build the OpenAPI document.
    pub fn detached() -> Self {
        let settings = Settings::defaults();
        let hot = HotStore::in_process();
        Self {
            ingest: crate::events::Ingest::new(Db::default(), Db::default(), hot.quotas.clone(), 1),
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
            config: Arc::default(),
        }
    }
}
