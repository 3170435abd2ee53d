use crate::helpers::{spawn_app, Fetch};
use reqwest::Method;
use serde_json::json;

#[tokio::test]
async fn keys_are_shown_once_listed_by_prefix_and_revoked_at_once() {
    let app = spawn_app().await;
    let token = app.new_user().await;
    let game_id = app.create_game(&token).await;

    let created = app
        .dashboard(
            Method::POST,
            &format!("/v1/games/{game_id}/api-keys"),
            &token,
        )
        .json(&json!({ "name": "ci", "environment": "production" }))
        .expect_status(201)
        .await;
    let key = created["key"].as_str().unwrap().to_string();
    assert!(key.len() >= 3 + 32, "at least 128 random bits");
    assert_eq!(created["environment"], "production");

    let (_, list) = app
        .dashboard_call(
            Method::GET,
            &format!("/v1/games/{game_id}/api-keys"),
            &token,
        )
        .await;
    let listed = &list["api_keys"][0];
    assert!(key.starts_with(listed["prefix"].as_str().unwrap()));
    assert!(
        !list.to_string().contains(&key),
        "the raw key is never listed"
    );

    let (status, config) = app.game_call(Method::GET, "/v1/config", &key).await;
    assert_eq!(status, 200, "{config}");
    assert_eq!(config["config"], json!({}));
    assert!(config["updated_at"].is_null());

    let key_id = created["key_id"].as_str().unwrap();
    app.revoke_key(&token, &game_id, key_id).await;
    let (status, body) = app.game_call(Method::GET, "/v1/config", &key).await;
    assert_eq!(status, 401);
    assert_eq!(body["error"], "Invalid API key");

    app.dashboard(
        Method::POST,
        &format!("/v1/games/{game_id}/api-keys"),
        &token,
    )
    .json(&json!({ "environment": "staging" }))
    .expect_status(400)
    .await;
}

#[tokio::test]
async fn game_routes_name_the_missing_header() {
    let app = spawn_app().await;
    let (status, body) = app.call(Method::GET, "/v1/config").await;
    assert_eq!(status, 401);
    assert!(
        body["error"].as_str().unwrap().contains("x-game-api-key"),
        "{body}"
    );

    let body = app
        .game(Method::GET, "/v1/config", "pt_not-a-real-key")
        .expect_status(401)
        .await;
    assert_eq!(body["error"], "Invalid API key");
}

#[tokio::test]
async fn deleting_a_game_kills_its_keys() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    assert_eq!(app.game_call(Method::GET, "/v1/config", &key).await.0, 200);
    app.dashboard(Method::DELETE, &format!("/v1/games/{game_id}"), &token)
        .expect_status(204)
        .await;
    assert_eq!(app.game_call(Method::GET, "/v1/config", &key).await.0, 401);
}
