//! Signing players in: off by default, device ids, custom ids with the studio's signature,
//! and linked identities.
use super::*;

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
