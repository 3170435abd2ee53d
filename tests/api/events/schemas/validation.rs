//! The `event_validation` modes of `/v1/track`: off, warn and enforce.
use super::*;

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
