//! Trying a schema on the newest stored events before it is saved (`.../check`).
use super::*;

/// `POST /v1/games/{game_id}/event-schemas/{name}/check` with `body`.
async fn check_schema(
    app: &TestApp,
    token: &str,
    game_id: &str,
    name: &str,
    body: Value,
) -> (u16, Value) {
    app.dashboard_json(
        Method::POST,
        &format!("/v1/games/{game_id}/event-schemas/{name}/check"),
        token,
        body,
    )
    .await
}

#[tokio::test]
async fn a_schema_is_tried_on_the_newest_stored_events_before_it_is_saved() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let (viewer, _) = app.new_member(&token, &game_id, "viewer").await;
    let now = app.state.now();
    let at = |minutes_ago: i64| (now - chrono::Duration::minutes(minutes_ago)).to_rfc3339();
    let (status, body) = track(&app, &key, json!([
        { "event_name": "purchase", "session_id": "s", "player_id": "ana", "event_id": "good-1", "client_timestamp": at(9), "properties": { "amount": 4.99, "currency": "EUR" } },
        { "event_name": "purchase", "session_id": "s", "player_id": "bob", "event_id": "bad-1", "client_timestamp": at(8), "properties": { "amount": -1, "currency": "euro" } },
        { "event_name": "purchase", "session_id": "s", "player_id": "ana", "event_id": "good-2", "client_timestamp": at(7), "properties": { "amount": 1, "currency": "USD" } },
        { "event_name": "level_start", "session_id": "s", "event_id": "other-name", "client_timestamp": at(6), "properties": { "amount": "lots" } },
        { "event_name": "purchase", "session_id": "s", "event_id": "bad-2", "client_timestamp": at(5) },
        { "event_name": "purchase", "session_id": "s", "player_id": "cy", "event_id": "good-3", "client_timestamp": at(4), "properties": { "amount": 0, "currency": "JPY" } },
    ]))
    .await;
    assert_eq!(status, 202, "{body}");
    let stored_rows = stored(&app, &game_id).await;
    let id_of = |event_id: &str| {
        stored_rows
            .iter()
            .find(|r| r.event_id.as_deref() == Some(event_id))
            .unwrap()
            .id
            .to_string()
    };

    let (status, body) = check_schema(
        &app,
        &viewer,
        &game_id,
        "purchase",
        json!({ "schema": purchase_schema() }),
    )
    .await;
    assert_eq!(status, 200, "any member may try a schema: {body}");
    assert_eq!(body["event_name"], "purchase");
    assert_eq!(body["checked"], 5, "every purchase, and nothing else");
    let violations = body["violations"].as_array().unwrap();
    let found: Vec<(&str, &str)> = violations
        .iter()
        .map(|v| (v["event_id"].as_str().unwrap(), v["id"].as_str().unwrap()))
        .collect();
    let (bad_2, bad_1) = (id_of("bad-2"), id_of("bad-1"));
    assert_eq!(
        found,
        [
            ("bad-2", bad_2.as_str()),
            ("bad-2", &bad_2),
            ("bad-1", &bad_1),
            ("bad-1", &bad_1)
        ],
        "two problems each in exactly the bad events, newest first: {body}"
    );
    assert_eq!(violations[2]["player_id"], "bob");
    assert_eq!(violations[0]["player_id"], Value::Null);
    assert_eq!(
        violations[2]["occurred_at"],
        playtrace::http::timestamp(now - chrono::Duration::minutes(8))
    );
    let messages: Vec<&str> = violations
        .iter()
        .map(|v| v["message"].as_str().unwrap())
        .collect();
    assert!(
        messages[2..].iter().any(|m| m.starts_with("/amount: ")),
        "messages name the offending value: {messages:?}"
    );
    assert!(
        messages[..2].iter().all(|m| m.contains("required")),
        "{messages:?}"
    );

    let (_, newest) = check_schema(
        &app,
        &token,
        &game_id,
        "purchase",
        json!({ "schema": purchase_schema(), "limit": 2 }),
    )
    .await;
    assert_eq!(newest["checked"], 2);
    assert_eq!(
        newest["violations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v["event_id"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["bad-2", "bad-2"],
        "only the newest 2: good-3 and bad-2"
    );
    let (_, loose) = check_schema(
        &app,
        &token,
        &game_id,
        "purchase",
        json!({ "schema": { "type": "object" } }),
    )
    .await;
    assert_eq!(
        (&loose["checked"], &loose["violations"]),
        (&json!(5), &json!([]))
    );
    let (_, none) = check_schema(
        &app,
        &token,
        &game_id,
        "never_sent",
        json!({ "schema": false }),
    )
    .await;
    assert_eq!(
        (&none["checked"], &none["violations"]),
        (&json!(0), &json!([]))
    );
    let (_, everything) = check_schema(
        &app,
        &token,
        &game_id,
        "level_start",
        json!({ "schema": false, "limit": 1000 }),
    )
    .await;
    assert_eq!(everything["checked"], 1);
    assert_eq!(everything["violations"][0]["event_id"], "other-name");

    let (status, _) = app
        .dashboard_call(
            Method::GET,
            &format!("/v1/games/{game_id}/event-schemas/purchase"),
            &token,
        )
        .await;
    assert_eq!(status, 404, "trying a schema stores nothing");
}

