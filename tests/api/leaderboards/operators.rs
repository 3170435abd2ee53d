//! Score operators: `latest`, `increment` and `decrement` boards beside `best`, atomic under
//! concurrent submissions (one node or two), rebuilt from the cold store after a hot-store loss.
use super::{define, ranked, ranking, score as send, submit};
use crate::helpers::{retried, services_backend, spawn_app, spawn_on, Fetch, TestApp};
use reqwest::Method;
use serde_json::{json, Value};

/// Sends every score at once, spread over `apps`, and waits for all the answers (a 503 sent
/// again, `retried`).
async fn burst(apps: &[&TestApp], key: &str, board: &str, player: &str, scores: &[f64]) {
    let mut tasks = Vec::new();
    for (i, points) in scores.iter().enumerate() {
        let request = apps[i % apps.len()]
            .game(Method::POST, "/v1/leaderboards", key)
            .json(&json!({ "board_name": board, "player_id": player, "score": points }));
        tasks.push(tokio::spawn(async move {
            retried(|| request.try_clone().expect("a JSON body clones").fetch()).await
        }));
    }
    for task in tasks {
        let (status, body) = task.await.unwrap();
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["updated"], true, "every score counts: {body}");
    }
}

/// Drops the hot copies of every board of the node's hot store at once (as a Redis flush, or
/// a restart of the in-process store, would).
async fn lose_hot_copy(app: &TestApp, game_id: &str, board: &str) {
    let found = playtrace::leaderboards::boards::find(
        &app.state,
        game_id.parse().unwrap(),
        &playtrace::leaderboards::boards::BoardName::parse(board).unwrap(),
    )
    .await
    .unwrap()
    .unwrap();
    let now = app.state.now();
    let hot = found.hot(&found.current_period(now), now);
    app.state
        .hot
        .leaderboards
        .expire(&hot, 0, now)
        .await
        .unwrap();
}

#[tokio::test]
async fn each_operator_does_what_it_says() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    for (board, operator) in [
        ("hi", "best"),
        ("last", "latest"),
        ("kills", "increment"),
        ("lives", "decrement"),
    ] {
        let (status, created) = define(
            &app,
            &token,
            &game_id,
            json!({ "board_name": board, "operator": operator }),
        )
        .await;
        assert_eq!(
            (status, created["operator"].clone()),
            (201, json!(operator)),
            "{created}"
        );
    }
    for board in ["hi", "last", "kills", "lives"] {
        send(&app, &key, board, "ann", 10.0).await;
    }
    let answers: Vec<Value> =
        futures_sequence(&app, &key, &["hi", "last", "kills", "lives"], 4.0).await;
    let got: Vec<(Value, Value, Value)> = answers
        .iter()
        .map(|a| {
            (
                a["score"].clone(),
                a["updated"].clone(),
                a["operator"].clone(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (json!(10), json!(false), json!("best")),
            (json!(4), json!(true), json!("latest")),
            (json!(14), json!(true), json!("increment")),
            (json!(-14), json!(true), json!("decrement")),
        ]
    );
    // Decrement starts from 0 and ranks like any board (higher first by default).
    send(&app, &key, "lives", "bob", 1.0).await;
    assert_eq!(
        ranking(&app, &key, "lives").await,
        ranked(&[("bob", -1.0), ("ann", -14.0)])
    );
}

async fn futures_sequence(app: &TestApp, key: &str, boards: &[&str], score: f64) -> Vec<Value> {
    let mut answers = Vec::new();
    for board in boards {
        answers.push(send(app, key, board, "ann", score).await);
    }
    answers
}

#[tokio::test]
async fn a_first_score_may_choose_the_operator_and_unknown_words_store_nothing() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let (status, first) = submit(
        &app,
        &key,
        json!({ "board_name": "coins", "player_id": "ann", "score": 5, "operator": "increment" }),
    )
    .await;
    assert_eq!(
        (status, first["operator"].clone()),
        (200, json!("increment"))
    );
    let (status, refused) = submit(
        &app,
        &key,
        json!({ "board_name": "coins", "player_id": "ann", "score": 5, "operator": "best" }),
    )
    .await;
    assert_eq!(status, 409, "{refused}");
    assert_eq!(send(&app, &key, "coins", "ann", 5.0).await["score"], 10);

    for (body, message) in [
        (
            json!({ "board_name": "new", "player_id": "ann", "score": 1, "operator": "sum" }),
            "operator must be best, latest, increment or decrement",
        ),
        (
            json!({ "board_name": "new", "player_id": "ann", "score": 1, "order": "up" }),
            "order must be higher or lower",
        ),
        (
            json!({ "board_name": "coins", "player_id": "ann", "score": 1e300 }),
            "score must be at most 9007199254740992 in magnitude on increment and decrement boards",
        ),
    ] {
        let (status, answer) = submit(&app, &key, body).await;
        assert_eq!((status, answer["error"].as_str().unwrap()), (400, message));
    }
    assert_eq!(
        ranking(&app, &key, "coins").await,
        ranked(&[("ann", 10.0)]),
        "nothing stored"
    );
    let (status, _) = app
        .dashboard_call(
            Method::GET,
            &format!("/v1/games/{game_id}/leaderboards/new"),
            &token,
        )
        .await;
    assert_eq!(status, 404, "no board was made");
    let (status, refused) = define(
        &app,
        &token,
        &game_id,
        json!({ "board_name": "bad", "operator": "max" }),
    )
    .await;
    assert_eq!(status, 400, "{refused}");
    // The operator is locked once the board has entries, like the order.
    let (status, locked) = app
        .dashboard_json(
            Method::PATCH,
            &format!("/v1/games/{game_id}/leaderboards/coins"),
            &token,
            json!({ "operator": "latest" }),
        )
        .await;
    assert_eq!(status, 409, "{locked}");
}

