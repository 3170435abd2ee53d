//! Event schemas (dashboard) and the `event_validation` modes of `/v1/track`.
use super::{stored, track};
use crate::helpers::{spawn_app, TestApp};
use reqwest::Method;
use serde_json::{json, Value};

fn purchase_schema() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "required": ["amount", "currency"],
        "properties": {
            "amount": { "type": "number", "minimum": 0 },
            "currency": { "type": "string", "pattern": "^[A-Z]{3}$" }
        }
    })
}

pub async fn put_schema(
    app: &TestApp,
    token: &str,
    game_id: &str,
    name: &str,
    schema: Value,
) -> (u16, Value) {
    app.dashboard_json(
        Method::PUT,
        &format!("/v1/games/{game_id}/event-schemas/{name}"),
        token,
        schema,
    )
    .await
}

async fn set_validation(app: &TestApp, token: &str, game_id: &str, mode: &str) {
    let (status, body) = app
        .dashboard_json(
            Method::PATCH,
            &format!("/v1/games/{game_id}"),
            token,
            json!({ "event_validation": mode }),
        )
        .await;
    assert_eq!(status, 200, "{body}");
}

fn purchases() -> Value {
    json!([
        { "event_name": "purchase", "session_id": "s", "properties": { "amount": 4.99, "currency": "EUR" } },
        { "event_name": "purchase", "session_id": "s", "properties": { "amount": -1, "currency": "euro" } },
        { "event_name": "level_start", "session_id": "s", "properties": { "anything": true } },
        { "event_name": "purchase", "session_id": "s" },
    ])
}

#[tokio::test]
async fn schemas_are_created_replaced_listed_read_and_deleted() {
    let app = spawn_app().await;
    let (token, game_id, _key) = app.game_with_key().await;
    let base = format!("/v1/games/{game_id}/event-schemas");

    let (status, created) = put_schema(&app, &token, &game_id, "purchase", purchase_schema()).await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(created["event_name"], "purchase");
    assert_eq!(created["schema"], purchase_schema());
    let (status, replaced) = put_schema(
        &app,
        &token,
        &game_id,
        "purchase",
        json!({ "type": "object" }),
    )
    .await;
    assert_eq!(status, 200, "{replaced}");
    assert_eq!(replaced["created_at"], created["created_at"]);
    put_schema(&app, &token, &game_id, "boss fight", json!(true)).await;

    let (status, list) = app.dashboard_call(Method::GET, &base, &token).await;
    assert_eq!(status, 200);
    let names: Vec<&str> = list["event_schemas"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["event_name"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["boss fight", "purchase"]);

    let (status, one) = app
        .dashboard_call(Method::GET, &format!("{base}/purchase"), &token)
        .await;
    assert_eq!(status, 200);
    assert_eq!(one["schema"], json!({ "type": "object" }));

    let (status, _) = app
        .dashboard_call(Method::DELETE, &format!("{base}/purchase"), &token)
        .await;
    assert_eq!(status, 204);
    for method in [Method::GET, Method::DELETE] {
        let (status, body) = app
            .dashboard_call(method, &format!("{base}/purchase"), &token)
            .await;
        assert_eq!(status, 404, "{body}");
        assert!(body["error"].is_string());
    }
}

#[tokio::test]
async fn invalid_schemas_are_refused_with_400() {
    let app = spawn_app().await;
    let (token, game_id, _key) = app.game_with_key().await;
    let cases: Vec<(Value, &str)> = vec![
        (json!({ "type": "banana" }), "unknown type"),
        (json!({ "minimum": "five" }), "non-numeric minimum"),
        (json!({ "required": "amount" }), "required not an array"),
        (
            json!({ "properties": { "a": { "pattern": "(" } } }),
            "broken regular expression",
        ),
        (
            json!({ "$schema": "http://json-schema.org/draft-07/schema#", "type": "object" }),
            "another draft",
        ),
        (
            json!({ "$ref": "https://example.com/schema.json" }),
            "remote reference",
        ),
        (json!(42), "not an object"),
        (json!("object"), "a string"),
    ];
    for (schema, case) in cases {
        let (status, body) = put_schema(&app, &token, &game_id, "purchase", schema).await;
        assert_eq!(status, 400, "{case}: {body}");
        assert!(body["error"].is_string(), "{case}");
    }
    let (status, _) = put_schema(&app, &token, &game_id, &"n".repeat(129), json!({})).await;
    assert_eq!(status, 400, "event names follow the event rules");
    let (_, list) = app
        .dashboard_call(
            Method::GET,
            &format!("/v1/games/{game_id}/event-schemas"),
            &token,
        )
        .await;
    assert_eq!(list["event_schemas"], json!([]));
}

#[tokio::test]
async fn only_editors_change_schemas_and_only_members_see_them() {
    let app = spawn_app().await;
    let _admin = app.new_user().await;
    let (owner, game_id, _key) = app.game_with_key().await;
    let (viewer, _) = app.new_member(&owner, &game_id, "viewer").await;
    let outsider = app.new_user().await;
    put_schema(&app, &owner, &game_id, "purchase", purchase_schema()).await;

    let (status, _) = put_schema(&app, &viewer, &game_id, "purchase", json!({})).await;
    assert_eq!(status, 403, "a viewer cannot change schemas");
    let (status, _) = app
        .dashboard_call(
            Method::GET,
            &format!("/v1/games/{game_id}/event-schemas/purchase"),
            &viewer,
        )
        .await;
    assert_eq!(status, 200, "a viewer reads them");
    let (status, _) = app
        .dashboard_call(
            Method::DELETE,
            &format!("/v1/games/{game_id}/event-schemas/purchase"),
            &viewer,
        )
        .await;
    assert_eq!(status, 403);
    for (method, path) in [
        (Method::GET, format!("/v1/games/{game_id}/event-schemas")),
        (
            Method::GET,
            format!("/v1/games/{game_id}/event-schemas/purchase"),
        ),
        (
            Method::DELETE,
            format!("/v1/games/{game_id}/event-schemas/purchase"),
        ),
    ] {
        let (status, _) = app.dashboard_call(method.clone(), &path, &outsider).await;
        assert_eq!(status, 403, "{method} {path} by another tenant");
    }
    let (status, _) = put_schema(&app, &outsider, &game_id, "purchase", json!({})).await;
    assert_eq!(status, 403);
    let (status, _) = app
        .call(Method::GET, &format!("/v1/games/{game_id}/event-schemas"))
        .await;
    assert_eq!(status, 401);
}

#[tokio::test]
async fn validation_off_stores_everything_without_warnings() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    put_schema(&app, &token, &game_id, "purchase", purchase_schema()).await;
    let (status, body) = track(&app, &key, purchases()).await;
    assert_eq!(status, 202, "{body}");
    assert!(body.get("warnings").is_none(), "{body}");
    assert_eq!(stored(&app, &game_id).await.len(), 4);
}

