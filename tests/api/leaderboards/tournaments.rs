//! Tournaments: boards with a time window (`starts_at`, `ends_at`), a player limit
//! (`max_players`) and joining (`join_required`, `POST /v1/leaderboards/{board}/join`), the
//! `tournament` object every read carries, and the limit under concurrent newcomers.
use super::{board_page, change, define, ranking, score, submit};
use crate::helpers::{retried, spawn_app, TestApp};
use chrono::{DateTime, Duration, SecondsFormat, Utc};
use futures_util::future::join_all;
use reqwest::Method;
use serde_json::{json, Value};

fn at(instant: DateTime<Utc>) -> String {
    instant.to_rfc3339_opts(SecondsFormat::Secs, true)
}

async fn join(app: &TestApp, key: &str, board: &str, player: &str) -> (u16, Value) {
    app.game_json(
        Method::POST,
        &format!("/v1/leaderboards/{board}/join"),
        key,
        json!({ "player_id": player }),
    )
    .await
}

async fn try_score(app: &TestApp, key: &str, board: &str, player: &str) -> (u16, Value) {
    submit(
        app,
        key,
        json!({ "board_name": board, "player_id": player, "score": 10 }),
    )
    .await
}

/// The machine-readable reason of a refusal (`code`), beside its text.
fn code(body: &Value) -> &str {
    body["code"].as_str().unwrap_or("(no code)")
}

#[tokio::test]
async fn a_tournament_is_upcoming_then_live_then_ended_as_the_clock_moves() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let now = app.state.now();
    let (starts_at, ends_at) = (now + Duration::hours(1), now + Duration::hours(2));
    let (status, created) = define(
        &app,
        &token,
        &game_id,
        json!({ "board_name": "cup", "starts_at": at(starts_at), "ends_at": at(ends_at) }),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(
        created["tournament"],
        json!({ "state": "upcoming", "starts_at": at(starts_at), "ends_at": at(ends_at),
                "seconds_left": null, "max_players": null, "players": 0,
                "join_required": false })
    );

    // Upcoming: scores are refused, reads answer the state.
    let (status, refused) = try_score(&app, &key, "cup", "ann").await;
    assert_eq!(status, 409, "{refused}");
    let message = refused["error"].as_str().unwrap();
    assert!(
        message.starts_with("the tournament has not started") && message.contains(&at(starts_at)),
        "{message}"
    );
    assert_eq!(code(&refused), "TOURNAMENT_NOT_STARTED");
    let (_, page) = board_page(&app, &key, "cup").await;
    assert_eq!(page["tournament"]["state"], "upcoming", "{page}");
    assert_eq!(page["total"], 0);

    // Live: scores count, and every read says how long is left.
    app.clock.advance(Duration::minutes(90));
    let answer = score(&app, &key, "cup", "ann", 50.0).await;
    assert_eq!(answer["tournament"]["state"], "live", "{answer}");
    assert_eq!(answer["tournament"]["players"], 1);
    let (_, page) = board_page(&app, &key, "cup").await;
    let left = page["tournament"]["seconds_left"].as_i64().unwrap();
    assert!(
        (1790..=1800).contains(&left),
        "about 30 minutes left: {page}"
    );
    let (_, standing) = board_page(&app, &key, "cup/players/ann").await;
    assert_eq!(standing["tournament"]["state"], "live", "{standing}");

    // Ended: scores are refused, the final board stays readable.
    app.clock.advance(Duration::hours(1));
    let (status, refused) = try_score(&app, &key, "cup", "bob").await;
    assert_eq!(status, 409, "{refused}");
    let message = refused["error"].as_str().unwrap();
    assert!(
        message.starts_with("the tournament has ended") && message.contains(&at(ends_at)),
        "{message}"
    );
    assert_eq!(code(&refused), "TOURNAMENT_ENDED");
    let (status, _) = try_score(&app, &key, "cup", "ann").await;
    assert_eq!(
        status, 409,
        "a player already in is refused after the end too"
    );
    let (_, page) = board_page(&app, &key, "cup").await;
    assert_eq!(
        (
            page["tournament"]["state"].clone(),
            page["tournament"]["seconds_left"].clone()
        ),
        (json!("ended"), Value::Null),
        "{page}"
    );
    assert_eq!(
        ranking(&app, &key, "cup").await,
        vec![("ann".into(), 50.0, 1)]
    );
    let (status, late) = join(&app, &key, "cup", "cat").await;
    assert_eq!(status, 409, "no joining after the end: {late}");
    assert_eq!(code(&late), "TOURNAMENT_ENDED");
    let (_, definition) = app
        .dashboard_call(
            Method::GET,
            &format!("/v1/games/{game_id}/leaderboards/cup"),
            &token,
        )
        .await;
    assert_eq!(definition["tournament"]["state"], "ended", "{definition}");
}

