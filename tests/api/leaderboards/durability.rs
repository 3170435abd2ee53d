//! The hot copy of a board is a cache: lost or wiped, it is rebuilt from the cold store with
//! the same ranks, and concurrent submissions keep the best.
use super::{ranked, ranking, score};
use crate::helpers::{services_backend, spawn_app, Fetch, TestApp};
use playtrace::store::hot::leaderboards::HotBoard;
use reqwest::Method;
use serde_json::json;

#[tokio::test]
async fn a_board_lost_from_the_hot_store_is_rebuilt_with_the_same_ranks() {
    let app = spawn_app().await;
    let (_, game_id, key) = app.game_with_key().await;
    for (player, points) in [("a", 5.0), ("b", 9.0), ("c", 9.0), ("d", 1.0), ("e", 7.0)] {
        score(&app, &key, "durable", player, points).await;
    }
    let before = ranking(&app, &key, "durable").await;

    let board = hot_board(&app, &game_id, "durable").await;
    drop_hot_copy(&app, &board).await;
    assert!(
        app.state
            .hot
            .leaderboards
            .page(&board, 0, 1, app.state.now())
            .await
            .unwrap()
            .is_none(),
        "the hot copy is gone"
    );

    assert_eq!(
        ranking(&app, &key, "durable").await,
        before,
        "rebuilt from the cold store on first read"
    );
    // Submissions work straight after a loss too, and keep-best still holds.
    drop_hot_copy(&app, &board).await;
    let kept = score(&app, &key, "durable", "b", 2.0).await;
    assert_eq!(
        (
            kept["updated"].clone(),
            kept["score"].clone(),
            kept["rank"].clone()
        ),
        (json!(false), json!(9), json!(1))
    );
}

/// Drops the hot copy of a board at once, as an eviction or a lost Redis key would.
async fn drop_hot_copy(app: &TestApp, board: &HotBoard) {
    app.state
        .hot
        .leaderboards
        .expire(board, 0, app.state.now())
        .await
        .unwrap();
}

async fn hot_board(app: &TestApp, game_id: &str, name: &str) -> HotBoard {
    let board = playtrace::leaderboards::boards::find(
        &app.state,
        game_id.parse().unwrap(),
        &playtrace::leaderboards::boards::BoardName::parse(name).unwrap(),
    )
    .await
    .unwrap()
    .unwrap();
    let now = app.state.now();
    board.hot(&board.current_period(now), now)
}

#[tokio::test]
async fn a_redis_wipe_loses_no_scores() {
    if !services_backend() {
        return;
    }
    let app = spawn_app().await;
    let (_, _, key) = app.game_with_key().await;
    for i in 0..30 {
        score(
            &app,
            &key,
            "wiped",
            &format!("p{i:02}"),
            ((i * 7) % 10) as f64,
        )
        .await;
    }
    let before = ranking(&app, &key, "wiped?limit=100").await;

    flush_redis_boards(&app).await;

    assert_eq!(ranking(&app, &key, "wiped?limit=100").await, before);
}

#[tokio::test]
async fn concurrent_submissions_for_one_player_keep_the_best() {
    let app = spawn_app().await;
    let (_, game_id, key) = app.game_with_key().await;
    score(&app, &key, "race", "rival", 50.0).await;
    let scores: Vec<f64> = (0..24).map(|i| ((i * 53) % 97) as f64).collect();
    let best = scores.iter().cloned().fold(f64::MIN, f64::max);
    let mut tasks = Vec::new();
    for points in scores {
        let request = app
            .game(Method::POST, "/v1/leaderboards", &key)
            .json(&json!({
                "board_name": "race", "player_id": "racer", "score": points
            }));
        tasks.push(tokio::spawn(async move { request.fetch().await }));
    }
    let mut stored = 0;
    for task in tasks {
        let (status, body) = task.await.unwrap();
        assert_eq!(status, 200, "{body}");
        stored += (body["updated"] == true) as u32;
    }
    assert!(stored >= 1);
    assert_eq!(
        ranking(&app, &key, "race").await,
        ranked(&[("racer", best), ("rival", 50.0)])
    );

    // The cold store agrees: rebuilt from it, the board is the same.
    let board = hot_board(&app, &game_id, "race").await;
    drop_hot_copy(&app, &board).await;
    assert_eq!(
        ranking(&app, &key, "race").await,
        ranked(&[("racer", best), ("rival", 50.0)])
    );
}

/// Deletes every leaderboard key in Redis, as FLUSHALL would, but only under this server's
/// prefix (other tests share the server).
pub async fn flush_redis_boards(app: &TestApp) {
    use fred::prelude::*;
    let handle = app
        .state
        .hot
        .redis
        .clone()
        .expect("Redis backs the services backend");
    let pattern = format!("{}lb:*", handle.prefix);
    let keys: Vec<String> = handle
        .pool
        .next()
        .custom(
            fred::types::CustomCommand::new_static(
                "KEYS",
                fred::types::ClusterHash::FirstKey,
                false,
            ),
            vec![pattern],
        )
        .await
        .unwrap();
    assert!(!keys.is_empty(), "the board lived in Redis");
    let _: i64 = handle.pool.next().del(keys).await.unwrap();
}