/// Concurrent submissions per operator on `apps` (one node, or two sharing the stores): the
/// totals are exact, `latest` keeps one of the scores sent, and both survive a hot-store loss.
async fn concurrent_operators(apps: &[&TestApp]) {
    let app = apps[0];
    let (token, game_id, key) = app.game_with_key().await;
    for (board, operator) in [
        ("sum", "increment"),
        ("drain", "decrement"),
        ("last", "latest"),
        ("top", "best"),
    ] {
        define(
            app,
            &token,
            &game_id,
            json!({ "board_name": board, "operator": operator }),
        )
        .await;
    }
    let scores: Vec<f64> = (1..=24).map(f64::from).collect();
    let total: f64 = scores.iter().sum();
    for board in ["sum", "drain", "last", "top"] {
        send(app, &key, board, "rival", 100.0).await;
    }
    tokio::join!(
        burst(apps, &key, "sum", "racer", &scores),
        burst(apps, &key, "drain", "racer", &scores),
        burst(apps, &key, "last", "racer", &scores),
        burst(apps, &key, "top", "racer", &scores[..1]),
    );
    let expect_sum = ranked(&[("racer", total), ("rival", 100.0)]);
    // Decrement boards rank higher first like any other: -100 ahead of -300.
    let expect_drain = ranked(&[("rival", -100.0), ("racer", -total)]);
    for node in apps {
        assert_eq!(ranking(node, &key, "sum").await, expect_sum);
        assert_eq!(ranking(node, &key, "drain").await, expect_drain);
    }
    let last_score =
        |ranking: Vec<(String, f64, u64)>| ranking.into_iter().find(|e| e.0 == "racer").unwrap().1;
    let kept = last_score(ranking(app, &key, "last").await);
    assert!(scores.contains(&kept));

    // Every hot copy lost: rebuilt from the cold store, the boards read the same, and later
    // submissions go on from the stored totals (never applied twice).
    for board in ["sum", "drain", "last"] {
        lose_hot_copy(app, &game_id, board).await;
    }
    assert_eq!(ranking(apps[apps.len() - 1], &key, "sum").await, expect_sum);
    assert_eq!(last_score(ranking(app, &key, "last").await), kept);
    let after = send(apps[apps.len() - 1], &key, "sum", "racer", 1.0).await;
    assert_eq!(after["score"].as_f64(), Some(total + 1.0));
    let after = send(app, &key, "drain", "racer", 1.0).await;
    assert_eq!(after["score"].as_f64(), Some(-total - 1.0));
}

