//! Retention: `retention_days` on the game (`PATCH /v1/games/{id}`, owner) and the worker's
//! pass that deletes older events (triggered here directly, as the worker would, with the
//! test clock).
use crate::events::stored;
use crate::helpers::{spawn_app, Fetch, TestApp};
use chrono::Duration;
use reqwest::Method;
use serde_json::{json, Value};

async fn set_retention(app: &TestApp, token: &str, game_id: &str, days: Value) -> (u16, Value) {
    app.dashboard_json(
        Method::PATCH,
        &format!("/v1/games/{game_id}"),
        token,
        json!({ "retention_days": days }),
    )
    .await
}

/// Tracks one event per age (days before now), named after its age.
async fn track_aged(app: &TestApp, key: &str, ages_in_days: &[i64]) {
    let now = app.state.now();
    let events: Vec<Value> = ages_in_days
        .iter()
        .map(|days| {
            json!({
                "event_name": format!("age_{days}"),
                "session_id": "s-1",
                "client_timestamp": (now - Duration::days(*days)).format("%Y-%m-%dT%H:%M:%SZ").to_string(),
            })
        })
        .collect();
    app.game(Method::POST, "/v1/track", key)
        .json(&Value::Array(events))
        .expect_status(202)
        .await;
}

async fn names(app: &TestApp, game_id: &str) -> Vec<String> {
    let mut names: Vec<String> = stored(app, game_id)
        .await
        .into_iter()
        .map(|e| e.event_name)
        .collect();
    names.sort();
    names
}

#[tokio::test]
async fn the_owner_sets_and_clears_retention_on_the_game() {
    let app = spawn_app().await;
    let (token, game_id, _key) = app.game_with_key().await;
    let (_, game) = app
        .dashboard_call(Method::GET, &format!("/v1/games/{game_id}"), &token)
        .await;
    assert_eq!(
        game["retention_days"],
        Value::Null,
        "kept for good by default"
    );

    let (status, game) = set_retention(&app, &token, &game_id, json!(30)).await;
    assert_eq!(status, 200, "{game}");
    assert_eq!(game["retention_days"], 30);
    let (_, read) = app
        .dashboard_call(Method::GET, &format!("/v1/games/{game_id}"), &token)
        .await;
    assert_eq!(read["retention_days"], 30);

    let (status, game) = set_retention(&app, &token, &game_id, Value::Null).await;
    assert_eq!(status, 200, "{game}");
    assert_eq!(game["retention_days"], Value::Null);
}

#[tokio::test]
async fn retention_outside_one_to_3650_days_is_refused_and_only_the_owner_sets_it() {
    let app = spawn_app().await;
    let (token, game_id, _key) = app.game_with_key().await;

    for (days, what) in [
        (json!(0), "zero"),
        (json!(3651), "over ten years"),
        (json!(-1), "negative"),
        (json!("30"), "a string"),
    ] {
        let (status, body) = set_retention(&app, &token, &game_id, days).await;
        assert_eq!(status, 400, "{what}: {body}");
        assert!(body["error"].is_string(), "{what}: {body}");
    }
    let (_, body) = set_retention(&app, &token, &game_id, json!(0)).await;
    assert_eq!(
        body["error"],
        "retention_days must be 1 to 3650, or null to keep events for good"
    );

    let (editor, _) = app.new_member(&token, &game_id, "editor").await;
    assert_eq!(
        set_retention(&app, &editor, &game_id, json!(30)).await.0,
        403
    );
}

#[tokio::test]
async fn the_worker_deletes_events_older_than_the_window_and_nothing_else() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let (other_token, other_game, other_key) = app.game_with_key().await;
    let (kept_token, kept_game, kept_key) = app.game_with_key().await;
    assert_eq!(
        set_retention(&app, &token, &game_id, json!(30)).await.0,
        200
    );
    assert_eq!(
        set_retention(&app, &other_token, &other_game, json!(100))
            .await
            .0,
        200
    );
    let _ = kept_token;
    track_aged(&app, &key, &[1, 29, 31, 200]).await;
    track_aged(&app, &other_key, &[1, 31, 200]).await;
    track_aged(&app, &kept_key, &[1, 31, 200]).await;

    let deleted = playtrace::events::retention::delete_expired_events(&app.state)
        .await
        .unwrap();

    assert_eq!(deleted, 3);
    assert_eq!(names(&app, &game_id).await, ["age_1", "age_29"]);
    assert_eq!(names(&app, &other_game).await, ["age_1", "age_31"]);
    assert_eq!(
        names(&app, &kept_game).await,
        ["age_1", "age_200", "age_31"],
        "no setting: kept"
    );

    // Two days later the 29-day-old event has aged out too.
    app.clock.advance(Duration::days(2));
    playtrace::events::retention::delete_expired_events(&app.state)
        .await
        .unwrap();
    assert_eq!(names(&app, &game_id).await, ["age_1"]);
}
