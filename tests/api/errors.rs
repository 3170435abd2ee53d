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
