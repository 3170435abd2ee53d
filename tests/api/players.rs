//! Player identity (`player_auth`): signing players in with a device id or a signed custom id,
//! linking identities, player tokens that let a request act only as their player, `required`
//! games refusing requests without one, `key_reads`, and rate limits per player.
use crate::helpers::{spawn_app, spawn_app_with, Fetch, TestApp};
use hmac::{Hmac, Mac};
use reqwest::{Method, RequestBuilder};
use serde_json::{json, Value};
use sha2::Sha256;

const DEVICE: &str = "device-0123456789abcdef";

/// A game with player identity set to `mode`: (owner token, game id, key).
async fn game_with_player_auth(app: &TestApp, mode: &str) -> (String, String, String) {
    let (token, game_id, key) = app.game_with_key().await;
    set_game(app, &token, &game_id, json!({ "player_auth": mode })).await;
    (token, game_id, key)
}

async fn set_game(app: &TestApp, token: &str, game_id: &str, body: Value) -> Value {
    app.dashboard(Method::PATCH, &format!("/v1/games/{game_id}"), token)
        .json(&body)
        .expect_status(200)
        .await
}

async fn sign_in(app: &TestApp, key: &str, identity: Value) -> (u16, Value) {
    app.game_json(Method::POST, "/v1/players/auth", key, identity)
        .await
}

/// Signs in with a device id and answers (player token, player id).
async fn device_player(app: &TestApp, key: &str, device: &str) -> (String, String) {
    let (status, body) = sign_in(app, key, json!({ "device_id": device })).await;
    assert_eq!(status, 200, "{body}");
    (
        body["token"].as_str().unwrap().to_string(),
        body["player_id"].as_str().unwrap().to_string(),
    )
}

/// The request with `body` as its JSON body, if there is one.
fn with_json(request: RequestBuilder, body: Option<Value>) -> RequestBuilder {
    match body {
        Some(body) => request.json(&body),
        None => request,
    }
}

fn sign(secret: &str, custom_id: &str, timestamp: i64) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(format!("{custom_id}:{timestamp}").as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

async fn player_secret(app: &TestApp, token: &str, game_id: &str) -> String {
    let body = app
        .dashboard(
            Method::POST,
            &format!("/v1/games/{game_id}/player-secret"),
            token,
        )
        .expect_status(200)
        .await;
    body["secret"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn off_by_default_the_key_acts_as_any_player_and_no_token_is_issued() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let (_, game) = app
        .dashboard_call(Method::GET, &format!("/v1/games/{game_id}"), &token)
        .await;
    assert_eq!(
        (game["player_auth"].clone(), game["key_reads"].clone()),
        (json!("off"), json!(true))
    );
    let (status, body) = sign_in(&app, &key, json!({ "device_id": DEVICE })).await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(
        body["error"],
        "Player identity is off for this game (player_auth)"
    );
    // A stray token header changes nothing while the game has it off.
    app.player(Method::PUT, "/v1/saves/anyone/slot1", &key, "not-a-token")
        .json(&json!({ "data": { "gold": 1 }, "version": 0 }))
        .expect_status(200)
        .await;
}

#[tokio::test]
async fn a_device_signs_in_as_the_same_player_every_time_and_a_new_device_is_a_new_player() {
    let app = spawn_app().await;
    let (_, _, key) = game_with_player_auth(&app, "optional").await;
    let (status, first) = sign_in(&app, &key, json!({ "device_id": DEVICE })).await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(first["created"], true);
    assert_eq!(first["expires_in"], 3600);
    let (_, again) = sign_in(&app, &key, json!({ "device_id": DEVICE })).await;
    assert_eq!(again["created"], false);
    assert_eq!(again["player_id"], first["player_id"]);
    let (_, other) = sign_in(&app, &key, json!({ "device_id": "another-device-0000000" })).await;
    assert_ne!(other["player_id"], first["player_id"]);

    for (identity, why) in [
        (json!({ "device_id": "short" }), "a guessable device id"),
        (json!({}), "no identity"),
        (
            json!({ "device_id": DEVICE, "custom_id": "a" }),
            "two identities",
        ),
        (
            json!({ "custom_id": "acc-1" }),
            "a custom id without a signature",
        ),
    ] {
        let (status, body) = sign_in(&app, &key, identity).await;
        assert_eq!(status, 400, "{why}: {body}");
    }
}

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

#[tokio::test]
async fn custom_ids_need_the_studio_signature_and_identities_link_to_one_player() {
    let app = spawn_app().await;
    let (owner, game_id, key) = game_with_player_auth(&app, "optional").await;
    let now = app.state.now().timestamp();
    let (status, body) = sign_in(
        &app,
        &key,
        json!({ "custom_id": "acc-42", "timestamp": now, "signature": "00" }),
    )
    .await;
    assert_eq!(status, 403, "no secret made yet: {body}");
    let secret = player_secret(&app, &owner, &game_id).await;
    let (_, game) = app
        .dashboard_call(Method::GET, &format!("/v1/games/{game_id}"), &owner)
        .await;
    assert_eq!(game["player_secret_set"], true);
    assert!(
        game.get("player_secret").is_none(),
        "the secret is shown once only"
    );

    let signed = |custom: &str, at: i64| json!({ "custom_id": custom, "timestamp": at, "signature": sign(&secret, custom, at) });
    let (status, body) = sign_in(&app, &key, json!({ "custom_id": "acc-42", "timestamp": now, "signature": sign("wrong", "acc-42", now) })).await;
    assert_eq!(
        (status, body["error"].clone()),
        (401, json!("Invalid signature"))
    );
    let (status, body) = sign_in(&app, &key, signed("acc-42", now - 3600)).await;
    assert_eq!(status, 401, "an old signature is not replayed: {body}");

    // A device first, then the account linked to it: both sign in as the same player.
    let (token, me) = device_player(&app, &key, DEVICE).await;
    let linked = app
        .player(Method::POST, "/v1/players/link", &key, &token)
        .json(&signed("acc-42", now))
        .expect_status(200)
        .await;
    assert_eq!(
        (linked["player_id"].clone(), linked["linked"].clone()),
        (json!(me), json!(true))
    );
    let (status, body) = sign_in(&app, &key, signed("acc-42", now)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["player_id"],
        me.as_str(),
        "progress follows the player to the account"
    );

    // An identity another player holds cannot be taken over.
    let (other_token, _) = device_player(&app, &key, "a-second-device-99999").await;
    app.player(Method::POST, "/v1/players/link", &key, &other_token)
        .json(&json!({ "device_id": DEVICE }))
        .expect_status(409)
        .await;
    let (status, _) = app
        .game_json(
            Method::POST,
            "/v1/players/link",
            &key,
            json!({ "device_id": DEVICE }),
        )
        .await;
    assert_eq!(status, 401, "linking needs a player token");

    // A new secret retires the old one.
    let old = signed("acc-42", now);
    player_secret(&app, &owner, &game_id).await;
    let (status, _) = sign_in(&app, &key, old).await;
    assert_eq!(status, 401);
}

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
