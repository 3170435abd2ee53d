//! Error texts a person can act on (issue 27): each names the field or parameter at fault and
//! says what it must be, in words rather than a parser's internals.
use crate::helpers::{spawn_app, spawn_app_with, Fetch};
use reqwest::Method;
use serde_json::{json, Value};

#[tokio::test]
async fn a_malformed_parameter_is_named_with_what_it_must_be() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let game_cases = [
        (
            "/v1/leaderboards/arena?limit=abc",
            "limit",
            "limit must be an integer",
        ),
        (
            "/v1/leaderboards/arena?offset=1.5",
            "offset",
            "offset must be an integer",
        ),
    ];
    for (path, field, message) in game_cases {
        let (status, error) = app.game_call(Method::GET, path, &key).await;
        assert_eq!(status, 400, "{path}: {error}");
        assert_eq!(error["error"], message, "{path}");
        assert_eq!(error["field"], field, "{path}");
    }
    let dashboard_cases = [
        (
            format!("/v1/alerts/history?game_id={game_id}&limit=many"),
            "limit",
            "limit must be an integer",
        ),
        (
            "/v1/alerts?game_id=not-a-game".to_string(),
            "game_id",
            "game_id must be a UUID",
        ),
        ("/v1/alerts".to_string(), "game_id", "game_id is required"),
        (
            "/v1/games/not-a-uuid".to_string(),
            "game_id",
            "game_id must be a UUID",
        ),
        (
            format!("/v1/games/{game_id}/audit?limit=-1"),
            "limit",
            "limit must be an integer of 0 or more",
        ),
        (
            format!("/v1/games/{game_id}/events/export?event_name=a&gzip=yes"),
            "gzip",
            "gzip must be true or false",
        ),
    ];
    for (path, field, message) in dashboard_cases {
        let (status, error) = app.dashboard_call(Method::GET, &path, &token).await;
        assert_eq!(status, 400, "{path}: {error}");
        assert_eq!(error["error"], message, "{path}");
        assert_eq!(error["field"], field, "{path}");
    }
}

/// Every `/v1/track` refusal about one field names it: the interface's texts stay as they are,
/// `field` is added (written as every other 400 writes a path into the body).
#[tokio::test]
async fn track_errors_name_the_field() {
    let app = spawn_app().await;
    let (_, _, key) = app.game_with_key().await;
    let cases = [
        (
            json!({ "session_id": "s" }),
            "event_name",
            "event_name is required",
        ),
        (
            json!({ "event_name": "", "session_id": "s" }),
            "event_name",
            "event_name must be 1 to 128 characters",
        ),
        (
            json!({ "event_name": "a", "session_id": "s", "colour": "red" }),
            "colour",
            "unknown field colour (allowed: event_name, session_id, player_id, properties, client_timestamp, event_id)",
        ),
        (
            json!({ "event_name": "a", "session_id": "s", "properties": 5 }),
            "properties",
            "properties must be an object",
        ),
        (
            json!({ "event_name": "a", "session_id": "s", "client_timestamp": "today" }),
            "client_timestamp",
            "client_timestamp must be an ISO 8601 timestamp, e.g. 2026-11-21T10:00:00Z",
        ),
        (
            json!({ "event_name": "a", "session_id": "s", "player_id": "x".repeat(129) }),
            "player_id",
            "player_id must be 1 to 128 characters",
        ),
        (
            json!([{ "event_name": "a", "session_id": "s" }, { "event_name": "b", "session_id": 5 }]),
            "[1].session_id",
            "events[1]: session_id must be a string",
        ),
        (
            json!([{ "event_name": "a", "session_id": "s" }, 7]),
            "[1]",
            "events[1]: an event must be a JSON object",
        ),
    ];
    for (body, field, message) in cases {
        let (status, error) = app.game_json(Method::POST, "/v1/track", &key, body).await;
        assert_eq!(status, 400, "{field}: {error}");
        assert_eq!(error["error"], message, "{field}");
        assert_eq!(error["field"], field, "{message}");
    }
}

