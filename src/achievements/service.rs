//! Achievement definitions, unlocks and rarity: validation and queries.
use crate::{state::AppState, store::Db};
use chrono::{DateTime, Duration, Utc};
use entity::{achievement_unlocks, achievements};
use parking_lot::Mutex;
use sea_orm::{
    sea_query::{Expr, ExprTrait, OnConflict},
    ActiveModelTrait,
    ActiveValue::{Set, Unchanged},
    ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, Statement,
    TransactionTrait,
};
use std::collections::HashMap;
use uuid::Uuid;

pub const MAX_KEY_LENGTH: usize = 64;
pub const MAX_NAME_LENGTH: usize = 128;
pub const MAX_DESCRIPTION_LENGTH: usize = 1000;
pub const MAX_ICON_URL_LENGTH: usize = 2048;
pub const MAX_POINTS: i64 = 1_000_000;
/// What a hidden achievement shows for its name and description while locked.
pub const HIDDEN_TEXT: &str = "???";
/// How long a node reuses a game's player count before counting again.
pub const PLAYER_COUNT_TTL_SECS: i64 = 60;

/// What can go wrong with achievements, in this feature's words.
#[derive(Debug, thiserror::Error)]
pub enum AchievementError {
    #[error("Achievement not found")]
    NotFound,
    #[error("An achievement with this key already exists")]
    DuplicateKey,
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Store(#[from] sea_orm::DbErr),
}

impl From<crate::player_id::InvalidPlayerId> for AchievementError {
    fn from(error: crate::player_id::InvalidPlayerId) -> Self {
        Self::Invalid(error.to_string())
    }
}

crate::error::answers!(AchievementError as error {
    400: Invalid(_),
    404: NotFound,
    409: DuplicateKey,
    passes: Store,
});

fn invalid(message: &str) -> AchievementError {
    AchievementError::Invalid(message.to_string())
}

/// An achievement key: 1 to 64 letters, digits, `_`, `-` or `.`.
pub fn parse_key(raw: &str) -> Result<String, AchievementError> {
    let ok = !raw.is_empty()
        && raw.chars().count() <= MAX_KEY_LENGTH
        && raw
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if ok {
        Ok(raw.to_string())
    } else {
        Err(invalid(
            "key must be 1 to 64 characters: letters, digits, '_', '-' or '.'",
        ))
    }
}

pub fn parse_name(raw: &str) -> Result<String, AchievementError> {
    let name = raw.trim();
    if name.is_empty() || name.chars().count() > MAX_NAME_LENGTH {
        return Err(invalid("name must be 1 to 128 characters"));
    }
    Ok(name.to_string())
}

pub fn parse_description(raw: &str) -> Result<String, AchievementError> {
    if raw.chars().count() > MAX_DESCRIPTION_LENGTH {
        return Err(invalid("description must be at most 1000 characters"));
    }
    Ok(raw.to_string())
}

/// An icon URL: empty, or an http(s) URL of at most 2048 characters.
pub fn parse_icon_url(raw: Option<&str>) -> Result<String, AchievementError> {
    let url = raw.unwrap_or_default().trim();
    if url.is_empty() {
        return Ok(String::new());
    }
    let scheme_ok = url.starts_with("https://") || url.starts_with("http://");
    if !scheme_ok || url.len() > MAX_ICON_URL_LENGTH || url.chars().any(char::is_whitespace) {
        return Err(invalid(
            "icon_url must be empty or an http(s) URL of at most 2048 characters",
        ));
    }
    Ok(url.to_string())
}

pub fn parse_points(raw: i64) -> Result<i32, AchievementError> {
    if !(0..=MAX_POINTS).contains(&raw) {
        return Err(invalid("points must be an integer from 0 to 1000000"));
    }
    Ok(raw as i32)
}

/// A validated definition, ready to store.
pub struct NewAchievement {
    pub key: String,
    pub name: String,
    pub description: String,
    pub icon_url: String,
    pub points: i32,
    pub hidden: bool,
}

/// Validated changes; `None` leaves a field as it is.
#[derive(Default)]
pub struct AchievementChanges {
    pub name: Option<String>,
    pub description: Option<String>,
    pub icon_url: Option<String>,
    pub points: Option<i32>,
    pub hidden: Option<bool>,
}

#[tracing::instrument(skip_all, fields(game_id = %game_id))]
pub async fn create(
    state: &AppState,
    game_id: Uuid,
    new: NewAchievement,
) -> Result<achievements::Model, AchievementError> {
    let now = state.now();
    let model = achievements::Model {
        id: Uuid::now_v7(),
        game_id,
        key: new.key,
        name: new.name,
        description: new.description,
        icon_url: new.icon_url,
        points: new.points,
        hidden: new.hidden,
        unlock_count: 0,
        created_at: now,
        updated_at: now,
    };
    achievements::Entity::insert(achievements::ActiveModel::from(model.clone()))
        .exec_without_returning(&state.db)
        .await
        .map_err(|error| {
            if crate::error::is_constraint_violation(&error) {
                AchievementError::DuplicateKey
            } else {
                AchievementError::Store(error)
            }
        })?;
    Ok(model)
}

/// The game's achievements in the order they were defined.
pub async fn list(db: &Db, game_id: Uuid) -> Result<Vec<achievements::Model>, AchievementError> {
    Ok(achievements::Entity::find()
        .filter(achievements::Column::GameId.eq(game_id))
        .order_by_asc(achievements::Column::CreatedAt)
        .order_by_asc(achievements::Column::Key)
        .all(db)
        .await?)
}

pub async fn find<C: ConnectionTrait>(
    db: &C,
    game_id: Uuid,
    key: &str,
) -> Result<achievements::Model, AchievementError> {
    achievements::Entity::find()
        .filter(achievements::Column::GameId.eq(game_id))
        .filter(achievements::Column::Key.eq(key))
        .one(db)
        .await?
        .ok_or(AchievementError::NotFound)
}

#[tracing::instrument(skip_all, fields(game_id = %game_id))]
pub async fn update(
    state: &AppState,
    game_id: Uuid,
    key: &str,
    changes: AchievementChanges,
) -> Result<achievements::Model, AchievementError> {
    let current = find(&state.db, game_id, key).await?;
    let mut active = achievements::ActiveModel {
        id: Unchanged(current.id),
        updated_at: Set(state.now()),
        ..Default::default()
    };
    if let Some(name) = changes.name {
        active.name = Set(name);
    }
    if let Some(description) = changes.description {
        active.description = Set(description);
    }
    if let Some(icon_url) = changes.icon_url {
        active.icon_url = Set(icon_url);
    }
    if let Some(points) = changes.points {
        active.points = Set(points);
    }
    if let Some(hidden) = changes.hidden {
        active.hidden = Set(hidden);
    }
    Ok(active.update(&state.db).await?)
}

/// Deletes the definition and, with it, every player's unlock of it.
pub async fn delete(db: &Db, game_id: Uuid, key: &str) -> Result<(), AchievementError> {
    let deleted = achievements::Entity::delete_many()
        .filter(achievements::Column::GameId.eq(game_id))
        .filter(achievements::Column::Key.eq(key))
        .exec(db)
        .await?;
    if deleted.rows_affected == 0 {
        return Err(AchievementError::NotFound);
    }
    Ok(())
}

/// When `player_id` unlocked each of the game's achievements it has.
pub async fn unlocks_of(
    db: &Db,
    game_id: Uuid,
    player_id: &str,
) -> Result<HashMap<Uuid, DateTime<Utc>>, AchievementError> {
    Ok(achievement_unlocks::Entity::find()
        .filter(achievement_unlocks::Column::GameId.eq(game_id))
        .filter(achievement_unlocks::Column::PlayerId.eq(player_id))
        .all(db)
        .await?
        .into_iter()
        .map(|unlock| (unlock.achievement_id, unlock.unlocked_at))
        .collect())
}

/// The outcome of one unlock request.
pub struct Unlocked {
    pub achievement: achievements::Model,
    pub already_unlocked: bool,
    /// The player's points over every achievement they have, this one included.
    pub total_points: i64,
}

/// Unlocks `key` for `player_id`. The primary key on (achievement, player) makes concurrent
/// requests for one pair insert exactly one row; only that request bumps the unlock count.
#[tracing::instrument(skip_all, fields(game_id = %game_id))]
pub async fn unlock(
    state: &AppState,
    game_id: Uuid,
    key: &str,
    player_id: &str,
) -> Result<Unlocked, AchievementError> {
    let achievement = find(&state.db, game_id, key).await?;
    // The transaction starts with its write: on SQLite a transaction that reads first cannot
    // wait for the write lock and fails under concurrency instead.
    let txn = state.db.begin().await?;
    let inserted = achievement_unlocks::Entity::insert(achievement_unlocks::ActiveModel {
        achievement_id: Set(achievement.id),
        player_id: Set(player_id.to_string()),
        game_id: Set(game_id),
        unlocked_at: Set(state.now()),
    })
    .on_conflict(
        OnConflict::columns([
            achievement_unlocks::Column::AchievementId,
            achievement_unlocks::Column::PlayerId,
        ])
        .do_nothing()
        .to_owned(),
    )
    .exec_without_returning(&txn)
    .await
    .map_err(|error| {
        // The definition was deleted since it was read.
        if crate::error::is_constraint_violation(&error) {
            AchievementError::NotFound
        } else {
            AchievementError::Store(error)
        }
    })?;
    if inserted == 1 {
        achievements::Entity::update_many()
            .col_expr(
                achievements::Column::UnlockCount,
                Expr::col(achievements::Column::UnlockCount).add(1),
            )
            .filter(achievements::Column::Id.eq(achievement.id))
            .exec(&txn)
            .await?;
    }
    txn.commit().await?;
    let total_points = points_of(&state.db, game_id, player_id).await?;
    Ok(Unlocked {
        achievement,
        already_unlocked: inserted == 0,
        total_points,
    })
}

/// The sum of points over the achievements `player_id` has unlocked.
pub async fn points_of(db: &Db, game_id: Uuid, player_id: &str) -> Result<i64, AchievementError> {
    let statement = Statement::from_sql_and_values(
        db.get_database_backend(),
        "SELECT COALESCE(SUM(a.points), 0) AS total FROM achievement_unlocks u \
         JOIN achievements a ON a.id = u.achievement_id \
         WHERE u.game_id = $1 AND u.player_id = $2",
        [game_id.into(), player_id.into()],
    );
    let row = db.query_one_raw(statement).await?;
    Ok(match row {
        Some(row) => row.try_get::<i64>("", "total")?,
        None => 0,
    })
}

/// Counts "the game's players" for rarity: every distinct `actor_id` that sent the game an
/// event, plus every player that unlocked one of its achievements without ever sending one
/// (so rarity never exceeds 100 %).
pub async fn count_players(db: &Db, game_id: Uuid) -> Result<u64, AchievementError> {
    let statement = Statement::from_sql_and_values(
        db.get_database_backend(),
        "SELECT COUNT(*) AS players FROM (\
           SELECT actor_id AS player FROM events WHERE game_id = $1 \
           UNION \
           SELECT player_id AS player FROM achievement_unlocks WHERE game_id = $1\
         ) AS known_players",
        [game_id.into()],
    );
    let row = db.query_one_raw(statement).await?;
    Ok(match row {
        Some(row) => Ord::max(row.try_get::<i64>("", "players")?, 0) as u64,
        None => 0,
    })
}

/// Per-node cache of each game's player count. Counting distinct players scans the game's
/// events, which is too heavy to repeat on every list call; rarity may lag by up to
/// `PLAYER_COUNT_TTL_SECS`.
#[derive(Default)]
pub struct PlayerCounts {
    counts: Mutex<HashMap<Uuid, (u64, DateTime<Utc>)>>,
}

/// Bound on cached games before the cache starts over.
const MAX_CACHED_GAMES: usize = 10_000;

impl PlayerCounts {
    pub async fn get(
        &self,
        db: &Db,
        game_id: Uuid,
        now: DateTime<Utc>,
    ) -> Result<u64, AchievementError> {
        if let Some((count, at)) = self.counts.lock().get(&game_id).copied() {
            if now - at < Duration::seconds(PLAYER_COUNT_TTL_SECS) && now >= at {
                return Ok(count);
            }
        }
        let count = count_players(db, game_id).await?;
        let mut counts = self.counts.lock();
        if counts.len() >= MAX_CACHED_GAMES {
            counts.clear();
        }
        counts.insert(game_id, (count, now));
        Ok(count)
    }
}

/// Percent of `players` holding an achievement unlocked `unlock_count` times, two decimals.
pub fn rarity(unlock_count: i64, players: u64) -> f64 {
    if players == 0 || unlock_count <= 0 {
        return 0.0;
    }
    let percent = (unlock_count as f64 / players as f64 * 100.0).min(100.0);
    (percent * 100.0).round() / 100.0
}
