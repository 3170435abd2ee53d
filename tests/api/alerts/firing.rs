//! Firing: each kind of rule fires when its metric crosses the threshold against its baseline,
//! stays quiet otherwise, at most once an hour across nodes, and the worker evaluates every rule.
use super::{
    alert_app, create_rule, evaluate, history, many, rule_body, scenario, watched_game, KINDS,
};
use crate::{
    funnels::{ev, seed_events},
    helpers::{read, spawn_app_with, spawn_on},
    mail_sink::MailSink,
};
use chrono::{Duration, Utc};
use reqwest::Method;
use serde_json::json;

#[tokio::test]
async fn each_kind_fires_when_its_metric_crosses_the_threshold() {
    let (app, sink, receiver) = alert_app().await;
    for (kind, colour) in KINDS {
        let email = format!("{kind}@studio.test");
        let (token, game_id, rule) =
            watched_game(&app, kind, true, Some(&email), Some(&receiver.hook())).await;

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
        let (token, game_id, rule) =
            watched_game(&app, kind, false, None, Some(&receiver.hook())).await;
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
        let (threshold, window, _) = scenario(kind, false);
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
    let (token, game_id, rule) =
        watched_game(&app, "crash_spike", true, None, Some(&receiver.hook())).await;
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
    let (_, stored) = app
        .dashboard_call(
            Method::GET,
            &format!("/v1/alerts/{}", rule["rule_id"].as_str().unwrap()),
            &token,
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
    let (token, game_id, _) =
        watched_game(&app, "dau_drop", true, Some("worker@studio.test"), None).await;
    let (quiet_token, quiet_game, _) = watched_game(&app, "dau_drop", false, None, None).await;

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
