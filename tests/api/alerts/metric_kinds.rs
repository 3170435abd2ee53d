//! `metric_spike` and `metric_drop`: any metric of the metrics read, by day, watched the way the
//! five fixed kinds watch theirs: checked when a rule is made or changed, fired on the last
//! complete UTC day (a retention metric: the newest cohort whose day n has ended) against the
//! average of the window's days before it.
use super::{alert_app, create_rule, evaluate, history, rule_body};
use crate::{
    funnels::{ev, seed_events, Ev},
    helpers::{Fetch, TestApp},
};
use chrono::{DateTime, Duration, Utc};
use reqwest::Method;
use serde_json::{json, Value};

/// Noon of the UTC day `days` before today.
fn noon(app: &TestApp, days: i64) -> DateTime<Utc> {
    playtrace::query::midnight(app.state.now().date_naive()) - Duration::days(days)
        + Duration::hours(12)
}

/// `count` players first seen at `at`, each in a session of its own.
fn players(prefix: &str, count: usize, at: DateTime<Utc>) -> Vec<Ev> {
    (0..count)
        .map(|i| ev("start", &format!("{prefix}-{i}"), at))
        .collect()
}

fn metric_rule(game_id: &str, kind: &str, metric: &str, threshold: f64, hours: i64) -> Value {
    let mut body = rule_body(game_id, kind, threshold, hours, None);
    body["metric"] = json!(metric);
    body["name"] = json!(format!("{metric} {kind}"));
    body
}

#[tokio::test]
async fn a_metric_rule_needs_a_known_metric_and_only_the_metric_kinds_take_one() {
    let (app, _, _) = alert_app().await;
    let (token, game_id, _) = app.game_with_key().await;
    let refused = |body: Value| {
        let (app, token) = (&app, &token);
        async move {
            app.dashboard(Method::POST, "/v1/alerts", token)
                .json(&body)
                .expect_status(400)
                .await["error"]
                .as_str()
                .unwrap()
                .to_string()
        }
    };
    let without = rule_body(&game_id, "metric_drop", 0.7, 72, None);
    assert!(refused(without)
        .await
        .starts_with("metric is required for metric_drop: one of events,"),);
    let unknown = metric_rule(&game_id, "metric_spike", "bogus", 2.0, 72);
    assert!(refused(unknown).await.starts_with("metric must be one of:"));
    let fixed = metric_rule(&game_id, "crash_spike", "sessions", 2.0, 72);
    assert_eq!(
        refused(fixed).await,
        "metric is only for metric_spike and metric_drop rules"
    );
    let wrong_type = rule_body(&game_id, "sessions_drop", 0.7, 72, None);
    assert!(refused(wrong_type)
        .await
        .ends_with("metric_spike, metric_drop"));
    let listed = app
        .dashboard(
            Method::GET,
            &format!("/v1/alerts?game_id={game_id}"),
            &token,
        )
        .expect_status(200)
        .await;
    assert_eq!(listed["rules"], json!([]), "nothing was stored");

    // The metric follows the kind through changes.
    let rule = create_rule(
        &app,
        &token,
        metric_rule(&game_id, "metric_drop", "dau", 0.7, 72),
    )
    .await;
    assert_eq!(
        (rule["type"].as_str(), rule["metric"].as_str()),
        (Some("metric_drop"), Some("active_users")),
        "the alias is stored by its name"
    );
    let path = format!("/v1/alerts/{}", rule["rule_id"].as_str().unwrap());
    let patch = |body: Value, status: u16| {
        let (app, token, path) = (&app, &token, &path);
        async move {
            app.dashboard(Method::PATCH, path, token)
                .json(&body)
                .expect_status(status)
                .await
        }
    };
    let spike = patch(json!({ "type": "metric_spike" }), 200).await;
    assert_eq!(spike["metric"], "active_users", "kept between metric kinds");
    let other = patch(json!({ "metric": "session_length" }), 200).await;
    assert_eq!(other["metric"], "session_length");
    let cleared = patch(json!({ "metric": null }), 400).await;
    assert!(cleared["error"]
        .as_str()
        .unwrap()
        .starts_with("metric is required for metric_spike"));
    let fixed = patch(json!({ "type": "crash_spike" }), 200).await;
    assert_eq!(
        (fixed["type"].as_str(), &fixed["metric"]),
        (Some("crash_spike"), &Value::Null)
    );
    let refused_metric = patch(json!({ "metric": "sessions" }), 400).await;
    assert_eq!(
        refused_metric["error"],
        "metric is only for metric_spike and metric_drop rules"
    );
    let back = patch(json!({ "type": "metric_drop" }), 400).await;
    assert!(back["error"]
        .as_str()
        .unwrap()
        .starts_with("metric is required"));
    let stored = app
        .dashboard(Method::GET, &path, &token)
        .expect_status(200)
        .await;
    assert_eq!(
        (stored["type"].as_str(), &stored["metric"]),
        (Some("crash_spike"), &Value::Null),
        "a refused change changed nothing"
    );
}

