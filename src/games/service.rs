//! Game records: tiers, validation mode, per-game rate limit, membership.
use super::access::Role;
use crate::{error::ApiError, state::AppState};
use entity::{events, game_members, games, users};
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter, QueryOrder,
    TransactionTrait,
};
use uuid::Uuid;

pub const TIERS: &[&str] = &["free", "indie", "studio"];
pub const VALIDATION_MODES: &[&str] = &["off", "warn", "enforce"];
pub const MAX_NAME_LENGTH: usize = 100;

/// Monthly event quota of a tier (events per UTC calendar month).
pub fn monthly_quota(tier: &str) -> u64 {
    match tier {
        "studio" => 10_000_000,
        "indie" => 1_000_000,
        _ => 100_000,
    }
}

pub fn parse_name(raw: &str) -> Result<String, ApiError> {
    let name = raw.trim();
    if name.is_empty() || name.chars().count() > MAX_NAME_LENGTH {
        return Err(ApiError::bad_request("name must be 1 to 100 characters"));
    }
    Ok(name.to_string())
}

pub fn parse_tier(raw: &str) -> Result<String, ApiError> {
    if TIERS.contains(&raw) {
        Ok(raw.to_string())
    } else {
        Err(ApiError::bad_request(
            "tier must be one of: free, indie, studio",
        ))
    }
}

pub fn parse_validation(raw: &str) -> Result<String, ApiError> {
    if VALIDATION_MODES.contains(&raw) {
        Ok(raw.to_string())
    } else {
        Err(ApiError::bad_request(
            "event_validation must be one of: off, warn, enforce",
        ))
    }
}

/// Origins a game may list for its browser builds.
pub const MAX_ALLOWED_ORIGINS: usize = 20;

/// Checks a game's list of allowed web origins: each `*` (any origin) or an origin exactly as
/// browsers send it (`https://game.example.com`, `http://localhost:5173`: scheme, host and a
/// port other than the default, no path or trailing slash). Stored as a JSON array; an empty
/// list is stored as none.
pub fn parse_origins(origins: &[String]) -> Result<Option<String>, ApiError> {
    if origins.len() > MAX_ALLOWED_ORIGINS {
        return Err(ApiError::bad_request(format!(
            "allowed_origins holds at most {MAX_ALLOWED_ORIGINS} origins"
        )));
    }
    for origin in origins {
        let exact = origin == "*"
            || reqwest::Url::parse(origin).is_ok_and(|url| {
                matches!(url.scheme(), "http" | "https")
                    && url.origin().ascii_serialization() == *origin
            });
        if !exact {
            return Err(ApiError::bad_request(format!(
                "allowed_origins: {origin:?} is not an origin such as https://game.example.com (or *)"
            )));
        }
    }
    Ok((!origins.is_empty()).then(|| serde_json::json!(origins).to_string()))
}

/// The web origins a game allows (see `parse_origins`).
pub fn origins_of(game: &games::Model) -> Vec<String> {
    game.allowed_origins
        .as_deref()
        .and_then(|json| serde_json::from_str(json).ok())
        .unwrap_or_default()
}

/// Creates a game with `owner_id` as its owner, in one transaction.
pub async fn create(
    state: &AppState,
    owner_id: Uuid,
    name: String,
    tier: String,
) -> Result<games::Model, ApiError> {
    let now = state.now();
    let game = games::Model {
        id: Uuid::now_v7(),
        name,
        tier,
        event_validation: "off".into(),
        rate_limit_per_minute: None,
        allowed_origins: None,
        created_at: now,
    };
    let txn = state.db.begin().await?;
    games::Entity::insert(games::ActiveModel::from(game.clone()))
        .exec_without_returning(&txn)
        .await?;
    game_members::Entity::insert(game_members::ActiveModel {
        game_id: Set(game.id),
        user_id: Set(owner_id),
        role: Set(Role::Owner.as_str().into()),
        created_at: Set(now),
    })
    .exec_without_returning(&txn)
    .await?;
    txn.commit().await?;
    Ok(game)
}

/// The games a user can see with their role: an admin sees every game (as owner).
pub async fn list_for(
    state: &AppState,
    user: &users::Model,
) -> Result<Vec<(games::Model, Role)>, ApiError> {
    if user.is_admin {
        let all = games::Entity::find()
            .order_by_asc(games::Column::CreatedAt)
            .all(&state.db)
            .await?;
        return Ok(all.into_iter().map(|g| (g, Role::Owner)).collect());
    }
    let rows = game_members::Entity::find()
        .filter(game_members::Column::UserId.eq(user.id))
        .find_also_related(games::Entity)
        .order_by_asc(game_members::Column::CreatedAt)
        .all(&state.db)
        .await?;
    Ok(rows
        .into_iter()
        .filter_map(|(member, game)| Some((game?, Role::parse(&member.role).ok()?)))
        .collect())
}

pub async fn update(
    state: &AppState,
    changes: games::ActiveModel,
) -> Result<games::Model, ApiError> {
    let updated = changes.update(&state.db).await?;
    state.game_changed(updated.id).await;
    Ok(updated)
}

pub async fn delete(state: &AppState, game_id: Uuid) -> Result<(), ApiError> {
    let txn = state.db.begin().await?;
    games::Entity::delete_by_id(game_id).exec(&txn).await?;
    // On PostgreSQL events have no foreign key to cascade along (the event writer checks and
    // locks the game once per group instead). Deleted after the game: a group still storing
    // events for it held this transaction back until it committed, and a later group finds
    // the game gone. (On SQLite the cascade has already done it.)
    events::Entity::delete_many()
        .filter(events::Column::GameId.eq(game_id))
        .exec(&txn)
        .await?;
    txn.commit().await?;
    state.game_changed(game_id).await;
    revoke_live_feeds(state, game_id, None).await;
    Ok(())
}

/// Closes the live presence feeds (`/v1/activity/stream`) that `user_id` (everyone: `None`)
/// has open on the game, on every node, unless they still have access (an instance admin).
/// The change itself is already stored, so a hot-store failure here is only logged: those
/// connections then stay open until they close on their own.
pub async fn revoke_live_feeds(state: &AppState, game_id: Uuid, user_id: Option<Uuid>) {
    if let Err(error) = state.hot.presence.revoke(game_id, user_id).await {
        tracing::warn!(error.cause_chain = ?error, %game_id, "live feeds not told of lost access");
    }
}
