//! Results webhooks: when a period or a tournament ends, the worker's pass POSTs the final
//! standings once to the board's `results_webhook` (a real local receiver here), retries with
//! backoff, and keeps a history (`GET .../deliveries`).
use super::{define, score};
use crate::helpers::{spawn_app, spawn_app_with, Fetch, TestApp};
use crate::receiver::Receiver;
use chrono::{DateTime, Duration, SecondsFormat, Utc};
use reqwest::Method;
use serde_json::{json, Value};

/// An app whose webhooks may reach the loopback receiver, and the receiver.
async fn results_app() -> (TestApp, Receiver) {
    let app = spawn_app_with(|s| s.allow_private_webhooks = true).await;
    (app, Receiver::start().await)
}

/// One pass of the worker's job.
async fn pass(app: &TestApp) {
    playtrace::leaderboards::deliver_results(&app.state)
        .await
        .expect("results pass");
}

async fn history(app: &TestApp, token: &str, game_id: &str, board: &str) -> Vec<Value> {
    let body = app
        .dashboard(
            Method::GET,
            &format!("/v1/games/{game_id}/leaderboards/{board}/deliveries"),
            token,
        )
        .expect_status(200)
        .await;
    body["deliveries"].as_array().unwrap().clone()
}

async fn change(app: &TestApp, token: &str, game_id: &str, board: &str, body: Value) -> Value {
    app.dashboard(
        Method::PATCH,
        &format!("/v1/games/{game_id}/leaderboards/{board}"),
        token,
    )
    .json(&body)
    .expect_status(200)
    .await
}

fn at(instant: DateTime<Utc>) -> String {
    instant.to_rfc3339_opts(SecondsFormat::Secs, true)
}

