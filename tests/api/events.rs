//! Black-box tests of events: `POST /v1/track` input rules, batches, idempotency and the stored
//! rows. Quotas and usage, schemas (and trying them), durability and the dashboard's reads of
//! the stored events are in `events/`; the `Quotas` hot-store conformance suite is in
//! `conformance/quotas.rs`.
pub mod durability;
pub mod export;
pub mod quota;
pub mod recent;
pub mod schemas;

use crate::helpers::{read, spawn_app, TestApp};
use entity::events;
use reqwest::Method;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
use serde_json::{json, Value};
use uuid::Uuid;

/// Sends a track request; returns status and body.
pub async fn track(app: &TestApp, key: &str, body: Value) -> (u16, Value) {
    app.game_json(Method::POST, "/v1/track", key, body).await
}

/// Every stored event of a game, oldest first.
pub async fn stored(app: &TestApp, game_id: &str) -> Vec<events::Model> {
    events::Entity::find()
        .filter(events::Column::GameId.eq(Uuid::parse_str(game_id).unwrap()))
        .order_by_asc(events::Column::Id)
        .all(&app.state.db)
        .await
        .unwrap()
}

pub fn event(name: &str) -> Value {
    json!({ "event_name": name, "session_id": "s-1" })
}

pub fn batch(size: usize) -> Value {
    Value::Array((0..size).map(|i| json!({ "event_name": "level_start", "session_id": "s-1", "properties": { "i": i } })).collect())
}

#[tokio::test]
async fn a_single_event_is_stored_with_everything_the_client_sent() {
    let app = spawn_app().await;
    let (_token, game_id, key) = app.game_with_key().await;

    let (status, body) = track(
        &app,
        &key,
        json!({
            "event_name": "level_complete",
            "session_id": "sess-42",
            "player_id": "player-7",
            "properties": { "level": 3, "time": 61.5 },
            "client_timestamp": "2026-01-02T03:04:05Z",
            "event_id": "evt-1"
        }),
    )
    .await;

    assert_eq!(status, 202, "{body}");
    assert_eq!(body["received"], 1);
    assert_eq!(body["quota"]["limit"], 100_000, "free tier");
    assert_eq!(body["quota"]["remaining"], 99_999);
    assert!(
        body.get("warnings").is_none(),
        "no warnings without validation: {body}"
    );
    let rows = stored(&app, &game_id).await;
    assert_eq!(rows.len(), 1);
    let row = &rows[0];
    assert_eq!(row.event_name, "level_complete");
    assert_eq!(row.session_id, "sess-42");
    assert_eq!(row.player_id.as_deref(), Some("player-7"));
    assert_eq!(
        row.actor_id, "player-7",
        "the player is the active-user identity"
    );
    assert_eq!(row.event_id.as_deref(), Some("evt-1"));
    assert_eq!(row.environment, "development");
    assert_eq!(row.properties, json!({ "level": 3, "time": 61.5 }));
    assert_eq!(row.occurred_at.to_rfc3339(), "2026-01-02T03:04:05+00:00");
    assert!((app.state.now() - row.received_at).num_seconds().abs() < 60);
}

#[tokio::test]
async fn a_batch_of_100_is_stored_and_101_is_refused_whole() {
    let app = spawn_app().await;
    let (_token, game_id, key) = app.game_with_key().await;

    let (status, body) = track(&app, &key, batch(100)).await;
    assert_eq!(status, 202, "{body}");
    assert_eq!(body["received"], 100);
    assert_eq!(body["quota"]["remaining"], 100_000 - 100);

    let (status, body) = track(&app, &key, batch(101)).await;
    assert_eq!(status, 413, "{body}");
    assert_eq!(body["limit"], 100);
    assert_eq!(body["received"], 101);
    assert!(body["error"].is_string());
    assert_eq!(
        stored(&app, &game_id).await.len(),
        100,
        "nothing of the refused batch is stored"
    );
}

