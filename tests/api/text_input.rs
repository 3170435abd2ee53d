//! Text the stores cannot keep (issue 29): a NUL character made PostgreSQL fail with a 500 and
//! was stored as is on SQLite. Every body and query parameter is checked where it comes in, and
//! refused with a 400 naming the field, on both backends.
use crate::helpers::{spawn_app, Fetch, TestApp};
use reqwest::Method;
use serde_json::{json, Value};

async fn send(
    app: &TestApp,
    method: Method,
    path: &str,
    token: Option<&str>,
    body: Option<Value>,
) -> (u16, Value) {
    let mut request = app.dashboard_or_anonymous(method, path, token);
    if let Some(body) = body {
        request = request.json(&body);
    }
    request.fetch().await
}

/// What one case sends (method, path, token, body) and the field its 400 must name.
type Case<'a> = (
    &'a str,
    Method,
    String,
    Option<&'a str>,
    Option<Value>,
    &'a str,
);

#[tokio::test]
async fn nul_characters_are_refused_with_a_400_naming_the_field() {
    let app = spawn_app().await;
    let token = app.new_user().await;
    let game_id = app.create_game(&token).await;
    let games = format!("/v1/games/{game_id}");
    let cases: Vec<Case> = vec![
        (
            "login e-mail",
            Method::POST,
            "/v1/auth/login".into(),
            None,
            Some(json!({ "email": "a\u{0}@studio.test", "password": "whatever it is" })),
            "email",
        ),
        (
            "game name",
            Method::POST,
            "/v1/games".into(),
            Some(&token),
            Some(json!({ "name": "My\u{0}Game" })),
            "name",
        ),
        (
            "key name",
            Method::POST,
            format!("{games}/api-keys"),
            Some(&token),
            Some(json!({ "name": "k\u{0}", "environment": "development" })),
            "name",
        ),
        (
            "achievement name",
            Method::POST,
            format!("{games}/achievements"),
            Some(&token),
            Some(json!({ "key": "first", "name": "Fi\u{0}rst", "description": "d", "points": 1 })),
            "name",
        ),
        (
            "funnel name",
            Method::POST,
            format!("{games}/funnels"),
            Some(&token),
            Some(json!({ "name": "f\u{0}", "steps": ["a", "b"] })),
            "name",
        ),
        (
            "alert name",
            Method::POST,
            "/v1/alerts".into(),
            Some(&token),
            Some(
                json!({ "game_id": game_id, "name": "a\u{0}", "type": "crash_spike", "threshold": 2.0,
                      "comparison_window_hours": 24, "email": "ops@studio.test" }),
            ),
            "name",
        ),
        (
            "schema body",
            Method::PUT,
            format!("{games}/event-schemas/level_up"),
            Some(&token),
            Some(
                json!({ "type": "object", "properties": { "level": { "type": "integer", "description": "x\u{0}" } } }),
            ),
            "properties.level.description",
        ),
        (
            "invitation",
            Method::POST,
            format!("{games}/members"),
            Some(&token),
            Some(json!({ "email": "x\u{0}@studio.test", "role": "viewer" })),
            "email",
        ),
        (
            "metrics event_name",
            Method::GET,
            format!("{games}/metrics?metric=events&event_name=a%00b&bucket=day"),
            Some(&token),
            None,
            "event_name",
        ),
        (
            // Refused before routing: a route without parameters answers it too (and its
            // operation lists 400, which the contract check holds it to).
            "a query parameter no route reads",
            Method::GET,
            "/v1/games?note=a%00b".into(),
            Some(&token),
            None,
            "note",
        ),
    ];
    for (what, method, path, token, body, field) in cases {
        let (status, answer) = send(&app, method, &path, token, body).await;
        assert_eq!(status, 400, "{what}: {answer}");
        assert_eq!(answer["field"], field, "{what}: {answer}");
        assert_eq!(
            answer["error"],
            format!("{field} must not contain a NUL character"),
            "{what}"
        );
    }

    // Nothing of it was stored.
    let (_, listed) = app.dashboard_call(Method::GET, "/v1/games", &token).await;
    assert_eq!(listed["games"].as_array().unwrap().len(), 1);
}

/// Other text the stores cannot keep: a lone UTF-16 surrogate written as a JSON escape (no
/// UTF-8 can hold it) and bytes that are not UTF-8 at all. Each is a 400 with a JSON error, on
/// a dashboard route and on `/v1/track`, and nothing of it is stored.
#[tokio::test]
async fn lone_surrogates_and_invalid_utf8_are_refused_with_a_400() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let cases: [(&str, &str, Vec<u8>); 4] = [
        (
            "a lone surrogate",
            "/v1/games",
            br#"{"name": "My\ud800Game"}"#.to_vec(),
        ),
        (
            "bytes that are not UTF-8",
            "/v1/games",
            b"{\"name\": \"My\xff\xfeGame\"}".to_vec(),
        ),
        (
            "a lone surrogate",
            "/v1/track",
            br#"[{"event_name": "lvl\udc00"}]"#.to_vec(),
        ),
        (
            "bytes that are not UTF-8",
            "/v1/track",
            b"[{\"event_name\": \"lvl\xff\"}]".to_vec(),
        ),
    ];
    for (what, path, body) in cases {
        // Act
        let request = match path {
            "/v1/track" => app.game(Method::POST, path, &key),
            _ => app.dashboard(Method::POST, path, &token),
        };
        let (status, answer) = request
            .header("content-type", "application/json")
            .body(body)
            .fetch()
            .await;

        // Assert
        assert_eq!(status, 400, "{what} on {path}: {answer}");
        assert!(answer["error"].is_string(), "{what} on {path}: {answer}");
    }
    let (_, listed) = app.dashboard_call(Method::GET, "/v1/games", &token).await;
    assert_eq!(listed["games"].as_array().unwrap().len(), 1, "{listed}");
    let (_, events) = app
        .dashboard_call(Method::GET, &format!("/v1/games/{game_id}/events"), &token)
        .await;
    assert_eq!(events["events"].as_array().unwrap().len(), 0, "{events}");
}