#[tokio::test]
async fn concurrent_submissions_apply_every_operator_exactly() {
    let app = spawn_app().await;
    concurrent_operators(&[&app]).await;
}

#[tokio::test]
async fn two_nodes_apply_every_operator_exactly() {
    if !services_backend() {
        return;
    }
    let first = spawn_app().await;
    let second = spawn_on(first.backend.clone(), |_| {}).await;
    concurrent_operators(&[&first, &second]).await;
}

#[tokio::test]
async fn a_redis_flush_loses_no_total() {
    if !services_backend() {
        return;
    }
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    define(
        &app,
        &token,
        &game_id,
        json!({ "board_name": "flushed", "operator": "increment" }),
    )
    .await;
    for i in 0..10 {
        send(&app, &key, "flushed", &format!("p{}", i % 3), 2.0).await;
    }
    let before = ranking(&app, &key, "flushed").await;
    super::durability::flush_redis_boards(&app).await;
    assert_eq!(ranking(&app, &key, "flushed").await, before);
    assert_eq!(send(&app, &key, "flushed", "p0", 1.0).await["score"], 9);
}

#[tokio::test]
async fn a_flagged_change_waits_for_review_and_approval_applies_it() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    define(
        &app,
        &token,
        &game_id,
        json!({ "board_name": "xp", "operator": "increment", "max_score": 100 }),
    )
    .await;
    send(&app, &key, "xp", "ann", 40.0).await;
    let flagged = send(&app, &key, "xp", "ann", 500.0).await;
    assert_eq!(
        (flagged["status"].clone(), flagged["rank"].clone()),
        (json!("suspicious"), Value::Null)
    );
    assert_eq!(
        ranking(&app, &key, "xp").await,
        ranked(&[("ann", 40.0)]),
        "held back"
    );
    send(&app, &key, "xp", "ann", 2.0).await;

    let (status, approved) = app
        .dashboard_call(
            Method::POST,
            &format!("/v1/games/{game_id}/leaderboards/xp/entries/ann/approve"),
            &token,
        )
        .await;
    assert_eq!(status, 200, "{approved}");
    assert_eq!(approved["score"], 542, "added to the total, not kept-best");
    assert_eq!(ranking(&app, &key, "xp").await, ranked(&[("ann", 542.0)]));
    lose_hot_copy(&app, &game_id, "xp").await;
    assert_eq!(ranking(&app, &key, "xp").await, ranked(&[("ann", 542.0)]));
}

#[tokio::test]
async fn operators_start_again_each_period_and_the_ended_one_keeps_its_totals() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    for (board, operator) in [
        ("kills", "increment"),
        ("lives", "decrement"),
        ("last", "latest"),
    ] {
        let (status, created) = define(
            &app,
            &token,
            &game_id,
            json!({ "board_name": board, "operator": operator, "period": "daily" }),
        )
        .await;
        assert_eq!(status, 201, "{created}");
    }
    let yesterday = app.state.now().format("%Y-%m-%d").to_string();
    for board in ["kills", "lives", "last"] {
        burst(&[&app], &key, board, "ann", &[3.0, 4.0, 5.0]).await;
    }
    send(&app, &key, "last", "ann", 7.0).await;

    // Act: the day ends; the next day's scores go to a fresh period.
    app.clock.advance(chrono::Duration::days(1));
    for board in ["kills", "lives", "last"] {
        send(&app, &key, board, "ann", 2.0).await;
    }

    // Assert: today counts from zero; yesterday keeps what it added up to.
    assert_eq!(ranking(&app, &key, "kills").await, ranked(&[("ann", 2.0)]));
    assert_eq!(ranking(&app, &key, "lives").await, ranked(&[("ann", -2.0)]));
    assert_eq!(ranking(&app, &key, "last").await, ranked(&[("ann", 2.0)]));
    let before = |board: &str| format!("{board}?period={yesterday}");
    assert_eq!(
        ranking(&app, &key, &before("kills")).await,
        ranked(&[("ann", 12.0)])
    );
    assert_eq!(
        ranking(&app, &key, &before("lives")).await,
        ranked(&[("ann", -12.0)])
    );
    assert_eq!(
        ranking(&app, &key, &before("last")).await,
        ranked(&[("ann", 7.0)])
    );
}
