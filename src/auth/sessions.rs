//! Dashboard sessions: each user has a token generation (`users.token_generation`), every
//! token carries the one it was issued in, and only tokens of the current generation are
//! accepted. A password reset and a logout bump it, which revokes every token issued before.
//! Each node caches a user's generation for up to 2 seconds; a bump is announced like a
//! game's change (under the user's id), so it holds on every node before it is answered.
use crate::store::{
    node_cache::{NodeCache, Policy},
    Db,
};
use sea_orm::{ConnectionTrait, DbErr, Statement};
use std::time::{Duration, Instant};
use uuid::Uuid;

/// Per-node cache of users' current token generation (`None`: no such user).
pub type SessionCache = NodeCache<Generations>;

/// What `SessionCache` holds: a user's generation by user id, for 2 seconds. Announcements
/// under the user's id forget it.
pub struct Generations;

impl Policy for Generations {
    type Key = Uuid;
    type Value = Option<i64>;
    type Moment = Instant;
    const TTL: Duration = Duration::from_secs(2);
    const SWEEP_AT: usize = 50_001;
    fn game(user_id: &Uuid, _: &Option<i64>) -> Option<Uuid> {
        Some(*user_id)
    }
}

impl SessionCache {
    /// The user's current token generation, from the cache when it is fresh.
    pub async fn token_generation(&self, db: &Db, user_id: Uuid) -> Result<Option<i64>, DbErr> {
        if let Some(generation) = self.get(&user_id) {
            return Ok(generation);
        }
        let started = self.generation();
        let current = current_generation(db, user_id).await?;
        self.put(user_id, current, started);
        Ok(current)
    }
}

/// The user's current token generation, read from the cold store (for issuing a token).
pub async fn current_generation(db: &Db, user_id: Uuid) -> Result<Option<i64>, DbErr> {
    let backend = db.get_database_backend();
    let row = db
        .query_one_raw(Statement::from_sql_and_values(
            backend,
            "SELECT token_generation FROM users WHERE id = $1",
            [user_id.into()],
        ))
        .await?;
    row.map(|row| row.try_get::<i64>("", "token_generation"))
        .transpose()
}

/// Revokes every token of the user issued so far. The caller announces the change.
pub async fn revoke_all(db: &Db, user_id: Uuid) -> Result<(), DbErr> {
    let backend = db.get_database_backend();
    db.execute_raw(Statement::from_sql_and_values(
        backend,
        "UPDATE users SET token_generation = token_generation + 1 WHERE id = $1",
        [user_id.into()],
    ))
    .await?;
    Ok(())
}
