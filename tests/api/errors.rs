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
    let body = app
        .dashboard(Method::GET, "/v1/games/not-a-uuid", &token)
        .expect_status(400)
        .await;
    assert!(body["error"].is_string());
}

/// One player-id rule on every player-scoped route (issue 27): an id one route refuses, every
/// other refuses with the same words, and an id one accepts (any text of 1 to 128 characters
/// but NUL: `/v1/track`'s rule), none refuses.
#[tokio::test]
async fn every_player_scoped_route_applies_the_same_player_id_rule() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let send = |player: String| {
        let (app, key, token, game_id) = (&app, key.clone(), token.clone(), game_id.clone());
        async move {
            let encoded: String = player
                .bytes()
                .map(|byte| match byte {
                    b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' => {
                        (byte as char).to_string()
                    }
                    _ => format!("%{byte:02X}"),
                })
                .collect();
            let writes = [
                (
                    Method::POST,
                    "/v1/track".to_string(),
                    json!({ "event_name": "a", "session_id": "s", "player_id": player }),
                ),
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
            for (method, path, body) in writes {
                answers.push((path.clone(), app.game_json(method, &path, &key, body).await));
            }
            for path in [
                format!("/v1/saves/{encoded}"),
                format!("/v1/presence/{encoded}"),
                format!("/v1/achievements?player_id={encoded}"),
                format!("/v1/leaderboards/arena/players/{encoded}"),
            ] {
                answers.push((path.clone(), app.game_call(Method::GET, &path, &key).await));
            }
            for path in [
                format!("/v1/games/{game_id}/players/{encoded}/data"),
                format!("/v1/games/{game_id}/saves/{encoded}"),
                format!("/v1/games/{game_id}/events?player_id={encoded}"),
            ] {
                answers.push((
                    path.clone(),
                    app.dashboard_call(Method::GET, &path, &token).await,
                ));
            }
            answers
        }
    };
    for (refused, error) in [
        ("x".repeat(129), "player_id must be 1 to 128 characters"),
        (
            "a\u{0}b".to_string(),
            "player_id must not contain a NUL character",
        ),
    ] {
        for (path, (status, body)) in send(refused.clone()).await {
            assert_eq!(status, 400, "{path} {refused:?}: {body}");
            assert_eq!(body["error"], error, "{path} {refused:?}");
        }
    }
    for accepted in [
        "steam:76561198000000000",
        "auth0|abc",
        "ana@example.com",
        "Zoë",
        "a b",
        "a/b",
        "...",
        "玩家 7",
        &"ë".repeat(128),
    ] {
        for (path, (status, body)) in send(accepted.to_string()).await {
            assert_ne!(status, 400, "{path} {accepted:?}: {body}");
        }
    }
}

/// A body that does not parse is answered with the field at fault and what is wrong with it, on
/// every route with a JSON body, dashboard and game side alike, nested fields included.
#[tokio::test]
async fn validation_errors_name_the_field_and_the_problem() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let achievements = format!("/v1/games/{game_id}/achievements");
    let dashboard_cases = [
        (
            Method::POST,
            achievements.clone(),
            json!({ "key": "a", "name": "A", "points": 5 }),
            "description",
            "description is required",
        ),
        (
            Method::POST,
            achievements.clone(),
            json!({ "key": "a", "name": "A", "description": null, "points": 5 }),
            "description",
            "description must be a string",
        ),
        (
            Method::POST,
            achievements.clone(),
            json!({ "key": "a", "name": "A", "description": "", "points": "ten" }),
            "points",
            "points must be an integer",
        ),
        (
            Method::POST,
            achievements,
            json!({ "key": "a", "name": "A", "description": "", "points": 1, "colour": "red" }),
            "colour",
            "unknown field colour",
        ),
        (
            Method::POST,
            format!("/v1/games/{game_id}/funnels"),
            json!({ "name": "f", "steps": ["a", {}] }),
            "steps[1]",
            "steps[1] must be a string",
        ),
        (
            Method::POST,
            "/v1/alerts".to_string(),
            json!({ "game_id": game_id, "name": "x", "type": "crash_spike", "threshold": "high" }),
            "threshold",
            "threshold must be a number",
        ),
        (
            Method::PATCH,
            format!("/v1/games/{game_id}"),
            json!({ "key_reads": "yes" }),
            "key_reads",
            "key_reads must be true or false or null",
        ),
    ];
    for (method, path, body, field, message) in dashboard_cases {
        let (status, error) = app.dashboard_json(method, &path, &token, body).await;
        assert_eq!(status, 400, "{path}: {error}");
        assert_eq!(error["field"], field, "{path}: {error}");
        assert_eq!(error["error"], message, "{path}: {error}");
    }

    let game_cases = [
        (
            Method::PUT,
            "/v1/saves/p1/slot".to_string(),
            json!({ "data": {}, "version": "first" }),
            "version",
            "version must be an integer",
        ),
        (
            Method::POST,
            "/v1/leaderboards".to_string(),
            json!({ "board_name": "b", "player_id": "p1", "player_name": "P" }),
            "score",
            "score is required",
        ),
    ];
    for (method, path, body, field, message) in game_cases {
        let (status, error) = app.game_json(method, &path, &key, body).await;
        assert_eq!(status, 400, "{path}: {error}");
        assert_eq!(error["field"], field, "{path}: {error}");
        assert_eq!(error["error"], message, "{path}: {error}");
    }

    // Not JSON at all: said so, with where the parser stopped.
    let (status, error) = app
        .dashboard(Method::POST, "/v1/games", &token)
        .header("content-type", "application/json")
        .body("{\"name\": ")
        .fetch()
        .await;
    assert_eq!(status, 400);
    let message = error["error"].as_str().unwrap_or_default();
    assert!(message.starts_with("the body is not valid JSON"), "{error}");

    // Nothing of a refused request was stored.
    let (_, list) = app
        .dashboard_call(
            Method::GET,
            &format!("/v1/games/{game_id}/achievements"),
            &token,
        )
        .await;
    assert_eq!(
        list["achievements"].as_array().map(Vec::len),
        Some(0),
        "{list}"
    );
}

/// A streamed (chunked) body over 1 MiB is refused with 413 like an announced one.
#[tokio::test]
async fn a_streamed_body_over_the_cap_is_413() {
    let app = spawn_app().await;
    let token = app.new_user().await;
    let chunks: Vec<Result<bytes::Bytes, std::io::Error>> = (0..17)
        .map(|_| Ok(bytes::Bytes::from(vec![b' '; 64 * 1024])))
        .collect();
    let (status, error) = app
        .dashboard(Method::POST, "/v1/games", &token)
        .header("content-type", "application/json")
        .body(reqwest::Body::wrap_stream(futures_util::stream::iter(
            chunks,
        )))
        .fetch()
        .await;
    assert_eq!(status, 413, "{error}");
    assert!(error["error"].is_string(), "{error}");
}
