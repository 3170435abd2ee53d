//! `AppState`: everything a handler or job needs, built once (`app::assemble`), cheap to
//! clone. It names no feature: what a feature keeps per node (its caches, its group-commit
//! writer) is one of the state's parts, stored by type, which only that feature reads.
use crate::{
    auth::{api_key::KeyCache, jwt::JwtKeys},
    cli::Settings,
    clock::SharedClock,
    notify::email::Mailer,
    store::{hot::HotStore, Db},
};
use poem::http::Extensions;
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

/// What features keep per node, one value per type.
#[derive(Default)]
pub struct Parts(Extensions);

impl Parts {
    pub fn insert<T: Clone + Send + Sync + 'static>(&mut self, part: T) {
        self.0.insert(part);
    }
}

impl AppState {
    pub fn now(&self) -> chrono::DateTime<chrono::Utc> {
        self.clock.now()
    }

    /// A feature's part. Every part is inserted when the state is assembled, so a missing one
    /// is a wiring mistake, found by the first test that reaches the feature.
    pub fn part<T: Send + Sync + 'static>(&self) -> &T {
        self.parts
            .0
            .get::<T>()
            .unwrap_or_else(|| panic!("{} is not a part of the state", std::any::type_name::<T>()))
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
