//! Black-box tests of metrics, alert rules, their firing and notifications: a real SMTP sink,
//! a real local webhook receiver, events backdated to build baselines.
use crate::{
    funnels::{email_of, ev, seed_events, Ev},
    helpers::{read, spawn_app, spawn_app_with, spawn_on, TestApp},
    mail_sink::MailSink,
};
use chrono::{Duration, Utc};
use poem::{listener::Acceptor, listener::Listener, Response as PoemResponse, Route};
use reqwest::Method;
use serde_json::{json, Value};
use std::{
    collections::VecDeque,
    sync::{Arc, Mutex},
};

/// A local HTTP server standing in for Discord: records every body it receives and answers
/// from a script (204 when the script is empty).
#[derive(Clone)]
struct Receiver {
    url: String,
    bodies: Arc<Mutex<Vec<Value>>>,
    script: Arc<Mutex<VecDeque<PoemResponse>>>,
}

impl Receiver {
    async fn start() -> Self {
        let acceptor = poem::listener::TcpListener::bind("127.0.0.1:0")
            .into_acceptor()
            .await
            .unwrap();
        let port = acceptor.local_addr()[0].as_socket_addr().unwrap().port();
        let receiver = Receiver {
            url: format!("http://127.0.0.1:{port}"),
            bodies: Arc::default(),
            script: Arc::default(),
        };
        let hook = receiver.clone();
        let route = Route::new()
            .at(
                "/hook",
                poem::post(poem::endpoint::make(move |req: poem::Request| {
                    let hook = hook.clone();
                    async move {
                        let text = req.into_body().into_string().await.unwrap_or_default();
                        hook.bodies
                            .lock()
                            .unwrap()
                            .push(serde_json::from_str(&text).unwrap_or(Value::String(text)));
                        let scripted = hook.script.lock().unwrap().pop_front();
                        scripted.unwrap_or_else(|| {
                            PoemResponse::builder()
                                .status(poem::http::StatusCode::NO_CONTENT)
                                .finish()
                        })
                    }
                })),
            )
            .at(
                "/redirect",
                poem::post(poem::endpoint::make_sync(|_| {
                    PoemResponse::builder()
                        .status(poem::http::StatusCode::FOUND)
                        .header("location", "/hook")
                        .finish()
                })),
            );
        tokio::spawn(poem::Server::new_with_acceptor(acceptor).run(route));
        receiver
    }

    fn hook(&self) -> String {
        format!("{}/hook", self.url)
    }

    fn then_answer(&self, status: u16, body: &str) {
        let response = PoemResponse::builder()
            .status(poem::http::StatusCode::from_u16(status).unwrap())
            .content_type("application/json")
            .body(body.to_string());
        self.script.lock().unwrap().push_back(response);
    }

    fn bodies(&self) -> Vec<Value> {
        self.bodies.lock().unwrap().clone()
    }
}

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
    let (status, rule) = read(
        app.dashboard(Method::POST, "/v1/alerts", token)
            .json(&body)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 201, "{rule}");
    rule
}

