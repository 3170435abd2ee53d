//! Black-box tests of metrics, alert rules, their firing and notifications: a real SMTP sink,
//! a real local webhook receiver, events backdated to build baselines. The shared pieces are
//! here, the tests in `alerts/`.
mod custom_counts;
mod firing;
mod metric_kinds;
mod metrics;
mod notifications;
mod rules;

pub(crate) use crate::receiver::Receiver;
use crate::{
    funnels::{ev, seed_events, Ev},
    helpers::{spawn_app_with, Fetch, TestApp},
    mail_sink::MailSink,
};
use chrono::{Duration, Utc};
use reqwest::Method;
use serde_json::{json, Value};

/// An app with a real SMTP sink and private webhooks allowed (the receiver is on loopback).
async fn alert_app() -> (TestApp, MailSink, Receiver) {
    let sink = MailSink::start();
    let smtp = sink.url.clone();
    let app = spawn_app_with(|s| {
        s.smtp_url = Some(smtp);
        s.allow_private_webhooks = true;
    })
    .await;
    (app, sink, Receiver::start().await)
}

async fn create_rule(app: &TestApp, token: &str, body: Value) -> Value {
    app.dashboard(Method::POST, "/v1/alerts", token)
        .json(&body)
        .expect_status(201)
        .await
}

async fn evaluate(app: &TestApp, token: &str, rule: &Value) -> Value {
    let path = format!("/v1/alerts/{}/evaluate", rule["rule_id"].as_str().unwrap());
    app.dashboard(Method::POST, &path, token)
        .expect_status(200)
        .await
}

async fn history(app: &TestApp, token: &str, game_id: &str) -> Vec<Value> {
    let body = app
        .dashboard(
            Method::GET,
            &format!("/v1/alerts/history?game_id={game_id}"),
            token,
        )
        .expect_status(200)
        .await;
    body["history"].as_array().unwrap().clone()
}

fn rule_body(
    game_id: &str,
    kind: &str,
    threshold: f64,
    window: i64,
    webhook: Option<&str>,
) -> Value {
    json!({
        "game_id": game_id,
        "name": format!("{kind} watch"),
        "type": kind,
        "threshold": threshold,
        "comparison_window_hours": window,
        "email": "oncall@studio.test",
        "discord_webhook_url": webhook,
    })
}

/// A fresh game seeded with `kind`'s scenario (over its threshold when `fire`) and a rule
/// watching it, mailing `email` (the default address when `None`) and posting to `webhook`:
/// (token, game_id, rule).
async fn watched_game(
    app: &TestApp,
    kind: &str,
    fire: bool,
    email: Option<&str>,
    webhook: Option<&str>,
) -> (String, String, Value) {
    let (token, game_id, _) = app.game_with_key().await;
    let (threshold, window, events) = scenario(kind, fire);
    seed_events(app, &game_id, &events).await;
    let mut body = rule_body(&game_id, kind, threshold, window, webhook);
    if let Some(email) = email {
        body["email"] = json!(email);
    }
    let rule = create_rule(app, &token, body).await;
    (token, game_id, rule)
}

/// `count` events named `name` by distinct players at `at`.
fn many(name: &str, count: usize, at: chrono::DateTime<Utc>, props: Value) -> Vec<Ev> {
    (0..count)
        .map(|i| ev(name, &format!("{name}-{}-{i}", at.timestamp()), at).props(props.clone()))
        .collect()
}

/// Events for one scenario of one alert kind: (kind, threshold, window hours, events, should fire).
fn scenario(kind: &str, fire: bool) -> (f64, i64, Vec<Ev>) {
    let now = Utc::now();
    let mut events = Vec::new();
    match kind {
        // Baseline: one crash in each of the 24 hours before the last hour (hourly average 1).
        "crash_spike" | "log_error_spike" => {
            let (name, props) = if kind == "crash_spike" {
                ("crash", json!({}))
            } else {
                ("log", json!({ "level": "warning" }))
            };
            for hour in 0..24 {
                events.extend(many(
                    name,
                    1,
                    now - Duration::minutes(90 + hour * 60),
                    props.clone(),
                ));
            }
            let current = now - Duration::minutes(10);
            if kind == "crash_spike" {
                events.extend(many("crash", if fire { 3 } else { 1 }, current, json!({})));
            } else {
                events.extend(many(
                    "log",
                    if fire { 2 } else { 0 },
                    current,
                    json!({ "level": "error" }),
                ));
                events.extend(many("log", 1, current, json!({ "level": "warning" })));
                // Info lines are not errors: they never count.
                events.extend(many("log", 10, current, json!({ "level": "info" })));
            }
            (2.0, 24, events)
        }
        // Baseline: 100 of revenue on each of the 3 days before the last 24 hours.
        "revenue_drop" => {
            for day in 1..=3 {
                let at = now - Duration::hours(24 * day + 12);
                events.push(ev("purchase", "whale", at).props(json!({ "amount": 60 })));
                events.push(ev("purchase", "minnow", at).props(json!({ "amount": 40.0 })));
            }
            let current = now - Duration::hours(3);
            events.push(
                ev("purchase", "whale", current)
                    .props(json!({ "amount": if fire { 30 } else { 80 } })),
            );
            // Not a number: not revenue.
            events.push(ev("purchase", "odd", current).props(json!({ "amount": "500" })));
            (0.5, 72, events)
        }
        // Baseline: 10 active users on each of the 2 days before the last 24 hours.
        "dau_drop" => {
            for day in 1..=2 {
                events.extend(many(
                    "session_start",
                    10,
                    now - Duration::hours(24 * day + 6),
                    json!({}),
                ));
            }
            events.extend(many(
                "session_start",
                if fire { 5 } else { 8 },
                now - Duration::hours(2),
                json!({}),
            ));
            (0.7, 48, events)
        }
        // Cohorts of 4 new users per day; half of the three baseline cohorts came back on day 7.
        "retention_drop" => {
            let today = now.date_naive();
            let noon = |days_ago: i64| {
                (today - Duration::days(days_ago))
                    .and_hms_opt(12, 0, 0)
                    .unwrap()
                    .and_utc()
            };
            for (cohort_days_ago, returning) in
                [(11, 2), (10, 2), (9, 2), (8, if fire { 1 } else { 2 })]
            {
                for user in 0..4 {
                    let player = format!("c{cohort_days_ago}-u{user}");
                    events.push(ev("session_start", &player, noon(cohort_days_ago)));
                    if user < returning {
                        events.push(ev("session_start", &player, noon(cohort_days_ago - 7)));
                    }
                }
            }
            (0.8, 72, events)
        }
        _ => unreachable!(),
    }
}

const KINDS: [(&str, u64); 5] = [
    ("crash_spike", 0xE74C3C),
    ("log_error_spike", 0x992D22),
    ("revenue_drop", 0xE67E22),
    ("dau_drop", 0x3498DB),
    ("retention_drop", 0x9B59B6),
];
