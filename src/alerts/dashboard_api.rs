//! `/v1/alerts`: alert rules, their history, a test webhook and an evaluate-now button.
//! Members only: viewers read, editors and owners write.
use super::{
    evaluate,
    rules::{self, AlertType},
    service::{self, NewRule, RuleChanges},
    AlertError,
};
use crate::http::schema::Timestamp;
use crate::words::{self, DeliveryStatus, Environment, Word};
use crate::{
    accounts::service::Email,
    auth::BearerAuth,
    games::{access::Role, require_role},
    http::ApiTags,
    http::NoContent,
    notify::webhook,
    state::AppState,
};
use entity::{alert_history, alert_rules};
use poem_openapi::{
    param::{Path, Query},
    payload::Json,
    types::MaybeUndefined,
    ApiResponse, Object, OpenApi,
};
use uuid::Uuid;

pub struct AlertsApi {
    pub state: AppState,
}

#[derive(Object)]
#[oai(deny_unknown_fields)]
pub struct CreateAlertRule {
    /// The game the rule watches.
    pub game_id: Uuid,
    /// 1 to 100 characters.
    pub name: String,
    /// `crash_spike`, `log_error_spike`, `revenue_drop`, `dau_drop`, `retention_drop`, or
    /// `metric_spike` / `metric_drop` with `metric`.
    #[oai(rename = "type")]
    pub kind: Word<words::AlertType>,
    /// For `metric_spike` and `metric_drop` (required there, refused otherwise): the metric
    /// watched by day, any name of `GET /v1/games/{game_id}/metrics` (`new_users`, `sessions`,
    /// `session_length`, `paying_users`, `arpdau`, `arppu`, `conversion`, `retention_d1`, ...).
    #[oai(nullable)]
    pub metric: Option<String>,
    /// Spikes fire when current >= baseline x threshold (2.0 = at 200%); drops fire when
    /// current < baseline x threshold (0.7 = below 70%). Above 0, at most 1000.
    pub threshold: f64,
    /// Baseline window in hours (1 to 2160), e.g. 24, 72, 168 or 720.
    pub comparison_window_hours: i64,
    /// Where the notification e-mail goes.
    pub email: String,
    /// Optional Discord-compatible webhook (http or https; public addresses only).
    #[oai(nullable)]
    pub discord_webhook_url: Option<String>,
    /// Watch only events sent with `development` or `production` keys (default: both).
    #[oai(nullable)]
    pub environment: Option<Word<Environment>>,
    /// Default true; a disabled rule is never fired.
    #[oai(nullable)]
    pub enabled: Option<bool>,
}

#[derive(Object)]
#[oai(deny_unknown_fields)]
pub struct UpdateAlertRule {
    #[oai(nullable)]
    pub name: Option<String>,
    #[oai(rename = "type")]
    #[oai(nullable)]
    pub kind: Option<Word<words::AlertType>>,
    /// The metric of a `metric_spike` / `metric_drop` rule (kept when only `type` changes
    /// between the two; cleared when the rule becomes a fixed kind).
    #[oai(nullable)]
    pub metric: MaybeUndefined<String>,
    #[oai(nullable)]
    pub threshold: Option<f64>,
    #[oai(nullable)]
    pub comparison_window_hours: Option<i64>,
    #[oai(nullable)]
    pub email: Option<String>,
    /// A URL sets the webhook; `null` or `""` removes it.
    #[oai(nullable)]
    pub discord_webhook_url: MaybeUndefined<String>,
    /// `development`, `production`, or `null` for both.
    #[oai(nullable)]
    pub environment: MaybeUndefined<String>,
    #[oai(nullable)]
    pub enabled: Option<bool>,
}

