//! Game records: tiers, validation mode, per-game rate limit, membership and API keys.
use super::{access::Role, GameError};
use crate::{
    auth::{api_key, player_token::PlayerAuth, sha256_hex},
    state::AppState,
    words::{Environment, EventValidation, Tier, Word},
};
use entity::{api_keys, events, game_members, games, users};
use sea_orm::{
    sea_query::Expr, ActiveModelTrait, ActiveValue::Set, ColumnTrait, EntityTrait, PaginatorTrait,
    QueryFilter, QueryOrder, TransactionTrait,
};
use uuid::Uuid;

pub const MAX_NAME_LENGTH: usize = 100;

/// Monthly event quota of a tier (events per UTC calendar month).
pub fn monthly_quota(tier: Tier, event_quota: Option<i64>) -> u64 {
    if let Some(quota) = event_quota {
        return quota.max(0) as u64;
    }
    match tier {
        Tier::Studio => 10_000_000,
        Tier::Indie => 1_000_000,
        Tier::Free => 100_000,
    }
}

/// The quota an admin sets with `"unlimited"`: more events than any game sends in a month,
/// and still a whole number in JavaScript.
pub const UNLIMITED_EVENTS: u64 = 9_007_199_254_740_991;

/// How many boards a game's scores may create unless its owner says otherwise, and the most
/// an owner may allow.
pub const DEFAULT_SCORE_BOARD_LIMIT: u32 = 100;
pub const MAX_SCORE_BOARD_LIMIT: u32 = 10_000;

/// `score_board_limit` as the dashboard sends it: 0 to 10,000.
pub fn parse_score_board_limit(limit: u32) -> Result<i32, GameError> {
    if limit > MAX_SCORE_BOARD_LIMIT {
        return Err(GameError::Invalid(format!(
            "score_board_limit must be a whole number from 0 to {MAX_SCORE_BOARD_LIMIT}"
        )));
    }
    Ok(limit as i32)
}

/// `monthly_event_quota` as the dashboard sends it: a whole number of events or `"unlimited"`.
pub fn parse_event_quota(raw: &serde_json::Value) -> Result<i64, GameError> {
    let quota = match raw {
        serde_json::Value::String(word) if word == "unlimited" => Some(UNLIMITED_EVENTS),
        serde_json::Value::Number(number) => number.as_u64(),
        _ => None,
    };
    match quota {
        Some(quota @ 1..=UNLIMITED_EVENTS) => Ok(quota as i64),
        _ => Err(GameError::invalid(format!(
            "monthly_event_quota must be a whole number of events from 1 to {UNLIMITED_EVENTS}, \
             \"unlimited\", or null for the tier's quota"
        ))),
    }
}

pub fn parse_name(raw: &str) -> Result<String, GameError> {
    let name = raw.trim();
    if name.is_empty() || name.chars().count() > MAX_NAME_LENGTH {
        return Err(GameError::invalid("name must be 1 to 100 characters"));
    }
    Ok(name.to_string())
}

/// Origins a game may list for its browser builds.
pub const MAX_ALLOWED_ORIGINS: usize = 20;

