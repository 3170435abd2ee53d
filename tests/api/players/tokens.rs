//! Player tokens: acting only as their player, `required` games, and stolen, expired or
//! forged tokens.
use super::*;

#[tokio::test]
async fn a_player_token_acts_only_as_its_player_on_every_player_scoped_route() {
    let app = spawn_app().await;
    let (token, game_id, key) = game_with_player_auth(&app, "optional").await;
    let (player_token, me) = device_player(&app, &key, DEVICE).await;
    let (status, _) = app
        .dashboard_json(
            Method::POST,
            &format!("/v1/games/{game_id}/achievements"),
            &token,
            json!({ "key": "first", "name": "First", "description": "d", "points": 5 }),
        )
        .await;
    assert_eq!(status, 201);

    let someone = "someone-else";
    let attempts: Vec<(Method, String, Option<Value>)> = vec![
        (
            Method::PUT,
            format!("/v1/saves/{someone}/main"),
            Some(json!({ "data": { "gold": 1 }, "version": 0 })),
        ),
        (Method::GET, format!("/v1/saves/{someone}/main"), None),
        (Method::GET, format!("/v1/saves/{someone}"), None),
        (Method::DELETE, format!("/v1/saves/{someone}/main"), None),
        (
            Method::POST,
            "/v1/achievements/unlock".into(),
            Some(json!({ "achievement_key": "first", "player_id": someone })),
        ),
        (
            Method::POST,
            "/v1/leaderboards".into(),
            Some(json!({ "board_name": "b", "player_id": someone, "score": 1 })),
        ),
        (
            Method::POST,
            "/v1/leaderboards/b/entries".into(),
            Some(json!({ "player_id": someone, "score": 1 })),
        ),
        (
            Method::POST,
            "/v1/activity".into(),
            Some(json!({ "player_id": someone, "activity": "x" })),
        ),
        (
            Method::DELETE,
            "/v1/activity".into(),
            Some(json!({ "player_id": someone })),
        ),
        (
            Method::POST,
            "/v1/track".into(),
            Some(json!({ "event_name": "e", "session_id": "s", "player_id": someone })),
        ),
    ];
    for (method, path, body) in attempts {
        let (status, answer) =
            with_json(app.player(method.clone(), &path, &key, &player_token), body)
                .fetch()
                .await;
        assert_eq!(status, 403, "{method} {path}: {answer}");
        assert_eq!(answer["error"], "This player token is for another player");
    }
    // Nothing was stored for the other player.
    app.game(Method::GET, &format!("/v1/saves/{someone}/main"), &key)
        .expect_status(404)
        .await;

    // As itself, every route works; an event without player_id becomes the token's player's.
    app.player(
        Method::PUT,
        &format!("/v1/saves/{me}/main"),
        &key,
        &player_token,
    )
    .json(&json!({ "data": { "gold": 7 }, "version": 0 }))
    .expect_status(200)
    .await;
    app.player(Method::POST, "/v1/achievements/unlock", &key, &player_token)
        .json(&json!({ "achievement_key": "first", "player_id": me }))
        .expect_status(200)
        .await;
    let (status, body) = app
        .player(Method::POST, "/v1/leaderboards", &key, &player_token)
        .json(&json!({ "board_name": "b", "player_id": me, "score": 3 }))
        .fetch()
        .await;
    assert_eq!((status, body["rank"].clone()), (200, json!(1)), "{body}");
    app.player(Method::POST, "/v1/track", &key, &player_token)
        .json(&json!([{ "event_name": "anon", "session_id": "s" }]))
        .expect_status(202)
        .await;
    let (_, recent) = app
        .dashboard_call(
            Method::GET,
            &format!("/v1/games/{game_id}/events?event_name=anon"),
            &token,
        )
        .await;
    assert_eq!(recent["events"][0]["player_id"], me.as_str());

    // Public reads about other players stay open: boards, achievements, presence of one player.
    app.player(Method::GET, "/v1/leaderboards/b", &key, &player_token)
        .expect_status(200)
        .await;
    app.player(
        Method::GET,
        &format!("/v1/achievements?player_id={someone}"),
        &key,
        &player_token,
    )
    .expect_status(200)
    .await;
}