#[tokio::test]
async fn a_daily_board_delivers_its_standings_once_after_midnight() {
    let (app, receiver) = results_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let (status, created) = define(
        &app,
        &token,
        &game_id,
        json!({ "board_name": "daily", "period": "daily", "results_webhook": receiver.hook() }),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(created["results_webhook"], receiver.hook().as_str());
    let today = created["current_period"].as_str().unwrap().to_string();
    let day_start = created["period_start"].as_str().unwrap().to_string();
    let day_end = created["resets_at"].as_str().unwrap().to_string();
    app.game_json(
        Method::POST,
        "/v1/leaderboards",
        &key,
        json!({ "board_name": "daily", "player_id": "ann", "player_name": "Ann", "score": 30 }),
    )
    .await;
    score(&app, &key, "daily", "bob", 42.5).await;
    score(&app, &key, "daily", "cid", 10.0).await;

    pass(&app).await;
    assert!(receiver.received().is_empty(), "the day is not over");

    app.clock.advance(Duration::days(1));
    // Two workers at once: the period is still delivered once.
    tokio::join!(pass(&app), pass(&app));
    let received = receiver.received();
    assert_eq!(received.len(), 1, "{received:?}");
    let (body, idempotency_key) = &received[0];
    assert_eq!(
        body,
        &json!({
            "game_id": game_id,
            "board_name": "daily",
            "period": today,
            "period_start": day_start,
            "period_end": day_end,
            "reason": "period_end",
            "entries": [
                { "rank": 1, "player_id": "bob", "player_name": null, "score": 42.5 },
                { "rank": 2, "player_id": "ann", "player_name": "Ann", "score": 30 },
                { "rank": 3, "player_id": "cid", "player_name": null, "score": 10 },
            ],
        })
    );

    pass(&app).await;
    app.clock.advance(Duration::hours(2));
    pass(&app).await;
    assert_eq!(receiver.received().len(), 1, "nothing more is sent");

    let deliveries = history(&app, &token, &game_id, "daily").await;
    assert_eq!(deliveries.len(), 1, "{deliveries:?}");
    let delivery = &deliveries[0];
    assert_eq!(delivery["id"], idempotency_key.as_str());
    let expected = json!({ "period": today, "reason": "period_end", "status": "delivered",
        "attempts": 1, "last_error": null, "next_attempt_at": null });
    for (field, value) in expected.as_object().unwrap() {
        assert_eq!(&delivery[field], value, "{field}");
    }
    assert!(delivery["delivered_at"].is_string() && delivery["created_at"].is_string());
}

#[tokio::test]
async fn a_failed_delivery_is_retried_with_backoff_under_the_same_key() {
    let (app, receiver) = results_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    define(
        &app,
        &token,
        &game_id,
        json!({ "board_name": "flaky", "period": "daily", "results_webhook": receiver.hook() }),
    )
    .await;
    score(&app, &key, "flaky", "ann", 1.0).await;
    receiver.then_answer(500, "{}");
    app.clock.advance(Duration::days(1));

    pass(&app).await;
    let failed = history(&app, &token, &game_id, "flaky").await;
    assert_eq!(
        (
            failed[0]["status"].clone(),
            failed[0]["attempts"].clone(),
            failed[0]["last_error"].clone()
        ),
        (
            json!("pending"),
            json!(1),
            json!("the webhook receiver answered HTTP 500")
        )
    );
    let retry_at = DateTime::parse_from_rfc3339(failed[0]["next_attempt_at"].as_str().unwrap())
        .unwrap()
        .with_timezone(&Utc);
    let wait = retry_at - app.state.now();
    assert!(
        wait > Duration::seconds(25) && wait <= Duration::seconds(30),
        "first retry in 30 s: {wait}"
    );

    pass(&app).await;
    assert_eq!(receiver.received().len(), 1, "not due yet");

    app.clock.advance(Duration::seconds(31));
    pass(&app).await;
    let received = receiver.received();
    assert_eq!(received.len(), 2);
    assert_eq!(
        received[0], received[1],
        "the same body and Idempotency-Key"
    );
    let deliveries = history(&app, &token, &game_id, "flaky").await;
    assert_eq!(deliveries.len(), 1);
    assert_eq!(
        (
            deliveries[0]["status"].clone(),
            deliveries[0]["attempts"].clone()
        ),
        (json!("delivered"), json!(2))
    );
    assert_eq!(deliveries[0]["id"], received[1].1.as_str());
}

#[tokio::test]
async fn a_manual_reset_and_a_tournament_end_deliver_with_their_reasons() {
    let (app, receiver) = results_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    define(
        &app,
        &token,
        &game_id,
        json!({ "board_name": "season", "results_webhook": receiver.hook() }),
    )
    .await;
    score(&app, &key, "season", "ann", 7.0).await;
    let reset = app
        .dashboard(
            Method::POST,
            &format!("/v1/games/{game_id}/leaderboards/season/reset"),
            &token,
        )
        .expect_status(200)
        .await;
    score(&app, &key, "season", "bob", 9.0).await;
    pass(&app).await;
    let received = receiver.received();
    assert_eq!(received.len(), 1, "{received:?}");
    let body = &received[0].0;
    assert_eq!(
        (
            body["reason"].clone(),
            body["period"].clone(),
            body["period_start"].clone(),
            body["period_end"].clone()
        ),
        (
            json!("manual_reset"),
            json!("all_time"),
            Value::Null,
            reset["period_start"].clone()
        )
    );
    assert_eq!(
        body["entries"],
        json!([{ "rank": 1, "player_id": "ann", "player_name": null, "score": 7 }]),
        "the period that ended, not the new one"
    );

    let ends_at = app.state.now() + Duration::hours(1);
    define(
        &app,
        &token,
        &game_id,
        json!({ "board_name": "cup", "ends_at": at(ends_at), "results_webhook": receiver.hook() }),
    )
    .await;
    score(&app, &key, "cup", "cid", 3.0).await;
    pass(&app).await;
    assert_eq!(receiver.received().len(), 1, "the cup is still live");
    app.clock.advance(Duration::hours(2));
    pass(&app).await;
    let received = receiver.received();
    assert_eq!(received.len(), 2);
    let body = &received[1].0;
    assert_eq!(
        (
            body["board_name"].clone(),
            body["reason"].clone(),
            body["period"].clone(),
            body["period_end"].clone()
        ),
        (
            json!("cup"),
            json!("tournament_end"),
            json!("all_time"),
            json!(at(ends_at))
        )
    );
    assert_eq!(body["entries"][0]["player_id"], "cid");
    let cup = history(&app, &token, &game_id, "cup").await;
    assert_eq!(
        (cup.len(), cup[0]["reason"].clone()),
        (1, json!("tournament_end"))
    );
}

#[tokio::test]
async fn private_urls_are_refused_unless_allowed_and_the_webhook_can_be_cleared() {
    let app = spawn_app().await;
    let (token, game_id, _) = app.game_with_key().await;
    for url in ["http://127.0.0.1:9/results", "http://169.254.169.254/x"] {
        let (status, body) = define(
            &app,
            &token,
            &game_id,
            json!({ "board_name": "b", "results_webhook": url }),
        )
        .await;
        assert_eq!(status, 400, "{body}");
        let error = body["error"].as_str().unwrap();
        assert!(
            error.starts_with("results_webhook must reach a public address")
                && error.contains("--allow-private-webhooks"),
            "{error}"
        );
    }
    let (status, body) = define(
        &app,
        &token,
        &game_id,
        json!({ "board_name": "b", "results_webhook": "ftp://example.com/x" }),
    )
    .await;
    assert_eq!(
        (status, body["error"].clone()),
        (400, json!("results_webhook must be an http or https URL"))
    );
    let (status, created) = define(&app, &token, &game_id, json!({ "board_name": "b" })).await;
    assert_eq!(
        (status, created["results_webhook"].clone()),
        (201, Value::Null)
    );
    let (status, body) = app
        .dashboard_json(
            Method::PATCH,
            &format!("/v1/games/{game_id}/leaderboards/b"),
            &token,
            json!({ "results_webhook": "http://10.0.0.1/hook" }),
        )
        .await;
    assert_eq!(status, 400, "{body}");

    let (allowed, receiver) = results_app().await;
    let (token, game_id, _) = allowed.game_with_key().await;
    define(&allowed, &token, &game_id, json!({ "board_name": "b" })).await;
    let set = change(
        &allowed,
        &token,
        &game_id,
        "b",
        json!({ "results_webhook": receiver.hook() }),
    )
    .await;
    assert_eq!(set["results_webhook"], receiver.hook().as_str());
    let cleared = change(
        &allowed,
        &token,
        &game_id,
        "b",
        json!({ "results_webhook": null }),
    )
    .await;
    assert_eq!(cleared["results_webhook"], Value::Null);
}

#[tokio::test]
async fn only_periods_ending_after_the_webhook_was_set_are_delivered_and_only_to_members() {
    let (app, receiver) = results_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    define(
        &app,
        &token,
        &game_id,
        json!({ "board_name": "late", "period": "daily" }),
    )
    .await;
    score(&app, &key, "late", "ann", 1.0).await;
    app.clock.advance(Duration::days(1));
    playtrace::leaderboards::archive_finished_periods(&app.state)
        .await
        .unwrap();
    score(&app, &key, "late", "bob", 2.0).await;
    change(
        &app,
        &token,
        &game_id,
        "late",
        json!({ "results_webhook": receiver.hook() }),
    )
    .await;
    pass(&app).await;
    assert!(
        receiver.received().is_empty(),
        "yesterday ended before the webhook"
    );
    assert!(history(&app, &token, &game_id, "late").await.is_empty());

    app.clock.advance(Duration::days(1));
    pass(&app).await;
    let received = receiver.received();
    assert_eq!(received.len(), 1);
    assert_eq!(received[0].0["entries"][0]["player_id"], "bob");

    // A viewer reads the history; a stranger cannot; another game has no such board.
    let (viewer, _) = app.new_member(&token, &game_id, "viewer").await;
    assert_eq!(history(&app, &viewer, &game_id, "late").await.len(), 1);
    let path = format!("/v1/games/{game_id}/leaderboards/late/deliveries");
    let stranger = app.new_user().await;
    app.dashboard(Method::GET, &path, &stranger)
        .expect_status(403)
        .await;
    let (other_token, other_game, _) = app.game_with_key().await;
    app.dashboard(
        Method::GET,
        &format!("/v1/games/{other_game}/leaderboards/late/deliveries"),
        &other_token,
    )
    .expect_status(404)
    .await;
    app.request(Method::GET, &path).expect_status(401).await;
}

#[tokio::test]
async fn workers_on_two_nodes_deliver_each_period_once() {
    if !crate::helpers::services_backend() {
        return;
    }
    let (first, receiver) = results_app().await;
    let second =
        crate::helpers::spawn_on(first.backend.clone(), |s| s.allow_private_webhooks = true).await;
    let (token, game_id, key) = first.game_with_key().await;
    for board in ["b0", "b1", "b2", "b3", "b4"] {
        define(
            &first,
            &token,
            &game_id,
            json!({ "board_name": board, "period": "daily", "results_webhook": receiver.hook() }),
        )
        .await;
        score(&first, &key, board, "ann", 1.0).await;
    }
    receiver.then_answer(500, "{}");
    for node in [&first, &second] {
        node.clock.advance(Duration::days(1));
    }
    for _ in 0..3 {
        tokio::join!(pass(&first), pass(&second));
    }
    assert_eq!(receiver.received().len(), 5, "four sent, one failed");
    for node in [&first, &second] {
        node.clock.advance(Duration::seconds(31));
    }
    tokio::join!(pass(&first), pass(&second));
    let received = receiver.received();
    assert_eq!(received.len(), 6, "the failed one once more: {received:?}");
    let keys: std::collections::HashSet<&str> = received.iter().map(|r| r.1.as_str()).collect();
    assert_eq!(keys.len(), 5, "one Idempotency-Key per period");
    for board in ["b0", "b1", "b2", "b3", "b4"] {
        let deliveries = history(&first, &token, &game_id, board).await;
        assert_eq!(
            (deliveries.len(), &deliveries[0]["status"]),
            (1, &json!("delivered"))
        );
    }
}

#[tokio::test]
async fn a_restarted_worker_sends_nothing_twice_and_catches_up_on_what_ended_meanwhile() {
    let (app, receiver) = results_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    define(
        &app,
        &token,
        &game_id,
        json!({ "board_name": "daily", "period": "daily", "results_webhook": receiver.hook() }),
    )
    .await;
    score(&app, &key, "daily", "ann", 10.0).await;
    app.clock.advance(Duration::days(1));
    pass(&app).await;
    assert_eq!(receiver.received().len(), 1, "the first day delivered");
    score(&app, &key, "daily", "bob", 20.0).await;
    let offset = playtrace::clock::Clock::now(app.clock.as_ref()) - Utc::now();
    let backend = app.backend.clone();
    app.stop().await;

    // Act: the node comes back after the second day ended, on the same stores.
    let restarted = crate::helpers::spawn_on(backend, |s| s.allow_private_webhooks = true).await;
    restarted.clock.advance(offset + Duration::days(1));
    for _ in 0..2 {
        pass(&restarted).await;
    }

    // Assert: the first day was not sent again, the second was sent once, with its standings.
    let received = receiver.received();
    assert_eq!(received.len(), 2, "{received:?}");
    let keys: std::collections::HashSet<&str> = received.iter().map(|r| r.1.as_str()).collect();
    assert_eq!(keys.len(), 2, "one Idempotency-Key per period");
    assert_eq!(
        received[1].0["entries"][0]["player_id"], "bob",
        "{:?}",
        received[1].0
    );
    let deliveries = history(&restarted, &token, &game_id, "daily").await;
    assert_eq!(deliveries.len(), 2, "{deliveries:?}");
    assert!(
        deliveries.iter().all(|d| d["status"] == "delivered"),
        "{deliveries:?}"
    );
}