/// An alert rule as stored.
#[derive(Object)]
pub struct AlertRule {
    pub rule_id: String,
    pub game_id: String,
    pub name: String,
    #[oai(rename = "type")]
    pub kind: words::AlertType,
    /// The metric a `metric_spike` / `metric_drop` rule watches; null for the fixed kinds.
    #[oai(nullable)]
    pub metric: Option<String>,
    pub threshold: f64,
    pub comparison_window_hours: i32,
    pub email: String,
    /// The webhook URL; viewers see only its scheme and host, since the path is a secret.
    #[oai(nullable)]
    pub discord_webhook_url: Option<String>,
    #[oai(nullable)]
    pub environment: Option<Environment>,
    pub enabled: bool,
    /// When the rule last fired; it fires again at the earliest 60 minutes later.
    #[oai(nullable)]
    pub last_fired_at: Option<Timestamp>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

#[derive(Object)]
pub struct AlertRuleList {
    pub rules: Vec<AlertRule>,
}

/// One firing of a rule.
#[derive(Object)]
pub struct AlertHistoryItem {
    pub id: String,
    pub rule_id: String,
    /// The rule's name when it fired.
    pub name: String,
    #[oai(rename = "type")]
    pub kind: words::AlertType,
    /// The metric of a `metric_spike` / `metric_drop` rule; null for the fixed kinds.
    #[oai(nullable)]
    pub metric: Option<String>,
    pub current_value: f64,
    pub baseline_value: f64,
    /// Change from the baseline in percent.
    pub change_percent: f64,
    /// `sent`, `failed` or `skipped` (no SMTP server configured).
    pub email_status: String,
    /// `sent`, `failed` or `skipped` (no webhook on the rule).
    pub webhook_status: String,
    /// What went wrong with a failed delivery; null when nothing did.
    #[oai(nullable)]
    pub error: Option<String>,
    pub triggered_at: Timestamp,
}

#[derive(Object)]
pub struct AlertHistoryList {
    pub history: Vec<AlertHistoryItem>,
}

/// The result of evaluating a rule now.
#[derive(Object)]
pub struct EvaluationResult {
    /// The rule fired: notifications went out and a history record was written.
    pub fired: bool,
    /// The trigger rule is met (it may still not fire while cooling down or disabled).
    pub triggered: bool,
    pub current_value: f64,
    pub baseline_value: f64,
    pub change_percent: f64,
    /// Why it fired or not, in words.
    pub reason: String,
    /// The history record written when it fired.
    #[oai(skip_serializing_if_is_none)]
    #[oai(nullable)]
    pub history_id: Option<String>,
    /// When it fired: what became of the e-mail (`skipped`: no SMTP server configured).
    #[oai(skip_serializing_if_is_none)]
    pub email_status: Option<DeliveryStatus>,
    /// When it fired: what became of the webhook message (`skipped`: the rule has none).
    #[oai(skip_serializing_if_is_none)]
    pub webhook_status: Option<DeliveryStatus>,
    /// Why the e-mail failed, when it did.
    #[oai(skip_serializing_if_is_none)]
    pub email_error: Option<String>,
    /// Why the webhook message failed, when it did (never the receiver's response body).
    #[oai(skip_serializing_if_is_none)]
    pub webhook_error: Option<String>,
}

/// What became of a test message.
#[derive(Object)]
pub struct WebhookTestResult {
    /// `sent` or `failed`.
    pub webhook_status: String,
    /// Why it failed (never the receiver's response body).
    #[oai(nullable)]
    pub error: Option<String>,
}

#[derive(ApiResponse)]
pub enum RuleCreated {
    #[oai(status = 201)]
    Created(Json<AlertRule>),
}

fn rule_view(rule: alert_rules::Model, role: Role) -> Result<AlertRule, AlertError> {
    let webhook = rule.discord_webhook_url.map(|url| {
        if role >= Role::Editor {
            url
        } else {
            masked(&url)
        }
    });
    Ok(AlertRule {
        rule_id: rule.id.to_string(),
        game_id: rule.game_id.to_string(),
        name: rule.name,
        kind: AlertType::stored(&rule.alert_type)?,
        metric: rule.metric,
        threshold: rule.threshold,
        comparison_window_hours: rule.comparison_window_hours,
        email: rule.email,
        discord_webhook_url: webhook,
        environment: rule
            .environment
            .as_deref()
            .map(Environment::stored)
            .transpose()?,
        enabled: rule.enabled,
        last_fired_at: rule.last_fired_at.map(Timestamp::from),
        created_at: Timestamp::from(rule.created_at),
        updated_at: Timestamp::from(rule.updated_at),
    })
}

/// `https://host/…`: enough to recognise a webhook without handing out its token.
fn masked(url: &str) -> String {
    match webhook::parse_url(url) {
        Ok(parsed) => format!(
            "{}://{}/…",
            parsed.scheme(),
            parsed.host_str().unwrap_or_default()
        ),
        Err(_) => "…".into(),
    }
}

fn history_view(item: alert_history::Model) -> Result<AlertHistoryItem, AlertError> {
    Ok(AlertHistoryItem {
        id: item.id.to_string(),
        rule_id: item.rule_id.to_string(),
        name: item.name,
        kind: AlertType::stored(&item.alert_type)?,
        metric: item.metric,
        current_value: item.current_value,
        baseline_value: item.baseline_value,
        change_percent: item.change_percent,
        email_status: item.email_status,
        webhook_status: item.webhook_status,
        error: item.error,
        triggered_at: Timestamp::from(item.triggered_at),
    })
}

/// What each operation here answers beyond the universal statuses (`http::error_responses`):
/// 403: not a member, or a role below the one needed; 404: an unknown rule (or one of a game
/// the caller is not a member of); 409: the game has the most rules it may.
pub const STATUSES: crate::http::Statuses = crate::http::statuses! {
    createAlertRule: [403, 409],
    listAlertRules: [403],
    listAlertHistory: [403],
    getAlertRule: [404],
    updateAlertRule: [403, 404],
    deleteAlertRule: [403, 404],
    testAlertWebhook: [403, 404],
    evaluateAlertRule: [403, 404],
};

#[OpenApi(prefix_path = "/v1/alerts", tag = "ApiTags::Alerts")]
impl AlertsApi {
    /// Create an alert rule (editor). See the type list for what each kind compares.
    #[oai(path = "/", method = "post", operation_id = "createAlertRule")]
    async fn create(
        &self,
        auth: BearerAuth,
        body: Json<CreateAlertRule>,
    ) -> poem::Result<RuleCreated> {
        let body = body.0;
        let access = require_role(&self.state.db, auth.0, body.game_id, Role::Editor).await?;
        let name = rules::parse_name(&body.name)?;
        let kind = body.kind.parse().map_err(AlertError::from)?;
        let metric = rules::parse_metric(kind, body.metric.as_deref())?;
        let threshold = rules::parse_threshold(body.threshold)?;
        let window = rules::parse_window(body.comparison_window_hours)?;
        let email = Email::parse(&body.email)?;
        let environment = body
            .environment
            .as_ref()
            .map(|word| {
                word.parse()
                    .map(|environment| environment.as_str().to_string())
            })
            .transpose()
            .map_err(AlertError::from)?;
        let webhook_url = match &body.discord_webhook_url {
            Some(raw) => {
                rules::parse_webhook(raw, self.state.settings.allow_private_webhooks).await?
            }
            None => None,
        };
        let rule = service::create(
            &self.state,
            NewRule {
                game_id: body.game_id,
                name,
                kind,
                metric,
                threshold,
                comparison_window_hours: window,
                email: email.as_str().into(),
                discord_webhook_url: webhook_url,
                environment,
                enabled: body.enabled.unwrap_or(true),
            },
        )
        .await?;
        Ok(RuleCreated::Created(Json(rule_view(rule, access.role)?)))
    }

