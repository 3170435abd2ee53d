//! What a game key may do: `key_reads` switched off, and rate limits per player and per game.
use super::*;

#[tokio::test]
async fn reports_can_be_switched_off_for_game_keys() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let (status, _) = app.game_call(Method::GET, "/v1/funnels", &key).await;
    assert_eq!(status, 200);
    let game = set_game(&app, &token, &game_id, json!({ "key_reads": false })).await;
    assert_eq!(game["key_reads"], false);
    for path in ["/v1/funnels", "/v1/presence"] {
        let (status, body) = app.game_call(Method::GET, path, &key).await;
        assert_eq!(status, 403, "{path}: {body}");
    }
    let (status, _) = app.game_call(Method::GET, "/v1/leaderboards/b", &key).await;
    assert_eq!(status, 200, "boards are still public");
}

#[tokio::test]
async fn one_noisy_player_is_limited_without_using_up_the_game() {
    let app = spawn_app_with(|s| s.rate_limit_per_minute = 50).await;
    let (owner, game_id, key) = game_with_player_auth(&app, "optional").await;
    set_game(
        &app,
        &owner,
        &game_id,
        json!({ "player_rate_limit_per_minute": 5 }),
    )
    .await;
    let (noisy, me) = device_player(&app, &key, DEVICE).await;
    let (quiet, _) = device_player(&app, &key, "a-quiet-device-000000").await;
    let path = format!("/v1/saves/{me}");
    // The six requests below must fall in one minute's window (a boundary between them gave
    // the sixth a fresh window once, on a loaded machine).
    app.away_from_a_minute_boundary();
    for _ in 0..5 {
        let (status, _) = app.player(Method::GET, &path, &key, &noisy).fetch().await;
        assert_eq!(status, 200);
    }
    let response = app
        .game(Method::GET, &path, &key)
        .header("x-player-token", &noisy)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 429);
    assert_eq!(response.headers()["x-ratelimit-limit"], "5");
    assert!(response.headers().contains_key("retry-after"));
    // A player who ignores 429 and keeps going past the key's own limit (50) spends only their
    // own window: what it refuses is not counted in the game's.
    for _ in 0..60 {
        app.player(Method::GET, &path, &key, &noisy)
            .expect_status(429)
            .await;
    }
    let (status, _) = app
        .player(Method::GET, "/v1/leaderboards/b", &key, &quiet)
        .fetch()
        .await;
    assert_eq!(status, 200, "another player of the game is not held back");
}

#[tokio::test]
async fn owners_set_rate_limits_within_the_cap_the_admin_allows() {
    let app = spawn_app_with(|s| s.rate_limit_per_minute = 1000).await;
    let admin = app.new_user().await; // the instance's first account
    let (owner, game_id, _) = app.game_with_key().await;
    let path = format!("/v1/games/{game_id}");
    // (who, change, status expected, why), in order.
    let steps = [
        (
            &owner,
            json!({ "rate_limit_per_minute": 800 }),
            200,
            "below the instance default",
        ),
        (
            &owner,
            json!({ "rate_limit_per_minute": 5000 }),
            403,
            "above the cap (the default)",
        ),
        (
            &owner,
            json!({ "max_rate_limit_per_minute": 9000 }),
            403,
            "the cap is the admin's",
        ),
        (
            &owner,
            json!({ "player_rate_limit_per_minute": null }),
            403,
            "resetting is the admin's",
        ),
        (
            &admin,
            json!({ "max_rate_limit_per_minute": 6000 }),
            200,
            "the admin raises the cap",
        ),
        (
            &owner,
            json!({ "rate_limit_per_minute": 5000, "player_rate_limit_per_minute": 300 }),
            200,
            "within the new cap",
        ),
        (
            &owner,
            json!({ "player_auth": "sometimes" }),
            400,
            "not a mode",
        ),
    ];
    let mut last = Value::Null;
    for (who, change, expected, why) in steps {
        let (status, body) = app
            .dashboard_json(Method::PATCH, &path, who, change.clone())
            .await;
        assert_eq!(status, expected, "{why}: {change} -> {body}");
        if status == 403 && why.starts_with("above") {
            assert!(
                body["error"].as_str().unwrap().contains("at most 1000"),
                "{body}"
            );
        }
        if status == 200 {
            last = body;
        }
    }
    let limits = [
        "rate_limit_per_minute",
        "player_rate_limit_per_minute",
        "max_rate_limit_per_minute",
    ];
    assert_eq!(
        limits.map(|field| last[field].clone()),
        [json!(5000), json!(300), json!(6000)]
    );
}
