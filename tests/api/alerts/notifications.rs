//! Notifications: webhook deliveries (retries, redirects, hidden bodies, no internal targets)
//! and the status of each channel recorded with a firing.
use super::{alert_app, create_rule, evaluate, history, rule_body, watched_game, Receiver};
use crate::helpers::{spawn_app, spawn_app_with, spawn_on, Fetch};
use reqwest::Method;

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
        async move { request.fetch().await }
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
    let (token, game_id, rule) =
        watched_game(&app, "crash_spike", true, None, Some(&receiver.hook())).await;
    let result = evaluate(&app, &token, &rule).await;
    assert_eq!(result["fired"], true);
    let item = history(&app, &token, &game_id).await[0].clone();
    assert_eq!(item["email_status"], "skipped", "{item}");
    assert_eq!(item["webhook_status"], "failed", "{item}");
    assert!(item["error"].as_str().unwrap().contains("503"), "{item}");

    // "Evaluate now" answers the same, channel by channel (issue 27), without a second read.
    assert_eq!(result["email_status"], "skipped", "{result}");
    assert_eq!(result["webhook_status"], "failed", "{result}");
    assert!(result.get("email_error").is_none(), "{result}");
    let webhook_error = result["webhook_error"].as_str().unwrap_or_default();
    assert!(webhook_error.contains("503"), "{result}");
    assert!(!webhook_error.starts_with("webhook:"), "{result}");
}

#[tokio::test]
async fn evaluating_now_says_how_each_channel_went() {
    let (app, sink, receiver) = alert_app().await;
    let (token, _, rule) =
        watched_game(&app, "crash_spike", true, None, Some(&receiver.hook())).await;
    let result = evaluate(&app, &token, &rule).await;
    assert_eq!(result["fired"], true, "{result}");
    assert_eq!(result["email_status"], "sent", "{result}");
    assert_eq!(result["webhook_status"], "sent", "{result}");
    assert!(result.get("email_error").is_none(), "{result}");
    assert!(result.get("webhook_error").is_none(), "{result}");
    sink.wait_for("oncall@studio.test").await;

    // Not fired (cooling down): no channel was tried, and the answer has no statuses.
    let again = evaluate(&app, &token, &rule).await;
    assert_eq!(again["fired"], false, "{again}");
    assert!(again.get("email_status").is_none(), "{again}");
    assert!(again.get("webhook_status").is_none(), "{again}");
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
        let (status, body) = app
            .dashboard_json(
                Method::POST,
                "/v1/alerts",
                &token,
                rule_body(&game_id, "crash_spike", 2.0, 24, Some(url)),
            )
            .await;
        assert_eq!(status, 400, "{url}: {body}");
        assert_eq!(body["field"], "discord_webhook_url", "{url}: {body}");
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
    let (status, result) = app.dashboard_call(Method::POST, &path, &token).await;
    assert_eq!(status, 200, "{result}");
    assert_eq!(result["webhook_status"], "failed");
    assert!(
        result["error"].as_str().unwrap().contains("loopback"),
        "{result}"
    );
    assert!(receiver.bodies().is_empty());
    let (_, result) = permissive.dashboard_call(Method::POST, &path, &token).await;
    assert_eq!(
        result["webhook_status"], "sent",
        "allowed on the permissive node: {result}"
    );
}
