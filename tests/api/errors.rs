//! Every error is JSON with `error`, framework errors included.
use crate::helpers::{spawn_app, Fetch};
use reqwest::Method;
use serde_json::json;

#[tokio::test]
async fn unknown_routes_and_wrong_methods_answer_json() {
    let app = spawn_app().await;
    let (status, body) = app.call(Method::GET, "/v1/nothing-here").await;
    assert_eq!(status, 404);
    assert!(body["error"].is_string(), "{body}");

    let (status, body) = app.call(Method::DELETE, "/v1/auth/login").await;
    assert_eq!(status, 405);
    assert!(body["error"].is_string(), "{body}");
}

#[tokio::test]
async fn bad_bodies_are_refused_with_json_errors() {
    let app = spawn_app().await;
    let cases: Vec<(&str, reqwest::RequestBuilder, u16)> = vec![
        (
            "malformed JSON",
            app.request(Method::POST, "/v1/auth/register")
                .header("content-type", "application/json")
                .body("{\"email\": "),
            400,
        ),
        (
            "missing field",
            app.request(Method::POST, "/v1/auth/register")
                .json(&json!({ "email": "a@b.test" })),
            400,
        ),
        (
            "unknown field",
            app.request(Method::POST, "/v1/auth/register")
                .json(&json!({ "email": "a@b.test", "password": "long enough", "admin": true })),
            400,
        ),
        (
            "wrong type",
            app.request(Method::POST, "/v1/auth/register")
                .json(&json!({ "email": 5, "password": "long enough" })),
            400,
        ),
        (
            "wrong content type",
            app.request(Method::POST, "/v1/auth/register")
                .header("content-type", "text/plain")
                .body("hello"),
            415,
        ),
        (
            "oversized body",
            app.request(Method::POST, "/v1/auth/register")
                .header("content-type", "application/json")
                .body(format!(
                    "{{\"email\": \"{}\"}}",
                    "a".repeat(2 * 1024 * 1024)
                )),
            413,
        ),
    ];
    for (case, request, expected) in cases {
        let (status, body) = request.fetch().await;
        assert_eq!(status, expected, "{case}: {body}");
        assert!(body["error"].is_string(), "{case}: {body}");
    }
}

#[tokio::test]
async fn invalid_path_ids_are_bad_requests() {
    let app = spawn_app().await;
    let token = app.new_user().await;
    let (status, body) = app
        .dashboard_call(Method::GET, "/v1/games/not-a-uuid", &token)
        .await;
    assert_eq!(status, 400, "{body}");
    assert!(body["error"].is_string());
}

/// One player-id rule on every player-scoped route: an id one feature refuses, every other
/// refuses with the same words, and an id one accepts, none refuses.
#[tokio::test]
async fn every_player_scoped_route_applies_the_same_player_id_rule() {
    let app = spawn_app().await;
    let (_token, _game_id, key) = app.game_with_key().await;
    let send = |player: &'static str| {
        let app = &app;
        let key = key.clone();
        async move {
            let encoded = player.replace(' ', "%20").replace('/', "%2F");
            let routes = [
                (
                    Method::POST,
                    "/v1/leaderboards".to_string(),
                    json!({ "board_name": "arena", "player_id": player, "score": 1 }),
                ),
                (
                    Method::POST,
                    "/v1/achievements/unlock".to_string(),
                    json!({ "achievement_key": "none-yet", "player_id": player }),
                ),
                (
                    Method::POST,
                    "/v1/activity".to_string(),
                    json!({ "player_id": player, "activity": "In the lobby" }),
                ),
                (
                    Method::PUT,
                    format!("/v1/saves/{encoded}/slot1"),
                    json!({ "data": { "level": 1 }, "version": 0 }),
                ),
            ];
            let mut answers = Vec::new();
            for (method, path, body) in routes {
                answers.push((path.clone(), app.game_json(method, &path, &key, body).await));
            }
            answers
        }
    };
    for refused in ["a b", "Zoë", "a/b", "...", "x".repeat(129).leak()] {
        for (path, (status, body)) in send(refused).await {
            assert_eq!(status, 400, "{path} {refused:?}: {body}");
            assert_eq!(
                body["error"],
                "player_id must be 1 to 128 characters: letters, digits and _ - . : @ |",
                "{path} {refused:?}"
            );
        }
    }
    for accepted in ["steam:76561198000000000", "auth0|abc", "ana@example.com"] {
        for (path, (status, body)) in send(accepted).await {
            assert_ne!(status, 400, "{path} {accepted:?}: {body}");
        }
    }
}