#[tokio::test]
async fn invalid_events_are_refused_with_400() {
    let app = spawn_app().await;
    let (_token, game_id, key) = app.game_with_key().await;
    let long = "x".repeat(129);
    let cases: Vec<(Value, &str, &str)> = vec![
        (
            json!({ "session_id": "s" }),
            "event_name is required",
            "missing event_name",
        ),
        (
            json!({ "event_name": null, "session_id": "s" }),
            "event_name is required",
            "null event_name",
        ),
        (
            json!({ "event_name": "" , "session_id": "s" }),
            "event_name must be 1 to 128 characters",
            "empty event_name",
        ),
        (
            json!({ "event_name": long, "session_id": "s" }),
            "event_name must be 1 to 128 characters",
            "129-character event_name",
        ),
        (
            json!({ "event_name": 5, "session_id": "s" }),
            "event_name must be a string",
            "numeric event_name",
        ),
        (
            json!({ "event_name": "a" }),
            "session_id is required",
            "missing session_id",
        ),
        (
            json!({ "event_name": "a", "session_id": 12 }),
            "session_id must be a string",
            "numeric session_id",
        ),
        (
            json!({ "event_name": "a", "session_id": "" }),
            "session_id must be 1 to 128 characters",
            "empty session_id",
        ),
        (
            json!({ "event_name": "a", "session_id": "s", "player_id": [] }),
            "player_id must be a string",
            "array player_id",
        ),
        (
            json!({ "event_name": "a", "session_id": "s", "properties": [1] }),
            "properties must be an object",
            "array properties",
        ),
        (
            json!({ "event_name": "a", "session_id": "s", "properties": "x" }),
            "properties must be an object",
            "string properties",
        ),
        (
            json!({ "event_name": "a", "session_id": "s", "client_timestamp": "yesterday" }),
            "client_timestamp must be an ISO 8601",
            "unparseable timestamp",
        ),
        (
            json!({ "event_name": "a", "session_id": "s", "client_timestamp": "2026-13-40T00:00:00Z" }),
            "client_timestamp must be an ISO 8601",
            "impossible date",
        ),
        (
            json!({ "event_name": "a", "session_id": "s", "client_timestamp": 1700000000 }),
            "client_timestamp must be a string",
            "numeric timestamp",
        ),
        (
            json!({ "event_name": "a", "session_id": "s", "event_id": "e".repeat(65) }),
            "event_id must be 1 to 64 characters",
            "65-character event_id",
        ),
        (
            json!({ "event_name": "a", "session_id": "s", "event_id": 7 }),
            "event_id must be a string",
            "numeric event_id",
        ),
        (
            json!({ "event_name": "a", "session_id": "s", "colour": "red" }),
            "unknown field colour",
            "unknown field",
        ),
        (
            json!({ "event_name": "a", "session_id": "s", "properties": { "k": "a\u{0}b" } }),
            "NUL",
            "NUL character in properties",
        ),
        (
            json!("level_start"),
            "event object or an array",
            "a bare string",
        ),
        (json!([]), "no events", "an empty batch"),
        (
            json!([event("ok"), 42]),
            "events[1]: an event must be a JSON object",
            "a number inside a batch",
        ),
        (
            json!([event("ok"), { "session_id": "s" }]),
            "events[1]: event_name is required",
            "a bad event inside a batch",
        ),
    ];
    for (body, expected, case) in cases {
        let (status, answer) = track(&app, &key, body).await;
        assert_eq!(status, 400, "{case}: {answer}");
        let error = answer["error"].as_str().unwrap_or_default();
        assert!(
            error.contains(expected),
            "{case}: expected {expected:?} in {error:?}"
        );
    }
    assert!(
        stored(&app, &game_id).await.is_empty(),
        "no invalid request stored anything"
    );

    let (status, answer) = track(
        &app,
        &key,
        json!([event("ok"), event("ok"), { "event_name": "x" }]),
    )
    .await;
    assert_eq!(status, 400);
    assert_eq!(answer["index"], 2, "the bad event's position: {answer}");
}

#[tokio::test]
async fn malformed_json_and_missing_keys_get_json_errors() {
    let app = spawn_app().await;
    let (_token, _game_id, key) = app.game_with_key().await;
    let response = app
        .game(Method::POST, "/v1/track", &key)
        .header("content-type", "application/json")
        .body("{\"event_name\": ")
        .send()
        .await
        .unwrap();
    let (status, body) = read(response).await;
    assert_eq!(status, 400);
    assert!(body["error"].is_string(), "{body}");

    let (status, body) = app.call_json(Method::POST, "/v1/track", event("a")).await;
    assert_eq!(status, 401);
    assert!(body["error"].as_str().unwrap().contains("x-game-api-key"));
    let (status, body) = track(&app, "pt_wrong", event("a")).await;
    assert_eq!(status, 401);
    assert_eq!(body["error"], "Invalid API key");
}

