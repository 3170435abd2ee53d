//! Redis lost every key: boards, quotas, limits and revoked keys carry on from the cold store.
use super::*;

/// (status, X-RateLimit-Remaining, X-RateLimit-Reset) of a config read.
async fn limited_read(app: &TestApp, key: &str) -> (u16, Option<u64>, Option<u64>) {
    let response = app
        .game(Method::GET, "/v1/config", key)
        .send()
        .await
        .unwrap();
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse().ok())
    };
    (
        response.status().as_u16(),
        header("x-ratelimit-remaining"),
        header("x-ratelimit-reset"),
    )
}

async fn board_page(app: &TestApp, key: &str, board: &str) -> Value {
    app.game(Method::GET, &format!("/v1/leaderboards/{board}"), key)
        .expect_status(200)
        .await
}

async fn standing(app: &TestApp, key: &str, board: &str, player: &str) -> Value {
    app.game(
        Method::GET,
        &format!("/v1/leaderboards/{board}/players/{player}?around=1"),
        key,
    )
    .expect_status(200)
    .await
}

#[tokio::test]
async fn after_redis_lost_every_key_boards_quotas_and_limits_carry_on_from_the_cold_store() {
    if !services_backend() {
        return;
    }
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;

    // Events: 30 plain ones and one retried event_id (stored once).
    let (status, _) = app.game_json(Method::POST, "/v1/track", &key, Value::Array(
                (0..30)
                    .map(|i| json!({ "event_name": "level_start", "session_id": "s", "properties": { "i": i } }))
                    .collect(),
            )).await;
    assert_eq!(status, 202);
    for _ in 0..2 {
        let done = answer("track", track_one(&app, &key, "x")).await;
        assert_eq!(done.status, 202, "{}", done.body);
        assert_eq!(done.body["quota"]["remaining"], FREE_LIMIT - 31);
    }

    // Boards: one higher-is-better (with a tie: bob reached 200 before cid), one defined on
    // the dashboard as lower-is-better.
    let (status, body) = app
        .dashboard_json(
            Method::POST,
            &format!("/v1/games/{game_id}/leaderboards"),
            &token,
            json!({ "board_name": "speedrun", "order": "lower" }),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    for (board, player, score) in [
        ("main", "ann", 300.0),
        ("main", "bob", 200.0),
        ("main", "cid", 200.0),
        ("main", "dan", 100.0),
        ("main", "eve", 50.0),
        ("main", "dan", 20.0), // worse: not kept
        ("speedrun", "ann", 61.5),
        ("speedrun", "bob", 59.0),
    ] {
        let done = answer("submit", submit(&app, &key, board, player, score)).await;
        assert_eq!(done.status, 200, "{}", done.body);
    }
    let main_before = board_page(&app, &key, "main").await;
    let speedrun_before = board_page(&app, &key, "speedrun").await;
    let cid_before = standing(&app, &key, "main", "cid").await;
    assert_eq!(main_before["total"], 5);
    assert_eq!(cid_before["rank"], 3);
    assert_eq!(speedrun_before["entries"][0]["player_id"], "bob");

    // Rate-limit windows: a second game whose key may make 5 requests a minute.
    let limited_game = app.create_game(&token).await;
    app.dashboard(Method::PATCH, &format!("/v1/games/{limited_game}"), &token)
        .json(&json!({ "rate_limit_per_minute": 5 }))
        .expect_status(200)
        .await;
    let limited_key = app.create_key(&token, &limited_game, "development").await;
    let (status, _, resets_in) = limited_read(&app, &limited_key).await;
    assert_eq!(status, 200);
    if resets_in.unwrap() < 20 {
        // Too close to the end of the window for the rest of the test: start the next one.
        app.clock
            .advance(chrono::Duration::seconds(resets_in.unwrap() as i64 + 1));
        assert_eq!(limited_read(&app, &limited_key).await.0, 200);
    }
    for _ in 0..4 {
        assert_eq!(limited_read(&app, &limited_key).await.0, 200);
    }
    assert_eq!(limited_read(&app, &limited_key).await.0, 429);

    assert_eq!(
        answer("activity", set_activity(&app, &key, "ann"))
            .await
            .status,
        200
    );

    let deleted = wipe_redis(&app.backend.redis_prefix).await;
    assert!(deleted >= 5, "the deployment had keys in Redis: {deleted}");

    // Boards are rebuilt from the cold store: the same entries, in the same ranks.
    assert_eq!(board_page(&app, &key, "main").await, main_before);
    assert_eq!(board_page(&app, &key, "speedrun").await, speedrun_before);
    assert_eq!(standing(&app, &key, "main", "cid").await, cid_before);
    // And they go on from there.
    let done = answer("submit", submit(&app, &key, "main", "eve", 250.0)).await;
    assert_eq!(done.status, 200, "{}", done.body);
    assert_eq!(
        (done.body["rank"].clone(), done.body["updated"].clone()),
        (json!(2), json!(true))
    );
    let main_after = board_page(&app, &key, "main").await;
    let order: Vec<&str> = main_after["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["player_id"].as_str().unwrap())
        .collect();
    assert_eq!(order, ["ann", "eve", "bob", "cid", "dan"]);

    // The quota counts on from the events stored: 31 before, 1 now.
    let done = answer("track", track_one(&app, &key, "after-wipe")).await;
    assert_eq!(done.status, 202, "{}", done.body);
    assert_eq!(
        done.body["quota"],
        json!({ "remaining": FREE_LIMIT - 32, "limit": FREE_LIMIT })
    );
    // A retried event is still stored once and not counted again.
    let done = answer("track", track_one(&app, &key, "x")).await;
    assert_eq!(done.status, 202, "{}", done.body);
    assert_eq!(done.body["quota"]["remaining"], FREE_LIMIT - 32);

    // The lost window starts over, and the limit holds again (all six in one window).
    app.away_from_a_minute_boundary();
    let mut statuses = Vec::new();
    for _ in 0..6 {
        let (status, remaining, _) = limited_read(&app, &limited_key).await;
        assert!(remaining.is_some_and(|r| r <= 5), "{remaining:?}");
        statuses.push(status);
    }
    assert_eq!(statuses, [200, 200, 200, 200, 200, 429]);

    // Presence lives only in the hot store: it starts empty and fills again.
    let (status, body) = app.game_call(Method::GET, "/v1/presence", &key).await;
    assert_eq!((status, body["active_count"].clone()), (200, json!(0)));
    assert_eq!(
        answer("activity", set_activity(&app, &key, "bob"))
            .await
            .status,
        200
    );
    let (status, body) = app.game_call(Method::GET, "/v1/presence", &key).await;
    assert_eq!((status, body["active_count"].clone()), (200, json!(1)));

    let ready = answer("readyz", app.request(Method::GET, "/readyz")).await;
    assert_eq!(ready.status, 200, "{}", ready.body);
}

#[tokio::test]
async fn after_redis_lost_every_key_a_revoked_key_still_stops_on_every_node_within_a_second() {
    // Each node forgets what it cached about a game when another node announces a change;
    // the announcements are numbered by a counter in Redis. Losing it must not make the
    // nodes ignore the announcements that follow.
    if !services_backend() {
        return;
    }
    let first = spawn_app().await;
    let second = spawn_on(first.backend.clone(), |_| {}).await;
    let (token, game_id, key) = first.game_with_key().await;
    // A deployment that has been running a while has announced many changes.
    for version in 0..10 {
        first
            .dashboard(Method::PUT, &format!("/v1/games/{game_id}/config"), &token)
            .json(&json!({ "values": { "version": version } }))
            .expect_status(200)
            .await;
    }
    for node in [&first, &second] {
        let (status, _, _) = limited_read(node, &key).await;
        assert_eq!(status, 200);
    }

    wipe_redis(&first.backend.redis_prefix).await;
    // Long enough for every node to have read the counter again.
    tokio::time::sleep(Duration::from_millis(600)).await;

    let (new_key, key_id) = first.new_key(&token, &game_id, "production").await;
    // The second node looks the new key up now, and caches it.
    assert_eq!(limited_read(&second, &new_key).await.0, 200);

    first.revoke_key(&token, &game_id, &key_id).await;
    within(
        "the revoked key refused by the second node",
        Duration::from_secs(1),
        || async { limited_read(&second, &new_key).await.0 == 401 },
    )
    .await;
    // The game's other key still works everywhere.
    assert_eq!(limited_read(&second, &key).await.0, 200);
}
