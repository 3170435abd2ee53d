//! Black-box tests of leaderboards: submissions and reads here; definitions, moderation,
//! periods, durability and two-node tests in `leaderboards/`. The `Leaderboards` hot-store
//! conformance suite is in `conformance/leaderboards.rs`.
mod creation;
mod definitions;
mod durability;
mod moderation;
mod nodes;
mod operators;
mod periods;
mod results;
mod schedules;
mod tournaments;

use crate::helpers::{spawn_app, Fetch, TestApp};
use chrono::Duration;
use reqwest::Method;
use serde_json::{json, Value};

async fn submit(app: &TestApp, key: &str, body: Value) -> (u16, Value) {
    app.game_json(Method::POST, "/v1/leaderboards", key, body)
        .await
}

async fn score(app: &TestApp, key: &str, board: &str, player: &str, score: f64) -> Value {
    let (status, body) = submit(
        app,
        key,
        json!({ "board_name": board, "player_id": player, "score": score }),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    body
}

async fn board_page(app: &TestApp, key: &str, path_and_query: &str) -> (u16, Value) {
    app.game_call(
        Method::GET,
        &format!("/v1/leaderboards/{path_and_query}"),
        key,
    )
    .await
}

/// (player_id, score, rank) of every entry on the first page of a board.
async fn ranking(app: &TestApp, key: &str, path_and_query: &str) -> Vec<(String, f64, u64)> {
    let (status, body) = board_page(app, key, path_and_query).await;
    assert_eq!(status, 200, "{body}");
    body["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["player_id"].as_str().unwrap().to_string(),
                e["score"].as_f64().unwrap(),
                e["rank"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn ranked(rows: &[(&str, f64)]) -> Vec<(String, f64, u64)> {
    rows.iter()
        .enumerate()
        .map(|(i, (p, s))| (p.to_string(), *s, i as u64 + 1))
        .collect()
}

/// PATCH of a board's definition (dashboard).
async fn change(
    app: &TestApp,
    token: &str,
    game_id: &str,
    board: &str,
    body: Value,
) -> (u16, Value) {
    app.dashboard_json(
        Method::PATCH,
        &format!("/v1/games/{game_id}/leaderboards/{board}"),
        token,
        body,
    )
    .await
}

async fn define(app: &TestApp, token: &str, game_id: &str, body: Value) -> (u16, Value) {
    app.dashboard_json(
        Method::POST,
        &format!("/v1/games/{game_id}/leaderboards"),
        token,
        body,
    )
    .await
}

#[tokio::test]
async fn a_score_is_ranked_at_once_and_only_a_better_one_replaces_it() {
    let app = spawn_app().await;
    let (_, _, key) = app.game_with_key().await;

    let (status, first) = submit(
        &app,
        &key,
        json!({ "board_name": "arena", "player_id": "ann", "score": 1500, "player_name": "Ann", "metadata": { "level": 3 } }),
    )
    .await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(first["board_name"], "arena");
    assert_eq!(first["player_id"], "ann");
    assert_eq!(first["player_name"], "Ann");
    assert_eq!(
        first["score"],
        json!(1500),
        "whole scores read back as integers"
    );
    assert_eq!(first["metadata"], json!({ "level": 3 }));
    assert_eq!(first["rank"], 1);
    assert_eq!(first["updated"], true);
    assert!(first["updated_at"].as_str().unwrap().ends_with('Z'));

    let (status, worse) = app.game_json(Method::POST, "/v1/leaderboards/arena/entries", &key, json!({ "player_id": "ann", "score": 900, "player_name": "Someone else", "metadata": { "level": 9 } })).await;
    assert_eq!(status, 200, "{worse}");
    assert_eq!(worse["updated"], false, "a lower score leaves the entry");
    assert_eq!(worse["score"], 1500);
    assert_eq!(worse["player_name"], "Ann", "nothing of the entry changed");
    assert_eq!(worse["metadata"], json!({ "level": 3 }));

    let (_, equal) = submit(
        &app,
        &key,
        json!({ "board_name": "arena", "player_id": "ann", "score": 1500 }),
    )
    .await;
    assert_eq!(equal["updated"], false, "an equal score leaves the entry");

    score(&app, &key, "arena", "bob", 1700.5).await;
    let better = score(&app, &key, "arena", "ann", 2000.0).await;
    assert_eq!(
        (better["updated"].clone(), better["rank"].clone()),
        (json!(true), json!(1))
    );
    assert_eq!(
        better["player_name"],
        Value::Null,
        "a replacing submission brings its own name"
    );

    let (status, page) = board_page(&app, &key, "arena").await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(page["board_name"], "arena");
    assert_eq!(page["leaderboard"], "arena");
    assert_eq!(page["total"], 2);
    assert_eq!(page["period"], "all_time");
    assert_eq!(
        ranking(&app, &key, "arena").await,
        ranked(&[("ann", 2000.0), ("bob", 1700.5)])
    );
    assert_eq!(page["entries"][1]["score"], json!(1700.5));
}

#[tokio::test]
async fn equal_scores_rank_by_who_reached_them_first() {
    let app = spawn_app().await;
    let (_, _, key) = app.game_with_key().await;
    for player in ["late", "early"] {
        score(&app, &key, "ties", player, 10.0).await;
    }
    app.clock.advance(Duration::seconds(1));
    score(&app, &key, "ties", "early", 50.0).await;
    app.clock.advance(Duration::seconds(1));
    score(&app, &key, "ties", "late", 50.0).await;
    score(&app, &key, "ties", "third", 50.0).await;
    assert_eq!(
        ranking(&app, &key, "ties").await,
        ranked(&[("early", 50.0), ("late", 50.0), ("third", 50.0)])
    );
}

#[tokio::test]
async fn bad_submissions_are_refused_with_400() {
    let app = spawn_app().await;
    let (_, _, key) = app.game_with_key().await;
    let long_name = "b".repeat(256);
    let cases = [
        (
            json!({ "player_id": "p", "score": 1 }),
            "board_name missing",
        ),
        (
            json!({ "board_name": "b", "score": 1 }),
            "player_id missing",
        ),
        (
            json!({ "board_name": "b", "player_id": "p" }),
            "score missing",
        ),
        (
            json!({ "board_name": "b", "player_id": "p", "score": "100" }),
            "score as a string",
        ),
        (
            json!({ "board_name": "b", "player_id": "p", "score": null }),
            "score null",
        ),
        (
            json!({ "board_name": long_name, "player_id": "p", "score": 1 }),
            "board_name over 255 characters",
        ),
        (
            json!({ "board_name": "", "player_id": "p", "score": 1 }),
            "empty board_name",
        ),
        (
            json!({ "board_name": "b", "player_id": "", "score": 1 }),
            "empty player_id",
        ),
        (
            json!({ "board_name": "b", "player_id": "p".repeat(129), "score": 1 }),
            "player_id too long",
        ),
        (
            json!({ "board_name": "b", "player_id": ["p"], "score": 1 }),
            "player_id an array",
        ),
        (
            json!({ "board_name": "b", "player_id": "p", "score": 1, "metadata": [1] }),
            "metadata an array",
        ),
        (
            json!({ "board_name": "b", "player_id": "p", "score": 1, "metadata": "x" }),
            "metadata a string",
        ),
        (
            json!({ "board_name": "b", "player_id": "p", "score": 1, "metadata": { "x": "y".repeat(5000) } }),
            "metadata too big",
        ),
        (
            json!({ "board_name": "b", "player_id": "p", "score": 1, "player_name": "n".repeat(129) }),
            "player_name too long",
        ),
        (
            json!({ "board_name": "b", "player_id": "p", "score": 1, "cheat": true }),
            "unknown field",
        ),
        (
            json!([{ "board_name": "b", "player_id": "p", "score": 1 }]),
            "an array",
        ),
    ];
    for (body, case) in cases {
        let (status, answer) = submit(&app, &key, body).await;
        assert_eq!(status, 400, "{case}: {answer}");
        assert!(answer["error"].is_string(), "{case}: {answer}");
    }
    let ok_name = "b".repeat(255);
    let (status, body) = submit(
        &app,
        &key,
        json!({ "board_name": ok_name, "player_id": "p", "score": 1 }),
    )
    .await;
    assert_eq!(status, 200, "255 characters are fine: {body}");

    let (status, body) = app
        .game_json(
            Method::POST,
            "/v1/leaderboards/one/entries",
            &key,
            json!({ "board_name": "two", "player_id": "p", "score": 1 }),
        )
        .await;
    assert_eq!(status, 400, "a body naming another board: {body}");
    let (status, body) = board_page(&app, &key, "b").await;
    assert_eq!(
        (status, body["total"].clone()),
        (200, json!(0)),
        "nothing was stored by refused submissions"
    );
}

#[tokio::test]
async fn board_reads_page_with_limit_and_offset_and_refuse_bad_values() {
    let app = spawn_app().await;
    let (_, _, key) = app.game_with_key().await;
    for i in 0..120 {
        score(&app, &key, "big", &format!("p{i:03}"), i as f64).await;
    }
    let (_, page) = board_page(&app, &key, "big").await;
    assert_eq!(
        page["entries"].as_array().unwrap().len(),
        50,
        "default limit 50"
    );
    assert_eq!(
        (
            page["total"].clone(),
            page["limit"].clone(),
            page["offset"].clone()
        ),
        (json!(120), json!(50), json!(0))
    );
    let (_, page) = board_page(&app, &key, "big?limit=100&offset=100").await;
    let entries = page["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 20);
    assert_eq!(
        (entries[0]["rank"].clone(), entries[0]["player_id"].clone()),
        (json!(101), json!("p019"))
    );
    assert_eq!(
        (entries[19]["rank"].clone(), entries[19]["score"].clone()),
        (json!(120), json!(0))
    );
    let (_, page) = board_page(&app, &key, "big?offset=500").await;
    assert!(page["entries"].as_array().unwrap().is_empty());

    for query in [
        "limit=0",
        "limit=101",
        "limit=-1",
        "limit=abc",
        "limit=1.5",
        "offset=-1",
        "offset=x",
        "period=yesterday",
        "period=2026-13",
    ] {
        let (status, body) = board_page(&app, &key, &format!("big?{query}")).await;
        assert_eq!(status, 400, "{query}: {body}");
        assert!(body["error"].is_string(), "{query}");
    }
    let (status, body) = board_page(&app, &key, &"x".repeat(256)).await;
    assert_eq!(status, 400, "{body}");

    let (status, body) = board_page(&app, &key, "never-used").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        (body["total"].clone(), body["entries"].clone()),
        (json!(0), json!([]))
    );
}

#[tokio::test]
async fn boards_need_a_valid_key_and_belong_to_one_game() {
    let app = spawn_app().await;
    let (_, _, key) = app.game_with_key().await;
    let (_, _, other_key) = app.game_with_key().await;
    score(&app, &key, "shared-name", "ann", 10.0).await;
    score(&app, &other_key, "shared-name", "zed", 99.0).await;
    assert_eq!(
        ranking(&app, &key, "shared-name").await,
        ranked(&[("ann", 10.0)])
    );
    assert_eq!(
        ranking(&app, &other_key, "shared-name").await,
        ranked(&[("zed", 99.0)])
    );

    let (status, body) = app.call(Method::GET, "/v1/leaderboards/shared-name").await;
    assert_eq!(status, 401);
    assert!(body["error"].as_str().unwrap().contains("x-game-api-key"));
    let (status, body) = board_page(&app, "pt_wrong", "shared-name").await;
    assert_eq!(
        (status, body["error"].clone()),
        (401, json!("Invalid API key"))
    );
    app.request(Method::POST, "/v1/leaderboards")
        .json(&json!({ "board_name": "b", "player_id": "p", "score": 1 }))
        .expect_status(401)
        .await;
}

#[tokio::test]
async fn a_player_sees_their_rank_and_neighbours() {
    let app = spawn_app().await;
    let (_, _, key) = app.game_with_key().await;
    for i in 1..=12 {
        score(&app, &key, "climb", &format!("p{i:02}"), (i * 10) as f64).await;
    }
    let (status, body) = board_page(&app, &key, "climb/players/p06?around=2").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        (body["rank"].clone(), body["total"].clone()),
        (json!(7), json!(12))
    );
    assert_eq!(body["entry"]["player_id"], "p06");
    let neighbours: Vec<&str> = body["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["player_id"].as_str().unwrap())
        .collect();
    assert_eq!(neighbours, vec!["p08", "p07", "p06", "p05", "p04"]);

    let (_, top) = board_page(&app, &key, "climb/players/p12").await;
    assert_eq!(top["rank"], 1);
    assert_eq!(
        top["entries"].as_array().unwrap().len(),
        6,
        "default 5 either side, clipped at the top"
    );

    let (status, body) = board_page(&app, &key, "climb/players/nobody").await;
    assert_eq!(status, 404, "{body}");
    for query in ["around=-1", "around=51", "around=x"] {
        let (status, _) = board_page(&app, &key, &format!("climb/players/p01?{query}")).await;
        assert_eq!(status, 400, "{query}");
    }
}
