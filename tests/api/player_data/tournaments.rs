//! A player's tournaments and leaderboard results in their data: the export lists the
//! tournaments they joined and their place in each stored results delivery; an erase removes
//! the places and takes the player out of every stored payload, so a delivery still pending
//! sends the standings without them (the others ranked again).
use super::{erase, export};
use crate::helpers::{spawn_app_with, Fetch, TestApp};
use crate::receiver::Receiver;
use chrono::{Duration, SecondsFormat};
use reqwest::Method;
use serde_json::{json, Value};

/// An app whose results webhooks may reach the loopback receiver, the receiver, and a game.
async fn app_with_receiver() -> (TestApp, Receiver, String, String, String) {
    let app = spawn_app_with(|s| s.allow_private_webhooks = true).await;
    let (token, game_id, key) = app.game_with_key().await;
    (app, Receiver::start().await, token, game_id, key)
}

async fn define(app: &TestApp, token: &str, game_id: &str, board: Value) -> Value {
    app.dashboard(
        Method::POST,
        &format!("/v1/games/{game_id}/leaderboards"),
        token,
    )
    .json(&board)
    .expect_status(201)
    .await
}

async fn join(app: &TestApp, key: &str, board: &str, player: &str) {
    app.game(Method::POST, &format!("/v1/leaderboards/{board}/join"), key)
        .json(&json!({ "player_id": player }))
        .expect_status(200)
        .await;
}

async fn score(app: &TestApp, key: &str, board: &str, player: &str, score: u32, name: Value) {
    app.game(Method::POST, "/v1/leaderboards", key)
        .json(&json!({ "board_name": board, "player_id": player, "score": score, "player_name": name }))
        .expect_status(200)
        .await;
}

/// One pass of the worker's results job.
async fn pass(app: &TestApp) {
    playtrace::leaderboards::deliver_results(&app.state)
        .await
        .expect("results pass");
}