#[tokio::test]
async fn ordinary_boards_read_with_a_null_tournament() {
    let app = spawn_app().await;
    let (_, _, key) = app.game_with_key().await;
    let answer = score(&app, &key, "plain", "ann", 1.0).await;
    assert_eq!(answer["tournament"], Value::Null, "{answer}");
    assert!(answer.as_object().unwrap().contains_key("tournament"));
    let (_, page) = board_page(&app, &key, "plain").await;
    assert!(page["tournament"].is_null() && page.as_object().unwrap().contains_key("tournament"));
    let (_, standing) = board_page(&app, &key, "plain/players/ann").await;
    assert!(standing["tournament"].is_null(), "{standing}");
    let (status, body) = join(&app, &key, "plain", "ann").await;
    assert_eq!(status, 409, "nothing to join on an ordinary board: {body}");
    assert_eq!(code(&body), "NOT_A_TOURNAMENT");
    let (status, body) = join(&app, &key, "nowhere", "ann").await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(
        body.get("code"),
        None,
        "an unknown board is no tournament refusal"
    );
}

#[tokio::test]
async fn a_board_that_requires_joining_refuses_scores_until_the_player_joins() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let (status, created) = define(
        &app,
        &token,
        &game_id,
        json!({ "board_name": "league", "join_required": true }),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(created["tournament"]["state"], "live");

    let (status, refused) = try_score(&app, &key, "league", "ann").await;
    assert_eq!(status, 403, "{refused}");
    assert!(
        refused["error"]
            .as_str()
            .unwrap()
            .starts_with("join the tournament first"),
        "{refused}"
    );
    assert_eq!(code(&refused), "TOURNAMENT_JOIN_REQUIRED");
    let (status, joined) = join(&app, &key, "league", "ann").await;
    assert_eq!(status, 200, "{joined}");
    assert_eq!(
        (joined["joined"].clone(), joined["players"].clone()),
        (json!(true), json!(1))
    );
    let (status, again) = join(&app, &key, "league", "ann").await;
    assert_eq!(
        (status, again["players"].clone()),
        (200, json!(1)),
        "joining twice counts once"
    );
    let answer = score(&app, &key, "league", "ann", 7.0).await;
    assert_eq!(answer["rank"], 1);
    let (status, refused) = try_score(&app, &key, "league", "bob").await;
    assert_eq!(status, 403, "bob has not joined");
    assert_eq!(code(&refused), "TOURNAMENT_JOIN_REQUIRED");

    // Joining opens before the start: sign-up ahead of the tournament.
    let starts_at = app.state.now() + Duration::days(1);
    define(
        &app,
        &token,
        &game_id,
        json!({ "board_name": "later", "join_required": true, "starts_at": at(starts_at) }),
    )
    .await;
    let (status, early) = join(&app, &key, "later", "ann").await;
    assert_eq!(status, 200, "{early}");
    assert_eq!(early["tournament"]["state"], "upcoming");
    let (status, refused) = try_score(&app, &key, "later", "ann").await;
    assert_eq!(status, 409, "joined, but not started");
    assert_eq!(code(&refused), "TOURNAMENT_NOT_STARTED");
}