#[tokio::test]
async fn trying_a_schema_refuses_what_saving_it_would() {
    let app = spawn_app().await;
    let _admin = app.new_user().await;
    let (token, game_id, key) = app.game_with_key().await;
    track(
        &app,
        &key,
        json!({ "event_name": "purchase", "session_id": "s" }),
    )
    .await;
    for (schema, case) in [
        (json!({ "type": "banana" }), "unknown type"),
        (
            json!({ "properties": { "a": { "pattern": "(" } } }),
            "broken regular expression",
        ),
        (
            json!({ "$schema": "http://json-schema.org/draft-07/schema#" }),
            "another draft",
        ),
        (json!(42), "not an object"),
    ] {
        let (status, body) = check_schema(
            &app,
            &token,
            &game_id,
            "purchase",
            json!({ "schema": schema.clone() }),
        )
        .await;
        let (put_status, put_body) = put_schema(&app, &token, &game_id, "purchase", schema).await;
        assert_eq!(
            (status, &body),
            (put_status, &put_body),
            "{case}: the PUT's answer"
        );
        assert_eq!(status, 400, "{case}");
    }
    let (status, body) = check_schema(
        &app,
        &token,
        &game_id,
        "purchase",
        json!({ "schema": { "maxLength": 1, "x": "y".repeat(70 * 1024) } }),
    )
    .await;
    assert_eq!(status, 413, "a schema over 64 KiB, as the PUT: {body}");

    let cases: Vec<(Value, &str, &str)> = vec![
        (
            json!({ "schema": {}, "limit": 0 }),
            "limit must be an integer from 1 to 1000",
            "limit 0",
        ),
        (
            json!({ "schema": {}, "limit": 1001 }),
            "limit must be an integer from 1 to 1000",
            "limit 1001",
        ),
        (
            json!({ "schema": {}, "limit": "ten" }),
            "",
            "limit not a number",
        ),
        (json!({ "limit": 5 }), "", "no schema"),
        (json!({ "schema": {}, "save": true }), "", "unknown field"),
        (json!([]), "", "not an object"),
    ];
    for (body, expected, case) in cases {
        let (status, answer) = check_schema(&app, &token, &game_id, "purchase", body).await;
        assert_eq!(status, 400, "{case}: {answer}");
        let error = answer["error"].as_str().unwrap_or_default();
        assert!(
            error.contains(expected),
            "{case}: {expected:?} in {error:?}"
        );
    }
    let (status, answer) = check_schema(
        &app,
        &token,
        &game_id,
        &"n".repeat(129),
        json!({ "schema": {} }),
    )
    .await;
    assert_eq!(status, 400, "event names follow the event rules: {answer}");

    let (other, other_game, _) = app.game_with_key().await;
    for (bearer, game, case) in [
        (&other, &game_id, "another tenant's game"),
        (&token, &other_game, "the other way round"),
        (&other, &uuid::Uuid::new_v4().to_string(), "an unknown game"),
    ] {
        let (status, body) =
            check_schema(&app, bearer, game, "purchase", json!({ "schema": {} })).await;
        assert_eq!(status, 403, "{case}: {body}");
        assert_eq!(body["error"], "You do not have access to this game");
    }
    app.request(
        Method::POST,
        &format!("/v1/games/{game_id}/event-schemas/purchase/check"),
    )
    .json(&json!({ "schema": {} }))
    .expect_status(401)
    .await;
}