/// (player_id, rank) of each entry of a results payload.
fn standings(payload: &Value) -> Vec<(String, u64)> {
    payload["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["player_id"].as_str().unwrap().to_string(),
                e["rank"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[tokio::test]
async fn tournaments_and_results_are_exported_and_erased_and_a_pending_delivery_drops_the_player() {
    let (app, receiver, token, game_id, key) = app_with_receiver().await;
    let created = define(
        &app,
        &token,
        &game_id,
        json!({ "board_name": "daily", "period": "daily", "results_webhook": receiver.hook() }),
    )
    .await;
    let today = created["current_period"].as_str().unwrap().to_string();
    let ends_at = app.state.now() + Duration::days(3);
    define(
        &app,
        &token,
        &game_id,
        json!({ "board_name": "cup", "join_required": true, "results_webhook": receiver.hook(),
                "ends_at": ends_at.to_rfc3339_opts(SecondsFormat::Secs, true) }),
    )
    .await;
    for (player, cup, daily) in [
        ("ana", 30, Some(5)),
        ("bob", 50, Some(7)),
        ("cid", 10, None),
    ] {
        join(&app, &key, "cup", player).await;
        let name = if player == "ana" {
            json!("Ana")
        } else {
            Value::Null
        };
        score(&app, &key, "cup", player, cup, name.clone()).await;
        if let Some(daily) = daily {
            score(&app, &key, "daily", player, daily, name).await;
        }
    }
    // The day ends and its results are delivered; then the cup ends and its first send fails.
    app.clock.advance(Duration::days(1));
    pass(&app).await;
    app.clock.advance(Duration::days(3));
    receiver.then_answer(500, "{}");
    pass(&app).await;
    assert_eq!(receiver.received().len(), 2, "{:?}", receiver.bodies());

    let (status, document) = export(&app, &token, &game_id, "ana").await;
    assert_eq!(status, 200, "{document}");
    let tournaments = document["tournaments"].as_array().unwrap();
    assert_eq!(tournaments.len(), 1, "{document}");
    assert_eq!(tournaments[0]["board_name"], "cup");
    assert!(tournaments[0]["joined_at"].is_string(), "{document}");
    let results = document["leaderboard_results"].as_array().unwrap();
    assert_eq!(results.len(), 2, "{document}");
    let expected = [
        json!({ "board_name": "daily", "period": today, "reason": "period_end", "rank": 2,
                "score": 5, "player_name": "Ana", "status": "delivered" }),
        json!({ "board_name": "cup", "period": "all_time", "reason": "tournament_end", "rank": 2,
                "score": 30, "player_name": "Ana", "status": "pending", "delivered_at": null }),
    ];
    for (result, expected) in results.iter().zip(expected) {
        for (field, value) in expected.as_object().unwrap() {
            assert_eq!(&result[field], value, "{field} of {result}");
        }
        assert!(result["created_at"].is_string(), "{result}");
    }
    assert!(results[0]["delivered_at"].is_string(), "{document}");
    assert_eq!(
        (
            document["counts"]["tournaments"].clone(),
            document["counts"]["leaderboard_results"].clone()
        ),
        (json!(1), json!(2))
    );

    let (status, erased) = erase(&app, &token, &game_id, "ana").await;
    assert_eq!(status, 200, "{erased}");
    let deleted = &erased["deleted"];
    assert_eq!(
        (
            deleted["tournaments"].clone(),
            deleted["leaderboard_results"].clone(),
            deleted["leaderboard_entries"].clone()
        ),
        (json!(1), json!(2), json!(2)),
        "{erased}"
    );
    let (_, after) = export(&app, &token, &game_id, "ana").await;
    assert_eq!(
        (
            after["tournaments"].clone(),
            after["leaderboard_results"].clone()
        ),
        (json!([]), json!([])),
        "{after}"
    );

    // The cup's retry carries the standings without ana, the others ranked again.
    app.clock.advance(Duration::seconds(31));
    pass(&app).await;
    let bodies = receiver.bodies();
    assert_eq!(bodies.len(), 3, "{bodies:?}");
    assert_eq!(bodies[2]["board_name"], "cup");
    assert_eq!(
        standings(&bodies[2]),
        [("bob".to_string(), 1), ("cid".to_string(), 2)]
    );
    // The tournament now counts two players; bob's data still shows his place and results.
    let page = app
        .game(Method::GET, "/v1/leaderboards/cup", &key)
        .expect_status(200)
        .await;
    assert_eq!(page["tournament"]["players"], 2, "{page}");
    let (_, bob) = export(&app, &token, &game_id, "bob").await;
    let places: Vec<(&str, u64, &str)> = bob["leaderboard_results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["board_name"].as_str().unwrap(),
                r["rank"].as_u64().unwrap(),
                r["status"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(places, [("daily", 1, "delivered"), ("cup", 1, "delivered")]);
    assert_eq!(bob["counts"]["tournaments"], 1, "{bob}");
}

#[tokio::test]
async fn players_erased_at_once_both_leave_a_pending_delivery() {
    let (app, receiver, token, game_id, key) = app_with_receiver().await;
    define(
        &app,
        &token,
        &game_id,
        json!({ "board_name": "daily", "period": "daily", "results_webhook": receiver.hook() }),
    )
    .await;
    // An id with what JSON escapes and LIKE treats as wildcards.
    let odd = "Zoë \"5%_off\" \\";
    let odd_path = "Zo%C3%AB%20%225%25_off%22%20%5C";
    for (player, points) in [("ana", 9), (odd, 8), ("bob", 7), ("a_a", 6)] {
        score(&app, &key, "daily", player, points, Value::Null).await;
    }
    app.clock.advance(Duration::days(1));
    receiver.then_answer(500, "{}");
    pass(&app).await;

    let (status, document) = export(&app, &token, &game_id, odd_path).await;
    assert_eq!(status, 200, "{document}");
    assert_eq!(document["player_id"], odd);
    assert_eq!(document["leaderboard_results"][0]["rank"], 2, "{document}");
    assert_eq!(document["leaderboard_results"][0]["status"], "pending");

    let (first, second) = tokio::join!(
        erase(&app, &token, &game_id, "ana"),
        erase(&app, &token, &game_id, odd_path)
    );
    for (status, erased) in [first, second] {
        assert_eq!(status, 200, "{erased}");
        assert_eq!(erased["deleted"]["leaderboard_results"], 1, "{erased}");
    }
    app.clock.advance(Duration::seconds(31));
    pass(&app).await;
    let bodies = receiver.bodies();
    assert_eq!(bodies.len(), 2, "{bodies:?}");
    assert_eq!(
        standings(&bodies[1]),
        [("bob".to_string(), 1), ("a_a".to_string(), 2)]
    );
}