async fn evaluate(app: &TestApp, token: &str, rule: &Value) -> Value {
    let path = format!("/v1/alerts/{}/evaluate", rule["rule_id"].as_str().unwrap());
    let (status, body) = read(
        app.dashboard(Method::POST, &path, token)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    body
}

async fn history(app: &TestApp, token: &str, game_id: &str) -> Vec<Value> {
    let (status, body) = read(
        app.dashboard(
            Method::GET,
            &format!("/v1/alerts/history?game_id={game_id}"),
            token,
        )
        .send()
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(status, 200, "{body}");
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

#[tokio::test]
async fn each_kind_fires_when_its_metric_crosses_the_threshold() {
    let (app, sink, receiver) = alert_app().await;
    for (kind, colour) in KINDS {
        let (token, game_id, _) = app.game_with_key().await;
        let (threshold, window, events) = scenario(kind, true);
        seed_events(&app, &game_id, &events).await;
        let mut body = rule_body(&game_id, kind, threshold, window, Some(&receiver.hook()));
        body["email"] = json!(format!("{kind}@studio.test"));
        let rule = create_rule(&app, &token, body).await;

        let result = evaluate(&app, &token, &rule).await;
        assert_eq!(result["fired"], true, "{kind}: {result}");
        assert_eq!(result["triggered"], true, "{kind}");
        let (current, baseline) = (
            result["current_value"].as_f64().unwrap(),
            result["baseline_value"].as_f64().unwrap(),
        );
        let expected = match kind {
            "crash_spike" | "log_error_spike" => (3.0, 1.0),
            "revenue_drop" => (30.0, 100.0),
            "dau_drop" => (5.0, 10.0),
            _ => (25.0, 50.0),
        };
        assert_eq!((current, baseline), expected, "{kind}: {result}");
        let change = (current - baseline) * 100.0 / baseline;
        assert!(
            (result["change_percent"].as_f64().unwrap() - change).abs() < 0.01,
            "{kind}: {result}"
        );
        assert!(result["reason"].as_str().unwrap().len() > 10);

        let mail = sink.wait_for(&format!("{kind}@studio.test")).await;
        assert!(
            mail.data.contains(&format!("{kind} watch")),
            "{kind}: the mail names the rule"
        );

        let embed = receiver
            .bodies()
            .last()
            .cloned()
            .expect("the webhook got the alert")["embeds"][0]
            .clone();
        assert_eq!(embed["color"], colour, "{kind}: {embed}");
        assert!(
            embed["title"]
                .as_str()
                .unwrap()
                .contains(&format!("{kind} watch")),
            "{embed}"
        );
        assert!(
            embed["description"].is_string()
                && embed["fields"].is_array()
                && embed["timestamp"].is_string(),
            "{embed}"
        );

        let items = history(&app, &token, &game_id).await;
        assert_eq!(items.len(), 1, "{kind}");
        let item = &items[0];
        assert_eq!(item["id"], result["history_id"]);
        assert_eq!(item["rule_id"], rule["rule_id"]);
        assert_eq!(item["type"], kind);
        assert_eq!(item["name"], format!("{kind} watch"));
        assert_eq!(
            (
                item["email_status"].as_str(),
                item["webhook_status"].as_str()
            ),
            (Some("sent"), Some("sent")),
            "{item}"
        );
        assert!(item["error"].is_null());
        assert_eq!(item["current_value"].as_f64(), Some(current));
        assert_eq!(item["baseline_value"].as_f64(), Some(baseline));
        assert!(item["triggered_at"].as_str().unwrap().ends_with('Z'));
    }
    assert_eq!(receiver.bodies().len(), 5);
}

#[tokio::test]
async fn each_kind_stays_quiet_below_its_threshold_and_on_a_zero_baseline() {
    let (app, sink, receiver) = alert_app().await;
    for (kind, _) in KINDS {
        let (token, game_id, _) = app.game_with_key().await;
        let (threshold, window, events) = scenario(kind, false);
        seed_events(&app, &game_id, &events).await;
        let rule = create_rule(
            &app,
            &token,
            rule_body(&game_id, kind, threshold, window, Some(&receiver.hook())),
        )
        .await;
        let result = evaluate(&app, &token, &rule).await;
        assert_eq!(
            (result["fired"].as_bool(), result["triggered"].as_bool()),
            (Some(false), Some(false)),
            "{kind}: {result}"
        );
        assert!(
            result["baseline_value"].as_f64().unwrap() > 0.0,
            "{kind}: {result}"
        );
        assert!(history(&app, &token, &game_id).await.is_empty(), "{kind}");

        // Only the current period has data: a zero baseline never fires.
        let (token, game_id, _) = app.game_with_key().await;
        let now = Utc::now();
        let fresh = match kind {
            "crash_spike" => many("crash", 50, now - Duration::minutes(5), json!({})),
            "log_error_spike" => many(
                "log",
                50,
                now - Duration::minutes(5),
                json!({ "level": "error" }),
            ),
            "revenue_drop" => {
                vec![ev("purchase", "p", now - Duration::hours(1)).props(json!({ "amount": 5 }))]
            }
            _ => many("session_start", 3, now - Duration::hours(1), json!({})),
        };
        seed_events(&app, &game_id, &fresh).await;
        let rule = create_rule(
            &app,
            &token,
            rule_body(&game_id, kind, threshold, window, Some(&receiver.hook())),
        )
        .await;
        let result = evaluate(&app, &token, &rule).await;
        assert_eq!(result["fired"], false, "{kind}: {result}");
        assert_eq!(result["baseline_value"], 0.0, "{kind}: {result}");
    }
    assert!(receiver.bodies().is_empty(), "no webhook call");
    assert!(sink.messages().is_empty(), "no e-mail");
}

#[tokio::test]
async fn a_rule_fires_at_most_once_per_hour_across_nodes() {
    let (app, sink, receiver) = alert_app().await;
    let smtp = sink.url.clone();
    let other_node = spawn_on(app.backend.clone(), |s| {
        s.allow_private_webhooks = true;
        s.smtp_url = Some(smtp);
    })
    .await;
    let (token, game_id, _) = app.game_with_key().await;
    let (threshold, window, events) = scenario("crash_spike", true);
    seed_events(&app, &game_id, &events).await;
    let rule = create_rule(
        &app,
        &token,
        rule_body(
            &game_id,
            "crash_spike",
            threshold,
            window,
            Some(&receiver.hook()),
        ),
    )
    .await;
    let path = format!("/v1/alerts/{}/evaluate", rule["rule_id"].as_str().unwrap());

    // Ten evaluations at once, spread over two nodes: exactly one fires.
    let mut calls = Vec::new();
    for i in 0..10 {
        let node = if i % 2 == 0 { &app } else { &other_node };
        calls.push(node.dashboard(Method::POST, &path, &token).send());
    }
    let mut fired = 0;
    for response in futures_util::future::join_all(calls).await {
        let (status, body) = read(response.unwrap()).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["triggered"], true);
        fired += usize::from(body["fired"] == true);
    }
    assert_eq!(fired, 1);
    assert_eq!(history(&app, &token, &game_id).await.len(), 1);
    sink.wait_for("oncall@studio.test").await;

    let again = evaluate(&app, &token, &rule).await;
    assert_eq!(
        (again["fired"].as_bool(), again["triggered"].as_bool()),
        (Some(false), Some(true)),
        "{again}"
    );
    assert!(
        again["reason"].as_str().unwrap().contains("cooling down"),
        "{again}"
    );
    let (_, stored) = read(
        app.dashboard(
            Method::GET,
            &format!("/v1/alerts/{}", rule["rule_id"].as_str().unwrap()),
            &token,
        )
        .send()
        .await
        .unwrap(),
    )
    .await;
    assert!(stored["last_fired_at"].is_string(), "{stored}");

    // 59 minutes later: still cooling down, although the spike goes on.
    for node in [&app, &other_node] {
        node.clock.advance(Duration::minutes(59));
    }
    let spike_now = app.state.now();
    seed_events(
        &app,
        &game_id,
        &many("crash", 6, spike_now - Duration::minutes(5), json!({})),
    )
    .await;
    let result = evaluate(&other_node, &token, &rule).await;
    assert_eq!(
        (result["fired"].as_bool(), result["triggered"].as_bool()),
        (Some(false), Some(true)),
        "{result}"
    );

    // Past 60 minutes it fires again.
    for node in [&app, &other_node] {
        node.clock.advance(Duration::minutes(2));
    }
    let result = evaluate(&other_node, &token, &rule).await;
    assert_eq!(result["fired"], true, "{result}");
    assert_eq!(history(&app, &token, &game_id).await.len(), 2);
    assert_eq!(receiver.bodies().len(), 2);
}

#[tokio::test]
async fn the_worker_evaluates_every_rule_on_its_interval() {
    let sink = MailSink::start();
    let smtp = sink.url.clone();
    let app = spawn_app_with(|s| {
        s.smtp_url = Some(smtp);
        s.alert_interval_secs = 1;
    })
    .await;
    let (token, game_id, _) = app.game_with_key().await;
    let (threshold, window, events) = scenario("dau_drop", true);
    seed_events(&app, &game_id, &events).await;
    let mut body = rule_body(&game_id, "dau_drop", threshold, window, None);
    body["email"] = json!("worker@studio.test");
    create_rule(&app, &token, body).await;
    let (quiet_token, quiet_game, _) = app.game_with_key().await;
    let (threshold, window, events) = scenario("dau_drop", false);
    seed_events(&app, &quiet_game, &events).await;
    create_rule(
        &app,
        &quiet_token,
        rule_body(&quiet_game, "dau_drop", threshold, window, None),
    )
    .await;

    sink.wait_for("worker@studio.test").await;
    tokio::time::sleep(std::time::Duration::from_secs(3)).await;
    let items = history(&app, &token, &game_id).await;
    assert_eq!(items.len(), 1, "several passes, one firing: {items:?}");
    assert_eq!(items[0]["email_status"], "sent");
    assert_eq!(
        items[0]["webhook_status"], "skipped",
        "the rule has no webhook"
    );
    assert!(history(&app, &quiet_token, &quiet_game).await.is_empty());
}

#[tokio::test]
async fn webhook_deliveries_retry_429s_and_never_follow_redirects_or_leak_bodies() {
    let (app, _sink, receiver) = alert_app().await;
    let (token, game_id, _) = app.game_with_key().await;
    let rule = create_rule(
        &app,
        &token,
        rule_body(&game_id, "revenue_drop", 0.5, 24, Some(&receiver.hook())),
    )
    .await;
    let rule_id = rule["rule_id"].as_str().unwrap().to_string();
    let test = |rule_id: String| {
        let request = app.dashboard(
            Method::POST,
            &format!("/v1/alerts/{rule_id}/test-webhook"),
            &token,
        );
        async move { read(request.send().await.unwrap()).await }
    };

    let (status, result) = test(rule_id.clone()).await;
    assert_eq!(status, 200, "{result}");
    assert_eq!(result["webhook_status"], "sent");
    let message = receiver.bodies()[0].clone();
    assert_eq!(message["embeds"][0]["color"], 0xE67E22);
    assert!(
        message["embeds"][0]["title"]
            .as_str()
            .unwrap()
            .contains("Test"),
        "{message}"
    );

    receiver.then_answer(
        429,
        r#"{"message": "You are being rate limited.", "retry_after": 0.3, "global": false}"#,
    );
    let started = std::time::Instant::now();
    let (_, result) = test(rule_id.clone()).await;
    assert_eq!(result["webhook_status"], "sent", "{result}");
    assert!(
        started.elapsed() >= std::time::Duration::from_millis(300),
        "waited for retry_after"
    );
    assert_eq!(receiver.bodies().len(), 3, "the 429 and the retry");

    receiver.then_answer(500, r#"{"secret": "RECEIVER-INTERNALS"}"#);
    let (_, result) = test(rule_id.clone()).await;
    assert_eq!(result["webhook_status"], "failed");
    assert!(
        result["error"].as_str().unwrap().contains("500"),
        "{result}"
    );
    assert!(
        !result.to_string().contains("RECEIVER-INTERNALS"),
        "response bodies stay hidden"
    );

    let redirecting = create_rule(
        &app,
        &token,
        rule_body(
            &game_id,
            "revenue_drop",
            0.5,
            24,
            Some(&format!("{}/redirect", receiver.url)),
        ),
    )
    .await;
    let before = receiver.bodies().len();
    let (_, result) = test(redirecting["rule_id"].as_str().unwrap().to_string()).await;
    assert_eq!(result["webhook_status"], "failed");
    assert!(
        result["error"].as_str().unwrap().contains("redirect"),
        "{result}"
    );
    assert_eq!(
        receiver.bodies().len(),
        before,
        "the redirect was not followed"
    );

    let silent = create_rule(
        &app,
        &token,
        rule_body(&game_id, "revenue_drop", 0.5, 24, None),
    )
    .await;
    let (status, _) = test(silent["rule_id"].as_str().unwrap().to_string()).await;
    assert_eq!(status, 400, "no webhook to test");
}

#[tokio::test]
async fn firing_records_each_channels_failure() {
    // No SMTP server: e-mail is skipped. A webhook receiver that fails: recorded as failed.
    let app = spawn_app_with(|s| s.allow_private_webhooks = true).await;
    let receiver = Receiver::start().await;
    receiver.then_answer(503, "{}");
    let (token, game_id, _) = app.game_with_key().await;
    let (threshold, window, events) = scenario("crash_spike", true);
    seed_events(&app, &game_id, &events).await;
    let rule = create_rule(
        &app,
        &token,
        rule_body(
            &game_id,
            "crash_spike",
            threshold,
            window,
            Some(&receiver.hook()),
        ),
    )
    .await;
    assert_eq!(evaluate(&app, &token, &rule).await["fired"], true);
    let item = history(&app, &token, &game_id).await[0].clone();
    assert_eq!(item["email_status"], "skipped", "{item}");
    assert_eq!(item["webhook_status"], "failed", "{item}");
    assert!(item["error"].as_str().unwrap().contains("503"), "{item}");
}

#[tokio::test]
async fn webhooks_to_internal_addresses_are_refused() {
    let app = spawn_app().await;
    let (token, game_id, _) = app.game_with_key().await;
    for url in [
        "http://127.0.0.1/hook",
        "http://127.1.2.3:8080/",
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[::ffff:7f00:1]/",
        "http://[0:0:0:0:0:ffff:a9fe:a9fe]/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[fd00:ec2::254]/",
        "http://100.100.100.200/",
        "http://localhost/",
        "http://LOCALHOST:9000/x",
        "http://0.0.0.0/",
        "http://[::]/",
        "http://0x7f000001/",
        "http://2130706433/",
        "http://10.0.0.8/",
        "http://172.20.1.1/",
        "http://192.168.0.10/",
        "http://100.64.1.1/",
        "http://[fe80::1]/",
    ] {
        let (status, body) = read(
            app.dashboard(Method::POST, "/v1/alerts", &token)
                .json(&rule_body(&game_id, "crash_spike", 2.0, 24, Some(url)))
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(status, 400, "{url}: {body}");
        assert!(
            body["error"]
                .as_str()
                .unwrap()
                .contains("discord_webhook_url"),
            "{url}: {body}"
        );
    }

    // A rule stored while private targets were allowed is still refused at send time by a
    // node that does not allow them, and nothing reaches the receiver.
    let receiver = Receiver::start().await;
    let permissive = spawn_on(app.backend.clone(), |s| s.allow_private_webhooks = true).await;
    let rule = create_rule(
        &permissive,
        &token,
        rule_body(&game_id, "crash_spike", 2.0, 24, Some(&receiver.hook())),
    )
    .await;
    let path = format!(
        "/v1/alerts/{}/test-webhook",
        rule["rule_id"].as_str().unwrap()
    );
    let (status, result) = read(
        app.dashboard(Method::POST, &path, &token)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200, "{result}");
    assert_eq!(result["webhook_status"], "failed");
    assert!(
        result["error"].as_str().unwrap().contains("loopback"),
        "{result}"
    );
    assert!(receiver.bodies().is_empty());
    let (_, result) = read(
        permissive
            .dashboard(Method::POST, &path, &token)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        result["webhook_status"], "sent",
        "allowed on the permissive node: {result}"
    );
}

#[tokio::test]
async fn alert_rules_are_validated() {
    let app = spawn_app().await;
    let _admin = app.new_user().await; // the first account is the instance admin, who sees every game
    let (token, game_id, _) = app.game_with_key().await;
    let valid = rule_body(
        &game_id,
        "log_error_spike",
        2.0,
        24,
        Some("https://discord.com/api/webhooks/1/abc"),
    );
    let with = |field: &str, value: Value| {
        let mut body = valid.clone();
        body[field] = value;
        body
    };
    let without = |field: &str| {
        let mut body = valid.clone();
        body.as_object_mut().unwrap().remove(field);
        body
    };
    for (body, why) in [
        (without("game_id"), "game_id missing"),
        (without("name"), "name missing"),
        (without("type"), "type missing"),
        (without("threshold"), "threshold missing"),
        (without("comparison_window_hours"), "window missing"),
        (without("email"), "email missing"),
        (with("type", json!("server_on_fire")), "unknown type"),
        (with("threshold", json!(0)), "zero threshold"),
        (with("threshold", json!(-1.5)), "negative threshold"),
        (with("threshold", json!("2")), "threshold as a string"),
        (with("comparison_window_hours", json!(0)), "zero window"),
        (
            with("comparison_window_hours", json!(-24)),
            "negative window",
        ),
        (
            with("comparison_window_hours", json!(100000)),
            "window over 90 days",
        ),
        (with("email", json!("not-an-address")), "bad email"),
        (with("email", json!("")), "empty email"),
        (
            with("discord_webhook_url", json!("ftp://discord.com/hook")),
            "not http",
        ),
        (
            with("discord_webhook_url", json!("discord.com/api/webhooks")),
            "no scheme",
        ),
        (
            with(
                "discord_webhook_url",
                json!("https://user:pw@discord.com/x"),
            ),
            "credentials in the URL",
        ),
        (with("name", json!("")), "empty name"),
        (with("name", json!("n".repeat(101))), "long name"),
        (with("game_id", json!("not-a-uuid")), "malformed game id"),
        (with("environment", json!("staging")), "unknown environment"),
        (with("colour", json!("red")), "unknown field"),
    ] {
        let (status, body) = read(
            app.dashboard(Method::POST, "/v1/alerts", &token)
                .json(&body)
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(status, 400, "{why}: {body}");
        assert!(body["error"].is_string(), "{why}");
    }
    let rule = create_rule(&app, &token, valid.clone()).await;
    for field in [
        "game_id",
        "name",
        "type",
        "threshold",
        "comparison_window_hours",
        "email",
        "discord_webhook_url",
    ] {
        assert_eq!(rule[field], valid[field], "{field} round-trips");
    }
    assert_eq!(rule["enabled"], true);
    assert!(rule["last_fired_at"].is_null());
    let rule = create_rule(&app, &token, with("discord_webhook_url", Value::Null)).await;
    assert!(
        rule["discord_webhook_url"].is_null(),
        "the webhook is optional"
    );

    let (other_token, other_game, _) = app.game_with_key().await;
    let _ = other_token;
    let (status, _) = read(
        app.dashboard(Method::POST, "/v1/alerts", &token)
            .json(&with("game_id", json!(other_game)))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 403, "another studio's game");
}

#[tokio::test]
async fn members_read_rules_editors_change_them_outsiders_see_nothing() {
    let app = spawn_app().await;
    let (owner, game_id, _) = app.game_with_key().await;
    let hook = "https://discord.com/api/webhooks/123/secret-token";
    let rule = create_rule(
        &app,
        &owner,
        rule_body(&game_id, "dau_drop", 0.7, 168, Some(hook)),
    )
    .await;
    let rule_path = format!("/v1/alerts/{}", rule["rule_id"].as_str().unwrap());

    let viewer = app.new_user().await;
    let outsider = app.new_user().await;
    let viewer_email = email_of(&app, &viewer).await;
    let (status, _) = read(
        app.dashboard(
            Method::POST,
            &format!("/v1/games/{game_id}/members"),
            &owner,
        )
        .json(&json!({ "email": viewer_email, "role": "viewer" }))
        .send()
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(status, 201);

    let (status, list) = read(
        app.dashboard(
            Method::GET,
            &format!("/v1/alerts?game_id={game_id}"),
            &viewer,
        )
        .send()
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["rules"][0]["rule_id"], rule["rule_id"]);
    assert!(
        !list.to_string().contains("secret-token"),
        "viewers do not get the webhook's secret path: {list}"
    );
    let (status, _) = read(
        app.dashboard(Method::GET, &rule_path, &viewer)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200);
    let (status, _) = read(
        app.dashboard(
            Method::GET,
            &format!("/v1/alerts/history?game_id={game_id}"),
            &viewer,
        )
        .send()
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(status, 200);
    for (method, path, body) in [
        (
            Method::POST,
            "/v1/alerts".to_string(),
            rule_body(&game_id, "dau_drop", 0.7, 24, None),
        ),
        (
            Method::PATCH,
            rule_path.clone(),
            json!({ "threshold": 0.5 }),
        ),
        (Method::DELETE, rule_path.clone(), json!({})),
        (Method::POST, format!("{rule_path}/evaluate"), json!({})),
        (Method::POST, format!("{rule_path}/test-webhook"), json!({})),
    ] {
        let (status, body) = read(
            app.dashboard(method.clone(), &path, &viewer)
                .json(&body)
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(status, 403, "viewer {method} {path}: {body}");
    }

    for (method, path) in [
        (Method::GET, rule_path.clone()),
        (Method::PATCH, rule_path.clone()),
        (Method::DELETE, rule_path.clone()),
        (Method::POST, format!("{rule_path}/evaluate")),
        (Method::GET, format!("/v1/alerts/{}", uuid::Uuid::now_v7())),
        (Method::GET, "/v1/alerts/not-a-uuid".to_string()),
    ] {
        let (status, body) = read(
            app.dashboard(method.clone(), &path, &outsider)
                .json(&json!({}))
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(status, 404, "outsider {method} {path}: {body}");
    }
    for path in [
        format!("/v1/alerts?game_id={game_id}"),
        format!("/v1/alerts/history?game_id={game_id}"),
    ] {
        let (status, _) = read(
            app.dashboard(Method::GET, &path, &outsider)
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(status, 403, "{path}");
    }
    let (status, _) = read(
        app.request(Method::GET, &format!("/v1/alerts?game_id={game_id}"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 401);
    for query in ["", "?game_id=nope"] {
        let (status, _) = read(
            app.dashboard(Method::GET, &format!("/v1/alerts{query}"), &owner)
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(status, 400, "{query}");
    }
    for limit in ["0", "201", "-1", "ten"] {
        let path = format!("/v1/alerts/history?game_id={game_id}&limit={limit}");
        let (status, _) = read(
            app.dashboard(Method::GET, &path, &owner)
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(status, 400, "limit {limit}");
    }

    let (status, updated) = read(
        app.dashboard(Method::PATCH, &rule_path, &owner)
            .json(&json!({ "threshold": 0.5, "name": "Players gone", "discord_webhook_url": null, "enabled": false }))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200, "{updated}");
    assert_eq!(updated["threshold"], 0.5);
    assert_eq!(updated["name"], "Players gone");
    assert!(updated["discord_webhook_url"].is_null());
    assert_eq!(updated["enabled"], false);
    assert_eq!(
        updated["comparison_window_hours"], 168,
        "unchanged fields stay"
    );
    for body in [
        json!({ "threshold": 0 }),
        json!({ "type": "nope" }),
        json!({ "email": "x" }),
        json!({ "discord_webhook_url": "http://127.0.0.1/" }),
    ] {
        let (status, _) = read(
            app.dashboard(Method::PATCH, &rule_path, &owner)
                .json(&body)
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(status, 400, "{body}");
    }
    let (status, _) = read(
        app.dashboard(Method::DELETE, &rule_path, &owner)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 204);
    let (status, _) = read(
        app.dashboard(Method::GET, &rule_path, &owner)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn metrics_chart_each_series_over_utc_days_or_hours() {
    let app = spawn_app().await;
    let (token, game_id, _) = app.game_with_key().await;
    let today = app.state.now().date_naive();
    let at = |days_ago: i64, hour: u32| {
        (today - Duration::days(days_ago))
            .and_hms_opt(hour, 30, 0)
            .unwrap()
            .and_utc()
    };
    seed_events(
        &app,
        &game_id,
        &[
            ev("crash", "a", at(2, 1)),
            ev("crash", "b", at(2, 1)),
            ev("crash", "a", at(1, 5)),
            ev("log", "a", at(1, 5)).props(json!({ "level": "error" })),
            ev("log", "a", at(1, 6)).props(json!({ "level": "warning" })),
            ev("log", "a", at(1, 6)).props(json!({ "level": "debug" })),
            ev("purchase", "a", at(2, 3)).props(json!({ "amount": 4.99 })),
            ev("purchase", "b", at(1, 3)).props(json!({ "amount": 10 })),
            ev("session_start", "c", at(1, 3)).anonymous(),
        ],
    )
    .await;
    let metric = |query: String| {
        let request = app.dashboard(
            Method::GET,
            &format!("/v1/games/{game_id}/metrics?{query}"),
            &token,
        );
        async move { read(request.send().await.unwrap()).await }
    };
    let (from, to) = (today - Duration::days(2), today);
    let values = |body: &Value| {
        body["points"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["value"].as_f64())
            .collect::<Vec<_>>()
    };

    let (status, body) = metric(format!("metric=crashes&from={from}&to={to}")).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["bucket"], "day");
    assert_eq!(values(&body), vec![Some(2.0), Some(1.0), Some(0.0)]);
    assert_eq!(body["total"], 3.0);
    assert_eq!(body["points"][0]["start"], format!("{from}T00:00:00Z"));

    let (_, body) = metric(format!("metric=log_errors&from={from}&to={to}")).await;
    assert_eq!(values(&body), vec![Some(0.0), Some(2.0), Some(0.0)]);
    let (_, body) = metric(format!("metric=revenue&from={from}&to={to}")).await;
    assert_eq!(values(&body), vec![Some(4.99), Some(10.0), Some(0.0)]);
    let (_, body) = metric(format!("metric=dau&from={from}&to={to}")).await;
    assert_eq!(body["metric"], "active_users");
    assert_eq!(
        values(&body),
        vec![Some(2.0), Some(3.0), Some(0.0)],
        "a, b; a, b and the anonymous session"
    );
    assert!(body.get("total").is_none());

    let day = today - Duration::days(1);
    let (_, body) = metric(format!("metric=crashes&bucket=hour&from={day}&to={day}")).await;
    let hourly = values(&body);
    assert_eq!(hourly.len(), 24);
    assert_eq!(hourly[5], Some(1.0));
    assert_eq!(hourly.iter().flatten().sum::<f64>(), 1.0);

    let (_, body) = metric("metric=crashes&environment=production".into()).await;
    assert_eq!(
        body["total"], 0.0,
        "the events came through a development key"
    );
    let (_, body) = metric("metric=crashes".into()).await;
    assert_eq!(
        body["points"].as_array().unwrap().len(),
        30,
        "default: the 30 days up to today"
    );
    assert_eq!(body["total"], 3.0);

    for (query, why) in [
        ("metric=fps".to_string(), "unknown metric"),
        ("".to_string(), "metric missing"),
        ("metric=crashes&bucket=week".to_string(), "unknown bucket"),
        (
            "metric=retention_d7&bucket=hour".to_string(),
            "retention by hour",
        ),
        ("metric=crashes&from=2026-02-31".to_string(), "bad date"),
        (
            format!("metric=crashes&from={to}&to={from}"),
            "from after to",
        ),
        (
            format!(
                "metric=crashes&bucket=hour&from={}&to={to}",
                today - Duration::days(40)
            ),
            "too many hours",
        ),
        (
            "metric=crashes&environment=staging".to_string(),
            "unknown environment",
        ),
    ] {
        let (status, body) = metric(query).await;
        assert_eq!(status, 400, "{why}: {body}");
    }
    let outsider = app.new_user().await;
    let (status, _) = read(
        app.dashboard(
            Method::GET,
            &format!("/v1/games/{game_id}/metrics?metric=crashes"),
            &outsider,
        )
        .send()
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(status, 403);
}

#[tokio::test]
async fn retention_metric_follows_daily_cohorts() {
    let app = spawn_app().await;
    let (token, game_id, _) = app.game_with_key().await;
    let (_, _, events) = scenario("retention_drop", true);
    seed_events(&app, &game_id, &events).await;
    let today = app.state.now().date_naive();
    let (from, to) = (today - Duration::days(11), today - Duration::days(6));
    let (status, body) = read(
        app.dashboard(
            Method::GET,
            &format!("/v1/games/{game_id}/metrics?metric=retention_d7&from={from}&to={to}"),
            &token,
        )
        .send()
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let points = body["points"].as_array().unwrap();
    let values: Vec<Option<f64>> = points.iter().map(|p| p["value"].as_f64()).collect();
    assert_eq!(
        values,
        vec![Some(50.0), Some(50.0), Some(50.0), Some(25.0), None, None],
        "the last two cohorts are empty"
    );
    assert_eq!(points[0]["cohort_size"], 4);
    assert_eq!(points[4]["cohort_size"], 0);
}