#[tokio::test]
async fn timestamps_decide_occurred_at_within_reason() {
    let app = spawn_app().await;
    let (_token, game_id, key) = app.game_with_key().await;
    let now = app.state.now();
    let soon = now + chrono::Duration::minutes(4);
    let far = now + chrono::Duration::hours(3);
    let events = json!([
        { "event_name": "a", "session_id": "s", "client_timestamp": soon.to_rfc3339(), "event_id": "soon" },
        { "event_name": "a", "session_id": "s", "client_timestamp": far.to_rfc3339(), "event_id": "far" },
        { "event_name": "a", "session_id": "s", "client_timestamp": "2026-03-01T12:00:00+02:00", "event_id": "offset" },
        { "event_name": "a", "session_id": "s", "client_timestamp": "2026-03-01T12:00:00.250", "event_id": "naive" },
        { "event_name": "a", "session_id": "s", "event_id": "none" },
    ]);
    let (status, body) = track(&app, &key, events).await;
    assert_eq!(status, 202, "{body}");
    let rows = stored(&app, &game_id).await;
    let occurred = |id: &str| {
        rows.iter()
            .find(|r| r.event_id.as_deref() == Some(id))
            .unwrap()
            .clone()
    };
    assert_eq!(
        occurred("soon").occurred_at.timestamp(),
        soon.timestamp(),
        "up to 5 minutes ahead is believed"
    );
    let far_row = occurred("far");
    assert_eq!(
        far_row.occurred_at, far_row.received_at,
        "further ahead: the receive time"
    );
    assert_eq!(
        occurred("offset").occurred_at.to_rfc3339(),
        "2026-03-01T10:00:00+00:00"
    );
    assert_eq!(
        occurred("naive").occurred_at.timestamp_millis() % 1000,
        250,
        "no offset reads as UTC"
    );
    let none = occurred("none");
    assert_eq!(none.occurred_at, none.received_at);
}

#[tokio::test]
async fn metric_columns_are_filled_from_reserved_events() {
    let app = spawn_app().await;
    let (_token, game_id, key) = app.game_with_key().await;
    let (status, body) = track(
        &app,
        &key,
        json!([
            { "event_name": "purchase", "session_id": "s1", "player_id": "p1", "properties": { "amount": 4.99, "currency": "EUR" } },
            { "event_name": "purchase", "session_id": "s2", "properties": { "amount": "lots" } },
            { "event_name": "log", "session_id": "s3", "properties": { "level": "Error", "message": "boom" } },
            { "event_name": "log", "session_id": "s3", "properties": { "level": 3 } },
            { "event_name": "crash", "session_id": "s4", "properties": { "amount": 9, "level": "error" } },
        ]),
    )
    .await;
    assert_eq!(status, 202, "{body}");
    let rows = stored(&app, &game_id).await;
    let summary: Vec<(String, String, Option<f64>, Option<String>)> = rows
        .into_iter()
        .map(|r| (r.event_name, r.actor_id, r.revenue_amount, r.log_level))
        .collect();
    assert_eq!(
        summary,
        vec![
            ("purchase".into(), "p1".into(), Some(4.99), None),
            ("purchase".into(), "s2".into(), None, None),
            ("log".into(), "s3".into(), None, Some("error".into())),
            ("log".into(), "s3".into(), None, None),
            ("crash".into(), "s4".into(), None, None),
        ]
    );
}

