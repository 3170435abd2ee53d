//! Delivering a fired alert: the e-mail and the Discord-compatible webhook message a firing
//! sends, the message `test-webhook` sends, and each channel's delivery status (`sent`,
//! `skipped` or `failed`) that the history record keeps. Whether and when a rule fires, and the
//! record itself, are `evaluate`'s.
use super::{
    judge::{number, watch_of, Evaluation},
    rules::Watch,
    AlertError,
};
use crate::{
    http::timestamp,
    notify::{email::Delivery, webhook},
    state::AppState,
    words::DeliveryStatus,
};
use chrono::{DateTime, Utc};
use entity::{alert_rules, games};
use sea_orm::EntityTrait;
use serde_json::json;

/// How the notifications of one firing went: its history record keeps the statuses and
/// `error()`, "Evaluate now" answers each channel's.
#[derive(Debug, Clone)]
pub struct Delivered {
    /// `skipped`: no SMTP server configured (the mail was logged).
    pub email_status: DeliveryStatus,
    /// `skipped`: the rule has no webhook.
    pub webhook_status: DeliveryStatus,
    /// Why the e-mail failed.
    pub email_error: Option<String>,
    /// Why the webhook message failed (never the receiver's response body).
    pub webhook_error: Option<String>,
}

impl Delivered {
    /// What failed, channel by channel (`email: ...; webhook: ...`); `None` when nothing did.
    pub fn error(&self) -> Option<String> {
        let errors: Vec<String> = [
            ("email", &self.email_error),
            ("webhook", &self.webhook_error),
        ]
        .into_iter()
        .filter_map(|(channel, error)| error.as_ref().map(|error| format!("{channel}: {error}")))
        .collect();
        (!errors.is_empty()).then(|| errors.join("; "))
    }
}

/// Sends a firing's e-mail and, when the rule has a webhook, its webhook message. A failed
/// channel is reported in the result, not as an error: only reading the game's name can fail.
pub async fn notify(
    state: &AppState,
    rule: &alert_rules::Model,
    evaluation: &Evaluation,
    now: DateTime<Utc>,
) -> Result<Delivered, AlertError> {
    let game_name = games::Entity::find_by_id(rule.game_id)
        .one(&state.db)
        .await?
        .map(|g| g.name)
        .unwrap_or_else(|| rule.game_id.to_string());
    let watch = watch_of(rule);
    let (email_status, email_error) =
        send_email(state, rule, watch, &game_name, evaluation, now).await;
    let (webhook_status, webhook_error) = match &rule.discord_webhook_url {
        Some(url) => {
            let body = alert_embed(rule, watch, &game_name, evaluation, now);
            match webhook::post_json(url, &body, state.settings.allow_private_webhooks).await {
                Ok(()) => (DeliveryStatus::Sent, None),
                Err(error) => (DeliveryStatus::Failed, Some(error.to_string())),
            }
        }
        None => (DeliveryStatus::Skipped, None),
    };
    crate::telemetry::alert_delivered(watch.kind.as_str(), "email", email_status.as_str());
    crate::telemetry::alert_delivered(watch.kind.as_str(), "webhook", webhook_status.as_str());
    Ok(Delivered {
        email_status,
        webhook_status,
        email_error,
        webhook_error,
    })
}

async fn send_email(
    state: &AppState,
    rule: &alert_rules::Model,
    watch: Watch,
    game_name: &str,
    evaluation: &Evaluation,
    now: DateTime<Utc>,
) -> (DeliveryStatus, Option<String>) {
    let subject = format!("[playtrace] {}: {} ({game_name})", watch.label(), rule.name);
    let body = format!(
        "The alert rule \"{name}\" fired for the game \"{game_name}\".\n\n\
         Type: {label}\n\
         Current value: {current}\n\
         Baseline value: {baseline}\n\
         Change from baseline: {change:+.2}%\n\
         Threshold: {threshold} x baseline\n\
         Comparison window: {window} hours\n\
         Triggered at: {at}\n\n\
         {reason}\n\n\
         This rule fires at most once per hour.\n",
        name = rule.name,
        label = watch.label(),
        current = number(evaluation.current),
        baseline = number(evaluation.baseline),
        change = evaluation.change_percent,
        threshold = number(rule.threshold),
        window = rule.comparison_window_hours,
        at = timestamp(now),
        reason = evaluation.reason,
    );
    match state.mailer.send(&rule.email, &subject, &body).await {
        Ok(Delivery::Sent) => (DeliveryStatus::Sent, None),
        Ok(Delivery::Skipped) => (DeliveryStatus::Skipped, None),
        Err(error) => (DeliveryStatus::Failed, Some(error.to_string())),
    }
}

/// The Discord-compatible embed of a firing.
pub fn alert_embed(
    rule: &alert_rules::Model,
    watch: Watch,
    game_name: &str,
    evaluation: &Evaluation,
    now: DateTime<Utc>,
) -> serde_json::Value {
    let field = |name: &str, value: String| json!({ "name": name, "value": value, "inline": true });
    json!({
        "embeds": [{
            "title": format!("{}: {}", watch.label(), rule.name),
            "description": evaluation.reason,
            "color": watch.kind.color(),
            "fields": [
                field("Game", game_name.to_string()),
                field("Current", number(evaluation.current)),
                field("Baseline", number(evaluation.baseline)),
                field("Change", format!("{:+.2}%", evaluation.change_percent)),
                field("Threshold", format!("{} x baseline", number(rule.threshold))),
                field("Window", format!("{} h", rule.comparison_window_hours)),
            ],
            "timestamp": timestamp(now),
        }]
    })
}

/// The embed `test-webhook` sends.
pub fn test_embed(rule: &alert_rules::Model, now: DateTime<Utc>) -> serde_json::Value {
    let watch = watch_of(rule);
    let mut fields = vec![json!({ "name": "Type", "value": watch.kind.as_str(), "inline": true })];
    if watch.kind.takes_metric() {
        fields.push(json!({ "name": "Metric", "value": watch.metric.as_str(), "inline": true }));
    }
    json!({
        "embeds": [{
            "title": format!("Test message: {}", rule.name),
            "description": format!(
                "This is a test of the playtrace alert rule \"{}\" ({}). When it fires, its alerts arrive here.",
                rule.name,
                watch.label()
            ),
            "color": watch.kind.color(),
            "fields": fields,
            "timestamp": timestamp(now),
        }]
    })
}