#[tokio::test]
async fn required_games_refuse_player_scoped_requests_without_a_token() {
    let app = spawn_app().await;
    let (_, _, key) = game_with_player_auth(&app, "required").await;
    for (method, path, body) in [
        (
            Method::PUT,
            "/v1/saves/p1/main",
            Some(json!({ "data": 1, "version": 0 })),
        ),
        (Method::GET, "/v1/saves/p1", None),
        (
            Method::POST,
            "/v1/leaderboards",
            Some(json!({ "board_name": "b", "player_id": "p1", "score": 1 })),
        ),
        (
            Method::POST,
            "/v1/activity",
            Some(json!({ "player_id": "p1", "activity": "x" })),
        ),
        (
            Method::POST,
            "/v1/track",
            Some(json!({ "event_name": "e", "session_id": "s" })),
        ),
    ] {
        let request = with_json(app.game(method.clone(), path, &key), body);
        let (status, answer) = request.fetch().await;
        assert_eq!(status, 401, "{method} {path}: {answer}");
        assert!(
            answer["error"].as_str().unwrap().contains("x-player-token"),
            "{answer}"
        );
    }
    // Routes that are not about one player still take the bare key.
    let (status, _) = app.game_call(Method::GET, "/v1/leaderboards/b", &key).await;
    assert_eq!(status, 200);
    let (status, _) = app.game_call(Method::GET, "/v1/config", &key).await;
    assert_eq!(status, 200);
    // With a token, it all works.
    let (token, me) = device_player(&app, &key, DEVICE).await;
    app.player(Method::POST, "/v1/track", &key, &token)
        .json(&json!({ "event_name": "e", "session_id": "s" }))
        .expect_status(202)
        .await;
    app.player(Method::GET, &format!("/v1/saves/{me}"), &key, &token)
        .expect_status(200)
        .await;
}

#[tokio::test]
async fn stolen_expired_and_forged_tokens_are_refused() {
    let app = spawn_app().await;
    let (_, _, key) = game_with_player_auth(&app, "optional").await;
    let (_, _, other_key) = game_with_player_auth(&app, "optional").await;
    let (token, me) = device_player(&app, &key, DEVICE).await;
    let path = format!("/v1/saves/{me}/main");

    // A token of one game does not open another game, even for "the same" player id.
    let body = app
        .player(Method::GET, &path, &other_key, &token)
        .expect_status(401)
        .await;
    assert_eq!(body["error"], "This player token is for another game");

    // A token whose signature was tampered with.
    let mut forged = token.clone();
    let last = forged.pop().unwrap();
    forged.push(if last == 'A' { 'B' } else { 'A' });
    let (status, body) = app.player(Method::GET, &path, &key, &forged).fetch().await;
    assert_eq!(
        (status, body["error"].clone()),
        (401, json!("Invalid player token"))
    );

    // A dashboard token is not a player token.
    let dashboard = app.new_user().await;
    app.player(Method::GET, &path, &key, &dashboard)
        .expect_status(401)
        .await;

    // Refreshing gives a new token; after an hour the old one has expired.
    let refreshed = app
        .player(Method::POST, "/v1/players/refresh", &key, &token)
        .expect_status(200)
        .await;
    assert_eq!(refreshed["player_id"], me.as_str());
    app.clock.advance(chrono::Duration::seconds(3601));
    let (status, body) = app.player(Method::GET, &path, &key, &token).fetch().await;
    assert_eq!(
        (status, body["error"].clone()),
        (401, json!("Token expired"))
    );
    let (status, _) = app
        .player(Method::POST, "/v1/players/refresh", &key, &token)
        .fetch()
        .await;
    assert_eq!(
        status, 401,
        "an expired token cannot be refreshed: sign in again"
    );
}