#[tokio::test]
async fn a_full_tournament_refuses_new_players_and_keeps_taking_scores_from_its_own() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    define(
        &app,
        &token,
        &game_id,
        json!({ "board_name": "duel", "max_players": 2 }),
    )
    .await;
    score(&app, &key, "duel", "ann", 1.0).await;
    score(&app, &key, "duel", "bob", 2.0).await;
    let (status, refused) = try_score(&app, &key, "duel", "cat").await;
    assert_eq!(status, 409, "{refused}");
    assert!(
        refused["error"]
            .as_str()
            .unwrap()
            .starts_with("the tournament is full"),
        "{refused}"
    );
    assert_eq!(code(&refused), "TOURNAMENT_FULL");
    let kept = score(&app, &key, "duel", "ann", 3.0).await;
    assert_eq!(
        (kept["rank"].clone(), kept["tournament"]["players"].clone()),
        (json!(1), json!(2))
    );
    let (status, refused) = join(&app, &key, "duel", "cat").await;
    assert_eq!(status, 409, "joining a full tournament");
    assert_eq!(code(&refused), "TOURNAMENT_FULL");
    let (status, _) = join(&app, &key, "duel", "bob").await;
    assert_eq!(status, 200, "a player already in may join");

    // Joined players fill a board that requires joining.
    define(
        &app,
        &token,
        &game_id,
        json!({ "board_name": "solo", "max_players": 1, "join_required": true }),
    )
    .await;
    assert_eq!(join(&app, &key, "solo", "ann").await.0, 200);
    let (status, full) = join(&app, &key, "solo", "bob").await;
    assert_eq!(status, 409, "{full}");
    assert!(full["error"].as_str().unwrap().contains("full"), "{full}");
    assert_eq!(code(&full), "TOURNAMENT_FULL");
}

#[tokio::test]
async fn exactly_max_players_get_in_when_newcomers_arrive_at_once() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    for board in ["rush", "gate"] {
        let (status, body) = define(
            &app,
            &token,
            &game_id,
            json!({ "board_name": board, "max_players": 5, "join_required": board == "gate" }),
        )
        .await;
        assert_eq!(status, 201, "{body}");
    }
    let players: Vec<String> = (0..20).map(|i| format!("p{i}")).collect();
    let scores = players
        .iter()
        .map(|p| retried(|| try_score(&app, &key, "rush", p)));
    let answers: Vec<u16> = join_all(scores).await.into_iter().map(|(s, _)| s).collect();
    assert_eq!(
        answers.iter().filter(|s| **s == 200).count(),
        5,
        "{answers:?}"
    );
    assert_eq!(
        answers.iter().filter(|s| **s == 409).count(),
        15,
        "{answers:?}"
    );
    let (_, page) = board_page(&app, &key, "rush").await;
    assert_eq!(
        (page["total"].clone(), page["tournament"]["players"].clone()),
        (json!(5), json!(5))
    );

    let joins = players
        .iter()
        .map(|p| retried(|| join(&app, &key, "gate", p)));
    let answers: Vec<u16> = join_all(joins).await.into_iter().map(|(s, _)| s).collect();
    assert_eq!(
        answers.iter().filter(|s| **s == 200).count(),
        5,
        "{answers:?}"
    );
    assert_eq!(
        answers.iter().filter(|s| **s == 409).count(),
        15,
        "{answers:?}"
    );
    let (_, page) = board_page(&app, &key, "gate").await;
    assert_eq!(page["tournament"]["players"], 5, "{page}");
}