#[tokio::test]
async fn event_ids_make_retries_idempotent_per_game() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let retried = json!([
        { "event_name": "a", "session_id": "s", "event_id": "e-1" },
        { "event_name": "a", "session_id": "s", "event_id": "e-2" },
        { "event_name": "a", "session_id": "s" },
    ]);

    let (status, first) = track(&app, &key, retried.clone()).await;
    assert_eq!(status, 202, "{first}");
    let (status, second) = track(&app, &key, retried).await;
    assert_eq!(status, 202, "a retry is accepted: {second}");
    assert_eq!(second["received"], 3);
    let rows = stored(&app, &game_id).await;
    assert_eq!(
        rows.len(),
        4,
        "e-1 and e-2 once, the event without an id twice"
    );
    assert_eq!(
        second["quota"]["remaining"],
        100_000 - 4,
        "duplicates are not charged"
    );

    // the same id twice in one request is stored once
    let (status, _) = track(
        &app,
        &key,
        json!([
            { "event_name": "a", "session_id": "s", "event_id": "twin" },
            { "event_name": "b", "session_id": "s", "event_id": "twin" },
        ]),
    )
    .await;
    assert_eq!(status, 202);
    assert_eq!(
        stored(&app, &game_id)
            .await
            .iter()
            .filter(|r| r.event_id.as_deref() == Some("twin"))
            .count(),
        1
    );

    // a production key of the same game shares the ids; another game does not
    let production = app.create_key(&token, &game_id, "production").await;
    track(
        &app,
        &production,
        json!({ "event_name": "a", "session_id": "s", "event_id": "e-1" }),
    )
    .await;
    assert_eq!(stored(&app, &game_id).await.len(), 5);
    let (_token, other_game, other_key) = app.game_with_key().await;
    let (status, _) = track(
        &app,
        &other_key,
        json!({ "event_name": "a", "session_id": "s", "event_id": "e-1" }),
    )
    .await;
    assert_eq!(status, 202);
    assert_eq!(stored(&app, &other_game).await.len(), 1);
}

#[tokio::test]
async fn concurrent_requests_are_each_stored_once() {
    let app = spawn_app().await;
    let (_token, game_id, key) = app.game_with_key().await;
    let mut tasks = Vec::new();
    for request in 0..40 {
        let client = app.client.clone();
        let url = app.url("/v1/track");
        let key = key.clone();
        tasks.push(tokio::spawn(async move {
            let events: Vec<Value> = (0..5)
                .map(|i| json!({ "event_name": "tick", "session_id": "s", "event_id": format!("{request}-{i}") }))
                .collect();
            client.post(url).header("x-game-api-key", key).json(&events).send().await.unwrap().status().as_u16()
        }));
    }
    for task in tasks {
        assert_eq!(task.await.unwrap(), 202);
    }
    let rows = stored(&app, &game_id).await;
    assert_eq!(rows.len(), 200);
    let mut ids: Vec<_> = rows.iter().map(|r| r.event_id.clone().unwrap()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 200, "every event once");
}

#[tokio::test]
async fn deleting_a_game_while_its_events_arrive_leaves_none_behind() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let (_, other_game, other_key) = app.game_with_key().await;
    assert_eq!(track(&app, &other_key, event("kept")).await.0, 202);

    // Senders keep tracking until the key stops working; the game goes in the middle.
    let accepted = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut senders = Vec::new();
    for sender in 0..8 {
        let (client, url, key) = (app.client.clone(), app.url("/v1/track"), key.clone());
        let accepted = accepted.clone();
        senders.push(tokio::spawn(async move {
            for request in 0.. {
                let body = json!([
                    { "event_name": "tick", "session_id": "s" },
                    { "event_name": "tick", "session_id": "s", "event_id": format!("{sender}-{request}") },
                ]);
                let response = client.post(&url).header("x-game-api-key", &key).json(&body).send().await.unwrap();
                match response.status().as_u16() {
                    202 => accepted.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
                    401 => return request,
                    other => panic!("unexpected status {other}"),
                };
            }
            unreachable!()
        }));
    }
    while accepted.load(std::sync::atomic::Ordering::Relaxed) < 40 {
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    let deleted = app
        .dashboard(Method::DELETE, &format!("/v1/games/{game_id}"), &token)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), 204);
    for sender in senders {
        sender.await.unwrap();
    }

    assert!(
        stored(&app, &game_id).await.is_empty(),
        "no event of the deleted game is left"
    );
    let usage = entity::event_usage::Entity::find()
        .filter(entity::event_usage::Column::GameId.eq(Uuid::parse_str(&game_id).unwrap()))
        .all(&app.state.db)
        .await
        .unwrap();
    assert!(
        usage.is_empty(),
        "no usage count of the deleted game is left"
    );
    let others = stored(&app, &other_game).await;
    assert_eq!(others.len(), 1, "another game's events are untouched");
    assert_eq!(others[0].event_name, "kept");
}
