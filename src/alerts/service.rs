//! Alert rules as stored: creating (at most 100 per game), reading with the caller's standing
//! on the rule's game, changing, deleting, the firing history and the test message.
use super::{
    deliver::test_embed,
    rules::{self, AlertType},
    AlertError,
};
use crate::{
    analytics::Metric,
    games::{access::Role, require_role, GameError},
    notify::webhook,
    state::AppState,
};
use entity::{alert_history, alert_rules};
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter,
    QueryOrder, QuerySelect,
};
use uuid::Uuid;

pub const DEFAULT_HISTORY_LIMIT: u64 = 50;
pub const MAX_HISTORY_LIMIT: u64 = 200;

/// A rule to create, each field already checked.
pub struct NewRule {
    pub game_id: Uuid,
    pub name: String,
    pub kind: AlertType,
    /// The metric of a metric kind.
    pub metric: Option<Metric>,
    pub threshold: f64,
    pub comparison_window_hours: i32,
    pub email: String,
    pub discord_webhook_url: Option<String>,
    pub environment: Option<String>,
    pub enabled: bool,
}

/// The fields of a rule to change, each already checked; `None` leaves a field as it is.
#[derive(Default)]
pub struct RuleChanges {
    pub name: Option<String>,
    pub kind: Option<AlertType>,
    /// `Some(None)`: no metric (a fixed kind).
    pub metric: Option<Option<Metric>>,
    pub threshold: Option<f64>,
    pub comparison_window_hours: Option<i32>,
    pub email: Option<String>,
    /// `Some(None)` removes the webhook.
    pub discord_webhook_url: Option<Option<String>>,
    /// `Some(None)`: both environments.
    pub environment: Option<Option<String>>,
    pub enabled: Option<bool>,
}

/// How many firings a history page holds: 1 to 200, default 50.
pub fn parse_history_limit(raw: Option<i64>) -> Result<u64, AlertError> {
    match raw {
        None => Ok(DEFAULT_HISTORY_LIMIT),
        Some(n) if (1..=MAX_HISTORY_LIMIT as i64).contains(&n) => Ok(n as u64),
        Some(_) => Err(AlertError::invalid("limit must be between 1 and 200")),
    }
}

/// The rule and the caller's role on its game. A rule of a game the caller is not a member of
/// is `RuleNotFound` like an unknown one; a member without `needed` gets `RoleNeeded`.
pub async fn rule_for(
    state: &AppState,
    user_id: Uuid,
    rule_id: &str,
    needed: Role,
) -> Result<(alert_rules::Model, Role), AlertError> {
    let rule_id = Uuid::parse_str(rule_id).map_err(|_| AlertError::RuleNotFound)?;
    let rule = alert_rules::Entity::find_by_id(rule_id)
        .one(&state.db)
        .await?
        .ok_or(AlertError::RuleNotFound)?;
    let access = match require_role(&state.db, user_id, rule.game_id, Role::Viewer).await {
        Ok(access) => access,
        Err(GameError::NoAccess | GameError::RoleNeeded(_)) => {
            return Err(AlertError::RuleNotFound)
        }
        Err(error) => return Err(error.into()),
    };
    if access.role < needed {
        return Err(GameError::RoleNeeded(needed).into());
    }
    Ok((rule, access.role))
}

/// Stores a new rule, unless its game already has `MAX_RULES_PER_GAME`.
pub async fn create(state: &AppState, new: NewRule) -> Result<alert_rules::Model, AlertError> {
    let existing = alert_rules::Entity::find()
        .filter(alert_rules::Column::GameId.eq(new.game_id))
        .count(&state.db)
        .await?;
    if existing >= rules::MAX_RULES_PER_GAME {
        return Err(AlertError::TooManyRules);
    }
    let now = state.now();
    let rule = alert_rules::Model {
        id: Uuid::now_v7(),
        game_id: new.game_id,
        name: new.name,
        alert_type: new.kind.as_str().into(),
        metric: new.metric.map(|m| m.as_str().to_string()),
        threshold: new.threshold,
        comparison_window_hours: new.comparison_window_hours,
        email: new.email,
        discord_webhook_url: new.discord_webhook_url,
        environment: new.environment,
        enabled: new.enabled,
        last_fired_at: None,
        created_at: now,
        updated_at: now,
    };
    alert_rules::Entity::insert(alert_rules::ActiveModel::from(rule.clone()))
        .exec_without_returning(&state.db)
        .await?;
    Ok(rule)
}

/// The game's rules, oldest first.
pub async fn list(state: &AppState, game_id: Uuid) -> Result<Vec<alert_rules::Model>, AlertError> {
    Ok(alert_rules::Entity::find()
        .filter(alert_rules::Column::GameId.eq(game_id))
        .order_by_asc(alert_rules::Column::CreatedAt)
        .order_by_asc(alert_rules::Column::Id)
        .all(&state.db)
        .await?)
}

/// The game's latest `limit` firings, newest first.
pub async fn history(
    state: &AppState,
    game_id: Uuid,
    limit: u64,
) -> Result<Vec<alert_history::Model>, AlertError> {
    Ok(alert_history::Entity::find()
        .filter(alert_history::Column::GameId.eq(game_id))
        .order_by_desc(alert_history::Column::TriggeredAt)
        .order_by_desc(alert_history::Column::Id)
        .limit(limit)
        .all(&state.db)
        .await?)
}

pub async fn update(
    state: &AppState,
    rule: alert_rules::Model,
    changes: RuleChanges,
) -> Result<alert_rules::Model, AlertError> {
    let mut row: alert_rules::ActiveModel = rule.into();
    if let Some(name) = changes.name {
        row.name = Set(name);
    }
    if let Some(kind) = changes.kind {
        row.alert_type = Set(kind.as_str().into());
    }
    if let Some(metric) = changes.metric {
        row.metric = Set(metric.map(|m| m.as_str().to_string()));
    }
    if let Some(threshold) = changes.threshold {
        row.threshold = Set(threshold);
    }
    if let Some(window) = changes.comparison_window_hours {
        row.comparison_window_hours = Set(window);
    }
    if let Some(email) = changes.email {
        row.email = Set(email);
    }
    if let Some(webhook) = changes.discord_webhook_url {
        row.discord_webhook_url = Set(webhook);
    }
    if let Some(environment) = changes.environment {
        row.environment = Set(environment);
    }
    if let Some(enabled) = changes.enabled {
        row.enabled = Set(enabled);
    }
    row.updated_at = Set(state.now());
    Ok(row.update(&state.db).await?)
}

/// Deletes a rule; its history stays.
pub async fn delete(state: &AppState, rule_id: Uuid) -> Result<(), AlertError> {
    alert_rules::Entity::delete_by_id(rule_id)
        .exec(&state.db)
        .await?;
    Ok(())
}

/// Sends the test message to the rule's webhook. `Ok(Err(..))`: it was not delivered.
pub async fn test_webhook(
    state: &AppState,
    rule: &alert_rules::Model,
) -> Result<Result<(), webhook::WebhookError>, AlertError> {
    let Some(url) = &rule.discord_webhook_url else {
        return Err(AlertError::NoWebhook);
    };
    let body = test_embed(rule, state.now());
    Ok(webhook::post_json(url, &body, state.settings.allow_private_webhooks).await)
}
