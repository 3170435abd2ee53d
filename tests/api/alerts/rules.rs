//! Alert rules in the dashboard: validation, and who may read or change them.
use super::{create_rule, rule_body};
use crate::helpers::{spawn_app, Fetch};
use reqwest::Method;
use serde_json::{json, Value};

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
        let (status, body) = app
            .dashboard_json(Method::POST, "/v1/alerts", &token, body.clone())
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
    let (status, _) = app
        .dashboard_json(
            Method::POST,
            "/v1/alerts",
            &token,
            with("game_id", json!(other_game)),
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

    let (viewer, _) = app.new_member(&owner, &game_id, "viewer").await;
    let outsider = app.new_user().await;

    let list = app
        .dashboard(
            Method::GET,
            &format!("/v1/alerts?game_id={game_id}"),
            &viewer,
        )
        .expect_status(200)
        .await;
    assert_eq!(list["rules"][0]["rule_id"], rule["rule_id"]);
    assert!(
        !list.to_string().contains("secret-token"),
        "viewers do not get the webhook's secret path: {list}"
    );
    let (status, _) = app.dashboard_call(Method::GET, &rule_path, &viewer).await;
    assert_eq!(status, 200);
    let (status, _) = app
        .dashboard_call(
            Method::GET,
            &format!("/v1/alerts/history?game_id={game_id}"),
            &viewer,
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
        let (status, body) = app
            .dashboard_json(method.clone(), &path, &viewer, body.clone())
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
        let (status, body) = app
            .dashboard_json(method.clone(), &path, &outsider, json!({}))
            .await;
        assert_eq!(status, 404, "outsider {method} {path}: {body}");
    }
    for path in [
        format!("/v1/alerts?game_id={game_id}"),
        format!("/v1/alerts/history?game_id={game_id}"),
    ] {
        let (status, _) = app.dashboard_call(Method::GET, &path, &outsider).await;
        assert_eq!(status, 403, "{path}");
    }
    let (status, _) = app
        .call(Method::GET, &format!("/v1/alerts?game_id={game_id}"))
        .await;
    assert_eq!(status, 401);
    for query in ["", "?game_id=nope"] {
        let (status, _) = app
            .dashboard_call(Method::GET, &format!("/v1/alerts{query}"), &owner)
            .await;
        assert_eq!(status, 400, "{query}");
    }
    for limit in ["0", "201", "-1", "ten"] {
        let path = format!("/v1/alerts/history?game_id={game_id}&limit={limit}");
        let (status, _) = app.dashboard_call(Method::GET, &path, &owner).await;
        assert_eq!(status, 400, "limit {limit}");
    }

    let (status, updated) = app.dashboard_json(Method::PATCH, &rule_path, &owner, json!({ "threshold": 0.5, "name": "Players gone", "discord_webhook_url": null, "enabled": false })).await;
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
        let (status, _) = app
            .dashboard_json(Method::PATCH, &rule_path, &owner, body.clone())
            .await;
        assert_eq!(status, 400, "{body}");
    }
    let (status, _) = app.dashboard_call(Method::DELETE, &rule_path, &owner).await;
    assert_eq!(status, 204);
    let (status, _) = app.dashboard_call(Method::GET, &rule_path, &owner).await;
    assert_eq!(status, 404);
}