#[tokio::test]
async fn warn_mode_stores_everything_and_lists_the_violations() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    put_schema(&app, &token, &game_id, "purchase", purchase_schema()).await;
    set_validation(&app, &token, &game_id, "warn").await;

    let (status, body) = track(&app, &key, purchases()).await;
    assert_eq!(status, 202, "{body}");
    assert_eq!(body["received"], 4);
    let warnings = body["warnings"].as_array().expect("warnings present");
    let indexes: Vec<u64> = warnings
        .iter()
        .map(|w| w["index"].as_u64().unwrap())
        .collect();
    assert_eq!(
        indexes,
        vec![1, 1, 3, 3],
        "two problems in event 1, two in event 3: {body}"
    );
    for warning in warnings {
        assert_eq!(warning["event_name"], "purchase");
        assert!(warning["message"].as_str().is_some_and(|m| !m.is_empty()));
    }
    assert!(
        warnings[0]["message"].as_str().unwrap().contains("amount")
            || warnings[1]["message"].as_str().unwrap().contains("amount")
    );
    assert_eq!(stored(&app, &game_id).await.len(), 4);

    let (status, body) = track(&app, &key, json!({ "event_name": "purchase", "session_id": "s", "properties": { "amount": 1, "currency": "USD" } })).await;
    assert_eq!(status, 202);
    assert!(
        body.get("warnings").is_none(),
        "valid events bring no warnings: {body}"
    );
}

#[tokio::test]
async fn enforce_mode_refuses_the_whole_request() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    put_schema(&app, &token, &game_id, "purchase", purchase_schema()).await;
    set_validation(&app, &token, &game_id, "enforce").await;

    let (status, body) = track(&app, &key, purchases()).await;
    assert_eq!(status, 400, "{body}");
    assert!(body["error"].is_string());
    let violations = body["violations"].as_array().expect("violations present");
    assert_eq!(
        violations
            .iter()
            .map(|v| v["index"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        vec![1, 1, 3, 3]
    );
    assert!(violations
        .iter()
        .all(|v| v["event_name"] == "purchase" && v["message"].is_string()));
    assert!(
        stored(&app, &game_id).await.is_empty(),
        "nothing of a refused request is stored"
    );

    let (status, body) = track(&app, &key, json!([
        { "event_name": "purchase", "session_id": "s", "properties": { "amount": 1, "currency": "USD" } },
        { "event_name": "no_schema", "session_id": "s", "properties": { "x": 1 } },
    ]))
    .await;
    assert_eq!(status, 202, "{body}");
    assert_eq!(
        body["quota"]["remaining"],
        100_000 - 2,
        "refused requests were not charged"
    );

    // a changed schema applies at once on this node
    put_schema(
        &app,
        &token,
        &game_id,
        "no_schema",
        json!({ "properties": { "x": { "type": "string" } } }),
    )
    .await;
    let (status, body) = track(
        &app,
        &key,
        json!({ "event_name": "no_schema", "session_id": "s", "properties": { "x": 1 } }),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["violations"][0]["index"], 0);
}
