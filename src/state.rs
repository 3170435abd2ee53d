//! `AppState`: everything a handler or job needs, built once (`app::assemble`), cheap to
//! clone. What a feature keeps per node (its caches, its group-commit writer) is a typed field
//! of `Parts`, which only that feature reads: a part left out is a compile error, not a panic
//! at the first request that needs it.
use crate::{
    auth::{api_key::KeyCache, jwt::JwtKeys},
    cli::Settings,
    clock::SharedClock,
    notify::email::Mailer,
    store::{hot::HotStore, Db},
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
    /// The features' per-node parts.
    pub parts: Arc<Parts>,
}

/// What features keep per node.
pub struct Parts {
    /// Dashboard sessions' revocation generations (`auth::sessions`).
    pub sessions: Arc<crate::auth::sessions::SessionCache>,
    /// The bounded pool that hashes passwords (`accounts`).
    pub hashing: Arc<crate::auth::password::Hashing>,
    /// Event ingestion: the group-commit writer and the event schemas' cache (`events`).
    pub ingest: crate::events::Ingest,
    /// The score writer (`leaderboards::writer`).
    pub scores: Arc<crate::leaderboards::writer::ScoreWriter>,
    /// Board definitions (`leaderboards::boards`).
    pub boards: Arc<crate::leaderboards::boards::BoardCache>,
    /// Rendered leaderboard pages (`leaderboards::pages`).
    pub pages:
        Arc<crate::leaderboards::pages::PageCache<crate::leaderboards::game_api::LeaderboardPage>>,
    /// Remote config (`config`).
    pub config: Arc<crate::config::service::ConfigCache>,
    /// Live activity feeds per user (`presence::stream`).
    pub feeds: crate::presence::stream::FeedSlots,
}

impl AppState {
    pub fn now(&self) -> chrono::DateTime<chrono::Utc> {
        self.clock.now()
    }

    /// Call once a change to what nodes cache about a game (its settings, keys, event schemas,
    /// board definitions, remote config) is stored: this node forgets it at once, and every
    /// other node before this returns (see `store::hot::changes`). The change is already
    /// stored, so a failed announcement is only logged: the other nodes then stop trusting
    /// their caches on their own.
    pub async fn game_changed(&self, game_id: Uuid) {
        if let Err(error) = self.hot.changes.announce(game_id).await {
            tracing::warn!(error.cause_chain = ?error, %game_id, "change not announced to other nodes");
        }
    }
}