/// A body that is valid JSON in another form, or compressed, is told apart from one that is
/// not JSON at all.
#[tokio::test]
async fn compressed_and_deeply_nested_bodies_have_their_own_answers() {
    let app = spawn_app().await;
    let (token, _, key) = app.game_with_key().await;
    // A gzip stream's first bytes (magic, method, flags, ...).
    let gzip = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3];
    let sent = |encoding: Option<&str>, body: Vec<u8>| {
        let mut request = app
            .game(Method::POST, "/v1/track", &key)
            .header("content-type", "application/json");
        if let Some(encoding) = encoding {
            request = request.header("content-encoding", encoding);
        }
        request.body(body)
    };

    let (status, error) = sent(Some("gzip"), gzip.clone()).fetch().await;
    assert_eq!(status, 415, "{error}");
    assert_eq!(
        error["error"],
        "Content-Encoding gzip is not supported: send the body uncompressed"
    );

    let (status, error) = sent(None, gzip).fetch().await;
    assert_eq!(status, 400, "{error}");
    assert_eq!(
        error["error"],
        "the body is gzip-compressed data, not JSON: send it uncompressed"
    );

    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    let (status, error) = sent(None, deep.clone().into_bytes()).fetch().await;
    assert_eq!(status, 400, "{error}");
    assert_eq!(
        error["error"],
        "the body is nested too deeply: at most 128 levels of arrays and objects"
    );
    let (status, error) = app
        .dashboard(Method::POST, "/v1/games", &token)
        .header("content-type", "application/json")
        .body(format!("{{\"name\": {deep}}}"))
        .fetch()
        .await;
    assert_eq!(status, 400, "{error}");
    assert_eq!(
        error["error"],
        "the body is nested too deeply: at most 128 levels of arrays and objects"
    );

    // Broken JSON is still said to be so.
    let (status, error) = sent(None, b"{\"event_name\": ".to_vec()).fetch().await;
    assert_eq!(status, 400, "{error}");
    let message = error["error"].as_str().unwrap_or_default();
    assert!(message.starts_with("the body is not valid JSON"), "{error}");
}

/// A NUL in a path segment names the route's parameter, as one in a query or body does.
#[tokio::test]
async fn a_nul_in_the_path_names_the_path_parameter() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let (status, error) = app
        .game_call(Method::GET, "/v1/saves/a%00b/slot1", &key)
        .await;
    assert_eq!(status, 400, "{error}");
    assert_eq!(error["error"], "player_id must not contain a NUL character");
    assert_eq!(error["field"], "player_id");

    let (status, error) = app
        .game_call(Method::GET, "/v1/saves/p1/slot%00", &key)
        .await;
    assert_eq!(status, 400, "{error}");
    assert_eq!(error["field"], "slot", "{error}");

    let path = format!("/v1/games/{game_id}/leaderboards/a%00b/entries");
    let (status, error) = app.dashboard_call(Method::GET, &path, &token).await;
    assert_eq!(status, 400, "{error}");
    assert_eq!(error["field"], "board_name", "{error}");
}

fn rule(game_id: &str, webhook: &str) -> Value {
    json!({ "game_id": game_id, "name": "Crashes", "type": "crash_spike", "threshold": 2.0,
            "comparison_window_hours": 24, "email": "ops@studio.test",
            "discord_webhook_url": webhook })
}

/// The webhook errors use the dashboard form's label, and a private address says how an
/// operator allows it.
#[tokio::test]
async fn webhook_errors_use_the_form_label_and_name_the_switch() {
    let app = spawn_app().await;
    let token = app.new_user().await;
    let game_id = app.create_game(&token).await;

    let (status, error) = app
        .dashboard_json(
            Method::POST,
            "/v1/alerts",
            &token,
            rule(&game_id, "ftp://hooks.example.com/x"),
        )
        .await;
    assert_eq!(status, 400, "{error}");
    assert_eq!(error["error"], "Webhook URL must be an http or https URL");
    assert_eq!(error["field"], "discord_webhook_url");

    let (status, error) = app
        .dashboard_json(
            Method::POST,
            "/v1/alerts",
            &token,
            rule(&game_id, "http://127.0.0.1:9/hook"),
        )
        .await;
    assert_eq!(status, 400, "{error}");
    let message = error["error"].as_str().unwrap_or_default();
    assert!(message.starts_with("Webhook URL "), "{error}");
    assert!(message.contains("private"), "{error}");
    assert!(message.contains("--allow-private-webhooks"), "{error}");
    assert_eq!(error["field"], "discord_webhook_url");

    // Allowed where the operator said so.
    let open = spawn_app_with(|settings| settings.allow_private_webhooks = true).await;
    let token = open.new_user().await;
    let game_id = open.create_game(&token).await;
    let (status, error) = open
        .dashboard_json(
            Method::POST,
            "/v1/alerts",
            &token,
            rule(&game_id, "http://127.0.0.1:9/hook"),
        )
        .await;
    assert_eq!(status, 201, "{error}");
}

/// A node that cannot listen says on which address, and how to choose another.
#[tokio::test]
async fn an_address_in_use_is_named_with_how_to_choose_another() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap().to_string();
    let backend = crate::helpers::Backend::fresh().await;
    let mut settings = backend.settings();
    settings.listen = address.clone();
    let error = match playtrace::app::Application::build(settings).await {
        Ok(_) => panic!("{address} was free"),
        Err(error) => format!("{error:#}"),
    };
    assert!(error.contains(&address), "{error}");
    assert!(error.contains("already in use"), "{error}");
    assert!(error.contains("--listen"), "{error}");
    assert!(error.contains("PLAYTRACE_LISTEN"), "{error}");
}