    /// The game's alert rules (any member).
    #[oai(path = "/", method = "get", operation_id = "listAlertRules")]
    async fn list(
        &self,
        auth: BearerAuth,
        game_id: Query<Uuid>,
    ) -> poem::Result<Json<AlertRuleList>> {
        let access = require_role(&self.state.db, auth.0, game_id.0, Role::Viewer).await?;
        let rules = service::list(&self.state, game_id.0).await?;
        Ok(Json(AlertRuleList {
            rules: rules
                .into_iter()
                .map(|r| rule_view(r, access.role))
                .collect::<Result<_, _>>()?,
        }))
    }

    /// The game's alert firings, newest first (any member). `limit` 1 to 200, default 50.
    #[oai(path = "/history", method = "get", operation_id = "listAlertHistory")]
    async fn history(
        &self,
        auth: BearerAuth,
        game_id: Query<Uuid>,
        limit: Query<Option<i64>>,
    ) -> poem::Result<Json<AlertHistoryList>> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Viewer).await?;
        let limit = service::parse_history_limit(limit.0)?;
        let items = service::history(&self.state, game_id.0, limit).await?;
        Ok(Json(AlertHistoryList {
            history: items
                .into_iter()
                .map(history_view)
                .collect::<Result<_, _>>()?,
        }))
    }

    /// One alert rule (any member of its game).
    #[oai(path = "/:rule_id", method = "get", operation_id = "getAlertRule")]
    async fn get(&self, auth: BearerAuth, rule_id: Path<String>) -> poem::Result<Json<AlertRule>> {
        let (rule, role) = service::rule_for(&self.state, auth.0, &rule_id.0, Role::Viewer).await?;
        Ok(Json(rule_view(rule, role)?))
    }

    /// Change an alert rule (editor). Only the fields sent change.
    #[oai(path = "/:rule_id", method = "patch", operation_id = "updateAlertRule")]
    async fn update(
        &self,
        auth: BearerAuth,
        rule_id: Path<String>,
        body: Json<UpdateAlertRule>,
    ) -> poem::Result<Json<AlertRule>> {
        let (rule, role) = service::rule_for(&self.state, auth.0, &rule_id.0, Role::Editor).await?;
        let body = body.0;
        let mut changes = RuleChanges {
            name: body.name.as_deref().map(rules::parse_name).transpose()?,
            kind: body
                .kind
                .as_ref()
                .map(Word::parse)
                .transpose()
                .map_err(AlertError::from)?,
            threshold: body.threshold.map(rules::parse_threshold).transpose()?,
            comparison_window_hours: body
                .comparison_window_hours
                .map(rules::parse_window)
                .transpose()?,
            email: match &body.email {
                Some(email) => Some(Email::parse(email)?.as_str().into()),
                None => None,
            },
            ..RuleChanges::default()
        };
        match &body.discord_webhook_url {
            MaybeUndefined::Value(raw) => {
                changes.discord_webhook_url = Some(
                    rules::parse_webhook(raw, self.state.settings.allow_private_webhooks).await?,
                )
            }
            MaybeUndefined::Null => changes.discord_webhook_url = Some(None),
            MaybeUndefined::Undefined => {}
        }
        match &body.environment {
            MaybeUndefined::Value(raw) => {
                changes.environment = Some(Some(rules::parse_environment(raw)?))
            }
            MaybeUndefined::Null => changes.environment = Some(None),
            MaybeUndefined::Undefined => {}
        }
        // The metric follows the kind the rule ends up with: sent, kept (a metric kind that
        // stays one), or none (a fixed kind).
        let kind = match changes.kind {
            Some(kind) => kind,
            None => AlertType::stored(&rule.alert_type)?,
        };
        let metric = match &body.metric {
            MaybeUndefined::Value(raw) => Some(raw.as_str()),
            MaybeUndefined::Null => None,
            MaybeUndefined::Undefined if kind.takes_metric() => rule.metric.as_deref(),
            MaybeUndefined::Undefined => None,
        };
        changes.metric = Some(rules::parse_metric(kind, metric)?);
        changes.enabled = body.enabled;
        let rule = service::update(&self.state, rule, changes).await?;
        Ok(Json(rule_view(rule, role)?))
    }

    /// Delete an alert rule (editor). Its history stays.
    #[oai(
        path = "/:rule_id",
        method = "delete",
        operation_id = "deleteAlertRule"
    )]
    async fn delete(&self, auth: BearerAuth, rule_id: Path<String>) -> poem::Result<NoContent> {
        let (rule, _) = service::rule_for(&self.state, auth.0, &rule_id.0, Role::Editor).await?;
        service::delete(&self.state, rule.id).await?;
        Ok(NoContent::Done)
    }

    /// Send a test message to the rule's webhook (editor). Answers whether it was delivered;
    /// the receiver's response body is never shown.
    #[oai(
        path = "/:rule_id/test-webhook",
        method = "post",
        operation_id = "testAlertWebhook"
    )]
    async fn test_webhook(
        &self,
        auth: BearerAuth,
        rule_id: Path<String>,
    ) -> poem::Result<Json<WebhookTestResult>> {
        let (rule, _) = service::rule_for(&self.state, auth.0, &rule_id.0, Role::Editor).await?;
        Ok(Json(
            match service::test_webhook(&self.state, &rule).await? {
                Ok(()) => WebhookTestResult {
                    webhook_status: "sent".into(),
                    error: None,
                },
                Err(error) => WebhookTestResult {
                    webhook_status: "failed".into(),
                    error: Some(error.to_string()),
                },
            },
        ))
    }

    /// Evaluate the rule now (editor) and fire it if its trigger rule is met and it has not
    /// fired in the last 60 minutes. When it fires, the answer says how its e-mail and webhook
    /// went (`email_status`, `webhook_status`, and `email_error` / `webhook_error` for a
    /// failed one).
    #[oai(
        path = "/:rule_id/evaluate",
        method = "post",
        operation_id = "evaluateAlertRule"
    )]
    async fn evaluate(
        &self,
        auth: BearerAuth,
        rule_id: Path<String>,
    ) -> poem::Result<Json<EvaluationResult>> {
        let (rule, _) = service::rule_for(&self.state, auth.0, &rule_id.0, Role::Editor).await?;
        let outcome = evaluate::evaluate_and_fire(&self.state, &rule).await?;
        let delivered = outcome.delivered;
        Ok(Json(EvaluationResult {
            fired: outcome.fired,
            triggered: outcome.evaluation.triggered,
            current_value: outcome.evaluation.current,
            baseline_value: outcome.evaluation.baseline,
            change_percent: outcome.evaluation.change_percent,
            reason: outcome.reason,
            history_id: outcome.history.map(|h| h.id.to_string()),
            email_status: delivered.as_ref().map(|d| d.email_status),
            webhook_status: delivered.as_ref().map(|d| d.webhook_status),
            email_error: delivered.as_ref().and_then(|d| d.email_error.clone()),
            webhook_error: delivered.and_then(|d| d.webhook_error),
        }))
    }
}