/// Checks a game's list of allowed web origins: each `*` (any origin) or an origin exactly as
/// browsers send it (`https://game.example.com`, `http://localhost:5173`: scheme, host and a
/// port other than the default, no path or trailing slash). Stored as a JSON array; an empty
/// list is stored as none.
pub fn parse_origins(origins: &[String]) -> Result<Option<String>, GameError> {
    if origins.len() > MAX_ALLOWED_ORIGINS {
        return Err(GameError::invalid(format!(
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
            return Err(GameError::invalid(format!(
                "allowed_origins: {origin:?} is not an origin such as https://game.example.com (or *)"
            )));
        }
    }
    Ok((!origins.is_empty()).then(|| serde_json::json!(origins).to_string()))
}

/// Creates a game with `owner_id` as its owner, in one transaction.
/// `owned_cap`: the most games the owner may own (`--max-games-per-user`; none for the
/// instance admin). The owner's row is written first, which makes creations of one owner take
/// turns (a row lock on PostgreSQL, the write lock on SQLite), so two at once cannot both pass
/// the cap.
pub async fn create(
    state: &AppState,
    owner_id: Uuid,
    name: String,
    tier: Tier,
    currency: Currency,
    owned_cap: Option<u32>,
) -> Result<games::Model, GameError> {
    let now = state.now();
    let game = games::Model {
        id: Uuid::now_v7(),
        name,
        tier: tier.as_str().into(),
        event_validation: EventValidation::Off.as_str().into(),
        rate_limit_per_minute: None,
        allowed_origins: None,
        created_at: now,
        player_auth: PlayerAuth::Off.as_str().into(),
        player_secret: None,
        key_reads: true,
        player_rate_limit_per_minute: None,
        max_rate_limit_per_minute: None,
        retention_days: None,
        event_quota: None,
        leaderboards_from_scores: true,
        score_board_limit: DEFAULT_SCORE_BOARD_LIMIT as i32,
        currency: currency.into_string(),
    };
    let txn = state.db.begin().await?;
    if let Some(cap) = owned_cap {
        users::Entity::update_many()
            .col_expr(users::Column::Id, Expr::col(users::Column::Id))
            .filter(users::Column::Id.eq(owner_id))
            .exec(&txn)
            .await?;
        let owned = game_members::Entity::find()
            .filter(game_members::Column::UserId.eq(owner_id))
            .filter(game_members::Column::Role.eq(Role::Owner.as_str()))
            .count(&txn)
            .await?;
        if owned >= u64::from(cap) {
            return Err(GameError::OwnedGamesCap(cap));
        }
    }
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
) -> Result<Vec<(games::Model, Role)>, GameError> {
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

/// A rate limit (`field`) as the dashboard sends it: positive, capped to what is stored.
pub fn parse_rate_limit(field: &str, raw: u32) -> Result<i32, GameError> {
    if raw == 0 {
        return Err(GameError::invalid(format!("{field} must be positive")));
    }
    Ok(raw.min(i32::MAX as u32) as i32)
}

/// The longest event retention a game may set: ten years.
pub const MAX_RETENTION_DAYS: u32 = 3650;

pub fn parse_retention_days(raw: u32) -> Result<i32, GameError> {
    if !(1..=MAX_RETENTION_DAYS).contains(&raw) {
        return Err(GameError::invalid(format!(
            "retention_days must be 1 to {MAX_RETENTION_DAYS}, or null to keep events for good"
        )));
    }
    Ok(raw as i32)
}

/// The ISO 4217 code a game's purchase amounts are in, e.g. `USD` or `EUR`: three capital
/// letters (the dashboard formats revenue with it; the server never converts amounts).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Currency(String);

impl Currency {
    pub fn parse(raw: &str) -> Result<Self, GameError> {
        if raw.len() != 3 || !raw.bytes().all(|b| b.is_ascii_uppercase()) {
            return Err(GameError::invalid(
                "currency must be an ISO 4217 code: three capital letters, e.g. USD or EUR",
            ));
        }
        Ok(Self(raw.to_string()))
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

impl Default for Currency {
    fn default() -> Self {
        Self("USD".into())
    }
}

/// A new secret for the studio's backend to sign custom player ids with; the old one stops
/// working at once (on every node within the key cache's time).
pub async fn rotate_player_secret(
    state: &AppState,
    game: games::Model,
) -> Result<String, GameError> {
    let secret = format!("pts_{}", crate::auth::random_hex(32));
    let mut row: games::ActiveModel = game.into();
    row.player_secret = Set(Some(secret.clone()));
    let updated = row.update(&state.db).await?;
    state.game_changed(updated.id).await;
    Ok(secret)
}

/// The fields of a game to change, each already checked; `None` leaves a field as it is.
#[derive(Debug, Default)]
pub struct GameChanges {
    pub name: Option<String>,
    pub tier: Option<Tier>,
    pub event_validation: Option<EventValidation>,
    /// `Some(None)` goes back to the instance default.
    pub rate_limit_per_minute: Option<Option<i32>>,
    /// `Some(None)` allows no origin.
    pub allowed_origins: Option<Option<String>>,
    pub player_auth: Option<PlayerAuth>,
    pub key_reads: Option<bool>,
    /// `Some(None)` goes back to the default.
    pub player_rate_limit_per_minute: Option<Option<i32>>,
    /// `Some(None)` goes back to the instance default.
    pub max_rate_limit_per_minute: Option<Option<i32>>,
    /// `Some(None)` keeps events for good.
    pub retention_days: Option<Option<i32>>,
    /// `Some(None)` goes back to the tier's quota.
    pub event_quota: Option<Option<i64>>,
    pub leaderboards_from_scores: Option<bool>,
    pub score_board_limit: Option<i32>,
    pub currency: Option<Currency>,
}

pub async fn update(
    state: &AppState,
    game: games::Model,
    changes: GameChanges,
) -> Result<games::Model, GameError> {
    let mut row: games::ActiveModel = game.into();
    if let Some(name) = changes.name {
        row.name = Set(name);
    }
    if let Some(tier) = changes.tier {
        row.tier = Set(tier.as_str().into());
    }
    if let Some(mode) = changes.event_validation {
        row.event_validation = Set(mode.as_str().into());
    }
    if let Some(limit) = changes.rate_limit_per_minute {
        row.rate_limit_per_minute = Set(limit);
    }
    if let Some(origins) = changes.allowed_origins {
        row.allowed_origins = Set(origins);
    }
    if let Some(mode) = changes.player_auth {
        row.player_auth = Set(mode.as_str().into());
    }
    if let Some(key_reads) = changes.key_reads {
        row.key_reads = Set(key_reads);
    }
    if let Some(limit) = changes.player_rate_limit_per_minute {
        row.player_rate_limit_per_minute = Set(limit);
    }
    if let Some(cap) = changes.max_rate_limit_per_minute {
        row.max_rate_limit_per_minute = Set(cap);
    }
    if let Some(quota) = changes.event_quota {
        row.event_quota = Set(quota);
    }
    if let Some(currency) = changes.currency {
        row.currency = Set(currency.into_string());
    }
    if let Some(days) = changes.retention_days {
        row.retention_days = Set(days);
    }
    if let Some(allowed) = changes.leaderboards_from_scores {
        row.leaderboards_from_scores = Set(allowed);
    }
    if let Some(limit) = changes.score_board_limit {
        row.score_board_limit = Set(limit);
    }
    let updated = row.update(&state.db).await?;
    state.game_changed(updated.id).await;
    Ok(updated)
}

pub async fn delete(state: &AppState, game_id: Uuid) -> Result<(), GameError> {
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
    crate::aggregates::forget_game(&txn, game_id).await?;
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

/// The game's members with their accounts, oldest membership first.
pub async fn members(
    state: &AppState,
    game_id: Uuid,
) -> Result<Vec<(game_members::Model, users::Model)>, GameError> {
    let rows = game_members::Entity::find()
        .filter(game_members::Column::GameId.eq(game_id))
        .find_also_related(users::Entity)
        .order_by_asc(game_members::Column::CreatedAt)
        .all(&state.db)
        .await?;
    Ok(rows
        .into_iter()
        .filter_map(|(member, user)| Some((member, user?)))
        .collect())
}

/// Makes `user_id` a member of the game with `role`; `AlreadyMember` when it is one.
pub async fn add_member(
    state: &AppState,
    game_id: Uuid,
    user_id: Uuid,
    role: Role,
) -> Result<game_members::Model, GameError> {
    let member = game_members::Model {
        game_id,
        user_id,
        role: role.as_str().into(),
        created_at: state.now(),
    };
    match game_members::Entity::insert(game_members::ActiveModel::from(member.clone()))
        .exec_without_returning(&state.db)
        .await
    {
        Ok(_) => Ok(member),
        Err(e) if crate::error::is_constraint_violation(&e) => Err(GameError::AlreadyMember),
        Err(e) => Err(e.into()),
    }
}

/// Gives a member another role. A game always keeps at least one owner.
pub async fn change_member_role(
    state: &AppState,
    game_id: Uuid,
    user_id: Uuid,
    role: Role,
) -> Result<(game_members::Model, users::Model), GameError> {
    let (member, user) = find_member(state, game_id, user_id).await?;
    if member.role == Role::Owner.as_str() && role != Role::Owner {
        ensure_other_owner(state, game_id).await?;
    }
    let mut changes: game_members::ActiveModel = member.into();
    changes.role = Set(role.as_str().into());
    let member = changes.update(&state.db).await?;
    Ok((member, user))
}

/// Takes a member off the game and closes their live feeds. A game always keeps at least one
/// owner.
pub async fn remove_member(
    state: &AppState,
    game_id: Uuid,
    user_id: Uuid,
) -> Result<(), GameError> {
    let (member, _) = find_member(state, game_id, user_id).await?;
    if member.role == Role::Owner.as_str() {
        ensure_other_owner(state, game_id).await?;
    }
    game_members::Entity::delete_by_id((game_id, user_id))
        .exec(&state.db)
        .await?;
    revoke_live_feeds(state, game_id, Some(user_id)).await;
    Ok(())
}

pub async fn find_member(
    state: &AppState,
    game_id: Uuid,
    user_id: Uuid,
) -> Result<(game_members::Model, users::Model), GameError> {
    let found = game_members::Entity::find_by_id((game_id, user_id))
        .find_also_related(users::Entity)
        .one(&state.db)
        .await?;
    match found {
        Some((member, Some(user))) => Ok((member, user)),
        _ => Err(GameError::NoSuchMember),
    }
}

async fn ensure_other_owner(state: &AppState, game_id: Uuid) -> Result<(), GameError> {
    let owners = game_members::Entity::find()
        .filter(game_members::Column::GameId.eq(game_id))
        .filter(game_members::Column::Role.eq(Role::Owner.as_str()))
        .count(&state.db)
        .await?;
    if owners <= 1 {
        return Err(GameError::LastOwner);
    }
    Ok(())
}

/// Longest API key label.
pub const MAX_KEY_NAME_LENGTH: usize = 100;

/// A new key's environment (`development` or `production`) and label (default
/// `<environment> key`, up to 100 characters).
pub fn parse_key(
    environment: &Word<Environment>,
    name: Option<&str>,
) -> Result<(Environment, String), GameError> {
    let environment = environment.parse()?;
    let name = name
        .map(str::to_string)
        .unwrap_or_else(|| format!("{environment} key"));
    if name.chars().count() > MAX_KEY_NAME_LENGTH {
        return Err(GameError::invalid("name must be at most 100 characters"));
    }
    Ok((environment, name))
}

/// Stores a new API key for the game and returns it with the raw key, which is never stored
/// (only its hash and a shown prefix are).
pub async fn create_key(
    state: &AppState,
    game_id: Uuid,
    environment: Environment,
    name: String,
) -> Result<(api_keys::Model, String), GameError> {
    let raw = api_key::generate();
    let key = api_keys::Model {
        id: Uuid::now_v7(),
        game_id,
        name,
        environment: environment.as_str().into(),
        key_hash: sha256_hex(&raw),
        key_prefix: api_key::shown_prefix(&raw),
        created_at: state.now(),
        revoked_at: None,
    };
    api_keys::Entity::insert(api_keys::ActiveModel::from(key.clone()))
        .exec_without_returning(&state.db)
        .await?;
    Ok((key, raw))
}

/// The game's keys that are not revoked, oldest first.
pub async fn active_keys(
    state: &AppState,
    game_id: Uuid,
) -> Result<Vec<api_keys::Model>, GameError> {
    Ok(api_keys::Entity::find()
        .filter(api_keys::Column::GameId.eq(game_id))
        .filter(api_keys::Column::RevokedAt.is_null())
        .order_by_asc(api_keys::Column::CreatedAt)
        .all(&state.db)
        .await?)
}

/// Revokes one of the game's active keys; every node stops accepting it.
pub async fn revoke_key(state: &AppState, game_id: Uuid, key_id: Uuid) -> Result<(), GameError> {
    let revoked = api_keys::Entity::update_many()
        .col_expr(api_keys::Column::RevokedAt, Expr::value(state.now()))
        .filter(api_keys::Column::Id.eq(key_id))
        .filter(api_keys::Column::GameId.eq(game_id))
        .filter(api_keys::Column::RevokedAt.is_null())
        .exec(&state.db)
        .await?;
    if revoked.rows_affected == 0 {
        return Err(GameError::NoSuchKey);
    }
    state.game_changed(game_id).await;
    Ok(())
}