#[tokio::test]
async fn tournament_settings_are_validated_and_can_be_changed_or_cleared() {
    let app = spawn_app().await;
    let (token, game_id, _) = app.game_with_key().await;
    let now = app.state.now();
    let cases = [
        (
            json!({ "starts_at": at(now + Duration::hours(2)), "ends_at": at(now) }),
            "ends_at must be after starts_at",
            "ends before it starts",
        ),
        (
            json!({ "starts_at": at(now), "ends_at": at(now) }),
            "ends_at must be after starts_at",
            "ends as it starts",
        ),
        (json!({ "max_players": 0 }), "max_players", "no players"),
        (
            json!({ "max_players": 1_000_001 }),
            "max_players",
            "too many players",
        ),
        (
            json!({ "starts_at": "tomorrow" }),
            "starts_at",
            "not a timestamp",
        ),
        (
            json!({ "ends_at": "2026-13-01" }),
            "ends_at",
            "not a timestamp",
        ),
    ];
    for (fields, expected, case) in cases {
        let mut body = json!({ "board_name": "bad" });
        body.as_object_mut()
            .unwrap()
            .extend(fields.as_object().unwrap().clone());
        let (status, answer) = define(&app, &token, &game_id, body).await;
        assert_eq!(status, 400, "{case}: {answer}");
        assert!(
            answer["error"].as_str().unwrap().contains(expected),
            "{case}: {answer}"
        );
    }

    let (status, _) = define(&app, &token, &game_id, json!({ "board_name": "cup" })).await;
    assert_eq!(status, 201);
    let (status, changed) = change(
        &app,
        &token,
        &game_id,
        "cup",
        json!({ "ends_at": at(now + Duration::hours(1)), "max_players": 1_000_000 }),
    )
    .await;
    assert_eq!(status, 200, "{changed}");
    assert_eq!(changed["tournament"]["max_players"], 1_000_000);
    assert_eq!(changed["tournament"]["state"], "live");
    let (status, refused) = change(
        &app,
        &token,
        &game_id,
        "cup",
        json!({ "starts_at": at(now + Duration::hours(3)) }),
    )
    .await;
    assert_eq!(status, 400, "a start after the end: {refused}");
    let (status, refused) =
        change(&app, &token, &game_id, "cup", json!({ "max_players": -1 })).await;
    assert_eq!(status, 400, "{refused}");
    let (status, cleared) = change(
        &app,
        &token,
        &game_id,
        "cup",
        json!({ "ends_at": null, "max_players": null }),
    )
    .await;
    assert_eq!(status, 200, "{cleared}");
    assert_eq!(
        cleared["tournament"],
        Value::Null,
        "an ordinary board again"
    );
}

#[tokio::test]
async fn another_game_cannot_reach_or_change_a_tournament() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    define(
        &app,
        &token,
        &game_id,
        json!({ "board_name": "cup", "join_required": true }),
    )
    .await;
    let (other_token, other_game, other_key) = app.game_with_key().await;
    let (status, body) = join(&app, &other_key, "cup", "ann").await;
    assert_eq!(status, 404, "another game's key sees no such board: {body}");
    let (status, _) = change(
        &app,
        &other_token,
        &game_id,
        "cup",
        json!({ "max_players": 3 }),
    )
    .await;
    assert_eq!(status, 403, "not a member of the game");
    let (status, _) = change(
        &app,
        &other_token,
        &other_game,
        "cup",
        json!({ "max_players": 3 }),
    )
    .await;
    assert_eq!(status, 404, "no such board in the other game");
    let (_, page) = board_page(&app, &key, "cup").await;
    assert_eq!(page["tournament"]["players"], 0, "{page}");
}

#[tokio::test]
async fn a_banned_newcomer_takes_no_place() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    define(
        &app,
        &token,
        &game_id,
        json!({ "board_name": "duel", "max_players": 1 }),
    )
    .await;
    let (status, banned) = app
        .dashboard_call(
            Method::POST,
            &format!("/v1/games/{game_id}/leaderboards/duel/entries/eve/ban"),
            &token,
        )
        .await;
    assert_eq!(status, 200, "{banned}");
    // A ban is the board's moderation, not a tournament refusal: its own code.
    for (status, refused) in [
        try_score(&app, &key, "duel", "eve").await,
        join(&app, &key, "duel", "eve").await,
    ] {
        assert_eq!(status, 403, "{refused}");
        assert_eq!(refused["code"], "PLAYER_BANNED", "{refused}");
    }
    let answer = score(&app, &key, "duel", "ann", 1.0).await;
    assert_eq!(answer["tournament"]["players"], 1, "{answer}");
}