#[tokio::test]
async fn a_new_users_drop_fires_on_the_last_complete_day_and_says_which_metric() {
    let (app, sink, receiver) = alert_app().await;
    let (token, game_id, _) = app.game_with_key().await;
    let mut events = Vec::new();
    for day in 2..=4 {
        events.extend(players(&format!("d{day}"), 4, noon(&app, day)));
    }
    events.extend(players("yesterday", 1, noon(&app, 1)));
    // Today is not over: its newcomers do not count yet.
    events.extend(players("today", 10, app.state.now() - Duration::minutes(1)));
    seed_events(&app, &game_id, &events).await;

    let mut body = metric_rule(&game_id, "metric_drop", "new_users", 0.5, 72);
    body["discord_webhook_url"] = json!(receiver.hook());
    body["email"] = json!("newusers@studio.test");
    let rule = create_rule(&app, &token, body).await;
    let result = evaluate(&app, &token, &rule).await;
    assert_eq!(result["fired"], true, "{result}");
    assert_eq!(
        (
            result["current_value"].as_f64(),
            result["baseline_value"].as_f64()
        ),
        (Some(1.0), Some(4.0)),
        "{result}"
    );
    assert_eq!(result["change_percent"].as_f64(), Some(-75.0));
    assert!(
        result["reason"]
            .as_str()
            .unwrap()
            .starts_with("Triggered: New users on the last complete UTC day"),
        "{result}"
    );
    let embed = receiver.bodies().last().cloned().unwrap()["embeds"][0].clone();
    assert_eq!(embed["title"], "New users drop: new_users metric_drop");
    assert_eq!(embed["color"], 0x607D8B);
    let mail = sink.wait_for("newusers@studio.test").await;
    assert!(mail.data.contains("New users drop"), "{}", mail.data);
    let items = history(&app, &token, &game_id).await;
    assert_eq!(
        (items[0]["type"].as_str(), items[0]["metric"].as_str()),
        (Some("metric_drop"), Some("new_users"))
    );
}

#[tokio::test]
async fn a_sessions_spike_fires_and_a_day_one_retention_drop_reads_the_newest_complete_cohort() {
    let (app, _, _) = alert_app().await;
    let (token, game_id, _) = app.game_with_key().await;
    let mut events = Vec::new();
    // Sessions: 2 on each of the two days before yesterday, 6 yesterday.
    events.extend(players("a", 2, noon(&app, 3)));
    events.extend(players("b", 2, noon(&app, 2)));
    events.extend(players("c", 6, noon(&app, 1)));
    seed_events(&app, &game_id, &events).await;
    let spike = create_rule(
        &app,
        &token,
        metric_rule(&game_id, "metric_spike", "sessions", 2.0, 48),
    )
    .await;
    let result = evaluate(&app, &token, &spike).await;
    assert_eq!(
        (
            &result["fired"],
            result["current_value"].as_f64(),
            result["baseline_value"].as_f64()
        ),
        (&json!(true), Some(6.0), Some(2.0)),
        "{result}"
    );
    let quiet = create_rule(
        &app,
        &token,
        metric_rule(&game_id, "metric_spike", "sessions", 3.5, 48),
    )
    .await;
    let result = evaluate(&app, &token, &quiet).await;
    assert_eq!(
        (&result["fired"], &result["triggered"]),
        (&json!(false), &json!(false))
    );

    // Day-1 retention: the cohorts of 3 and 2 days before yesterday's all came back the next
    // day (100%); the newest complete one, 2 days ago, 1 of 4 (25%). Yesterday's cohort has
    // not had its day 1 yet.
    let (token, game_id, _) = app.game_with_key().await;
    let mut events = Vec::new();
    for (cohort, size, back) in [(4, 2, 2), (3, 2, 2), (2, 4, 1), (1, 3, 0)] {
        let joined = players(&format!("c{cohort}"), size, noon(&app, cohort));
        let returned: Vec<Ev> = joined
            .iter()
            .take(back)
            .map(|e| {
                ev(
                    "start",
                    e.player.as_deref().unwrap(),
                    noon(&app, cohort - 1),
                )
            })
            .collect();
        events.extend(joined);
        events.extend(returned);
    }
    seed_events(&app, &game_id, &events).await;
    let drop = create_rule(
        &app,
        &token,
        metric_rule(&game_id, "metric_drop", "retention_d1", 0.7, 48),
    )
    .await;
    let result = evaluate(&app, &token, &drop).await;
    assert_eq!(
        (
            &result["fired"],
            result["current_value"].as_f64(),
            result["baseline_value"].as_f64()
        ),
        (&json!(true), Some(25.0), Some(100.0)),
        "{result}"
    );
    assert!(result["reason"]
        .as_str()
        .unwrap()
        .contains("Day-1 retention (%) of the newest complete daily cohort"));
}

#[tokio::test]
async fn a_ratio_without_users_on_the_latest_day_does_not_fire() {
    let (app, _, _) = alert_app().await;
    let (token, game_id, _) = app.game_with_key().await;
    let mut events = players("p", 3, noon(&app, 3));
    events.push(ev("purchase", "p-0", noon(&app, 3)).props(json!({ "amount": 5 })));
    events.extend(players("q", 2, noon(&app, 2)));
    events.push(ev("purchase", "q-0", noon(&app, 2)).props(json!({ "amount": 5 })));
    // Nobody played yesterday: its conversion has nothing to divide by.
    seed_events(&app, &game_id, &events).await;
    let rule = create_rule(
        &app,
        &token,
        metric_rule(&game_id, "metric_drop", "conversion", 0.9, 72),
    )
    .await;
    let result = evaluate(&app, &token, &rule).await;
    assert_eq!(
        (&result["fired"], &result["triggered"]),
        (&json!(false), &json!(false))
    );
    assert!(
        result["reason"].as_str().unwrap().contains("has no value"),
        "{result}"
    );
    // The baseline averages the days that have a value: 33.33% and 50%.
    assert_eq!(result["baseline_value"].as_f64(), Some(41.67), "{result}");
}
