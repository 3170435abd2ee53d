//! Black-box tests of remote config: values set in the dashboard (`/v1/games/{id}/config`) and
//! served to the game (`GET /v1/config`) with an ETag for polling, on every node.
use crate::{
    helpers::{read, spawn_app, spawn_on, Fetch, TestApp},
    nodes::{holds_within_a_second, two_nodes_with_a_game},
};
use reqwest::{header, Method};
use serde_json::{json, Value};
use uuid::Uuid;

async fn put_config(app: &TestApp, token: &str, game_id: &str, body: Value) -> (u16, Value) {
    app.dashboard_json(
        Method::PUT,
        &format!("/v1/games/{game_id}/config"),
        token,
        body.clone(),
    )
    .await
}

/// `GET /v1/config`: status, ETag and JSON body.
async fn game_config(
    app: &TestApp,
    key: &str,
    if_none_match: Option<&str>,
) -> (u16, String, Value) {
    let mut request = app.game(Method::GET, "/v1/config", key);
    if let Some(tag) = if_none_match {
        request = request.header(header::IF_NONE_MATCH, tag);
    }
    let response = request.send().await.unwrap();
    let etag = response
        .headers()
        .get(header::ETAG)
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    let (status, body) = read(response).await;
    (status, etag, body)
}

#[tokio::test]
async fn config_set_in_the_dashboard_reaches_the_game() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;

    let (status, empty_tag, body) = game_config(&app, &key, None).await;
    assert_eq!(status, 200);
    assert_eq!(body, json!({ "config": {}, "updated_at": null }));
    assert!(
        empty_tag.starts_with('"') && empty_tag.ends_with('"'),
        "a strong ETag: {empty_tag}"
    );
    let body = app
        .dashboard(Method::GET, &format!("/v1/games/{game_id}/config"), &token)
        .expect_status(200)
        .await;
    assert_eq!(body, json!({ "values": {}, "updated_at": null }));

    let values = json!({ "difficulty": "hard", "spawn_rate": 1.5, "events": ["halloween"], "shop": { "open": true } });
    let (status, saved) = put_config(&app, &token, &game_id, json!({ "values": values })).await;
    assert_eq!(status, 200, "{saved}");
    assert_eq!(saved["values"], values);
    let updated_at = saved["updated_at"].as_str().unwrap().to_string();
    assert!(updated_at.ends_with('Z'));

    let (_, read_back) = app
        .dashboard_call(Method::GET, &format!("/v1/games/{game_id}/config"), &token)
        .await;
    assert_eq!(
        read_back,
        json!({ "values": values, "updated_at": updated_at })
    );

    let (status, tag, body) = game_config(&app, &key, None).await;
    assert_eq!(status, 200);
    assert_eq!(
        body,
        json!({ "config": values, "updated_at": updated_at }),
        "the node that took the change serves it at once"
    );
    assert_ne!(tag, empty_tag);

    // A production key of the same game reads the same config; another game's key does not.
    let production = app.create_key(&token, &game_id, "production").await;
    assert_eq!(
        game_config(&app, &production, None).await.2["config"],
        values
    );
    let (_, _, other_key) = app.game_with_key().await;
    assert_eq!(
        game_config(&app, &other_key, None).await.2["config"],
        json!({})
    );

    // A PUT replaces the whole object.
    let (status, _) = put_config(
        &app,
        &token,
        &game_id,
        json!({ "values": { "difficulty": "easy" } }),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(
        game_config(&app, &key, None).await.2["config"],
        json!({ "difficulty": "easy" })
    );
}

#[tokio::test]
async fn config_polling_with_if_none_match_answers_304_until_it_changes() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    put_config(
        &app,
        &token,
        &game_id,
        json!({ "values": { "motd": "hello" } }),
    )
    .await;
    let (_, tag, _) = game_config(&app, &key, None).await;

    let unchanged = [
        ("the same tag", tag.clone()),
        ("the weak form", format!("W/{tag}")),
        ("one of a list", format!("\"stale\", {tag}")),
        ("any", "*".to_string()),
    ];
    for (case, if_none_match) in unchanged {
        let response = app
            .game(Method::GET, "/v1/config", &key)
            .header(header::IF_NONE_MATCH, &if_none_match)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 304, "{case}");
        assert_eq!(
            response.headers()[header::ETAG],
            tag.as_str(),
            "{case}: a 304 names the tag"
        );
        assert!(
            response.headers()[header::CACHE_CONTROL]
                .to_str()
                .unwrap()
                .contains("no-cache"),
            "{case}"
        );
        assert!(
            response.text().await.unwrap().is_empty(),
            "{case}: a 304 has no body"
        );
    }
    let (status, same_tag, body) = game_config(&app, &key, Some("\"something-else\"")).await;
    assert_eq!(status, 200);
    assert_eq!(same_tag, tag);
    assert_eq!(body["config"]["motd"], "hello");

    put_config(
        &app,
        &token,
        &game_id,
        json!({ "values": { "motd": "patch day" } }),
    )
    .await;
    let (status, new_tag, body) = game_config(&app, &key, Some(&tag)).await;
    assert_eq!(status, 200, "a change breaks the old tag");
    assert_ne!(new_tag, tag);
    assert_eq!(body["config"]["motd"], "patch day");
    assert_eq!(game_config(&app, &key, Some(&new_tag)).await.0, 304);
}

#[tokio::test]
async fn config_changes_reach_other_nodes_within_a_second() {
    let node_a = spawn_app().await;
    let node_b = spawn_on(node_a.backend.clone(), |_| {}).await;
    let (token, game_id, key) = node_a.game_with_key().await;

    let (_, old_tag, before) = game_config(&node_b, &key, None).await; // node B now holds it
    assert_eq!(before["config"], json!({}));
    put_config(
        &node_a,
        &token,
        &game_id,
        json!({ "values": { "gravity": 9.8 } }),
    )
    .await;
    assert_eq!(
        game_config(&node_a, &key, None).await.2["config"],
        json!({ "gravity": 9.8 })
    );

    node_b.clock.advance(chrono::Duration::milliseconds(1100));
    let (status, _, after) = game_config(&node_b, &key, Some(&old_tag)).await;
    assert_eq!(status, 200, "node B stops serving its copy after a second");
    assert_eq!(after["config"], json!({ "gravity": 9.8 }));
}

#[tokio::test]
async fn config_writes_refuse_bad_values() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let big = "x".repeat(256 * 1024);
    let cases = [
        ("values is an array", json!({ "values": [1, 2] }), 400),
        ("values is a string", json!({ "values": "on" }), 400),
        ("values is null", json!({ "values": null }), 400),
        ("values missing", json!({}), 400),
        ("unknown field", json!({ "values": {}, "extra": 1 }), 400),
        ("body is not an object", json!([{ "values": {} }]), 400),
        ("over 256 KiB", json!({ "values": { "blob": big } }), 413),
    ];
    for (case, body, expected) in cases {
        let (status, answer) = put_config(&app, &token, &game_id, body).await;
        assert_eq!(status, expected, "{case}: {answer}");
        assert!(answer["error"].is_string(), "{case}: {answer}");
    }
    let (status, answer) =
        put_config(&app, &token, &game_id, json!({ "values": { "blob": big } })).await;
    assert_eq!(status, 413);
    assert_eq!(answer["limit"], 256 * 1024);
    assert_eq!(answer["received"], big.len() + r#"{"blob":""}"#.len());

    let (status, answer) = app
        .dashboard(Method::PUT, &format!("/v1/games/{game_id}/config"), &token)
        .header("content-type", "application/json")
        .body("{\"values\": {")
        .fetch()
        .await;
    assert_eq!(status, 400, "malformed JSON: {answer}");
    assert_eq!(
        game_config(&app, &key, None).await.2,
        json!({ "config": {}, "updated_at": null }),
        "nothing was stored"
    );
}

#[tokio::test]
async fn config_access_follows_roles_and_tenants() {
    let app = spawn_app().await;
    let _admin = app.new_user().await;
    let (owner, game_id, _) = app.game_with_key().await;
    let (viewer, _) = app.new_member(&owner, &game_id, "viewer").await;
    let (editor, _) = app.new_member(&owner, &game_id, "editor").await;
    let stranger = app.new_user().await;
    let path = format!("/v1/games/{game_id}/config");
    let unknown = format!("/v1/games/{}/config", Uuid::now_v7());
    let body = json!({ "values": { "a": 1 } });

    let cases = [
        ("viewer reads", Method::GET, &path, Some(&viewer), 200),
        ("viewer writes", Method::PUT, &path, Some(&viewer), 403),
        ("editor writes", Method::PUT, &path, Some(&editor), 200),
        ("owner writes", Method::PUT, &path, Some(&owner), 200),
        ("stranger reads", Method::GET, &path, Some(&stranger), 403),
        ("stranger writes", Method::PUT, &path, Some(&stranger), 403),
        ("unknown game", Method::GET, &unknown, Some(&owner), 403),
        ("no token", Method::GET, &path, None, 401),
    ];
    for (case, method, path, token, expected) in cases {
        let mut request =
            app.dashboard_or_anonymous(method.clone(), path, token.map(String::as_str));
        if method == Method::PUT {
            request = request.json(&body);
        }
        let (status, answer) = request.fetch().await;
        assert_eq!(status, expected, "{case}: {answer}");
        assert!(
            status == 200 || answer["error"].is_string(),
            "{case}: {answer}"
        );
    }
}

#[tokio::test]
async fn remote_config_set_on_one_node_is_served_by_the_other_within_a_second() {
    let Some((first, second, (token, game_id, key))) = two_nodes_with_a_game().await else {
        return;
    };
    let set = |version: u32| {
        put_config(
            &first,
            &token,
            &game_id,
            json!({ "values": { "version": version } }),
        )
    };
    assert_eq!(set(1).await.0, 200);
    let (status, _, body) = game_config(&second, &key, None).await;
    assert_eq!((status, body["config"]["version"].clone()), (200, json!(1)));

    assert_eq!(set(2).await.0, 200);

    holds_within_a_second("config version 2", || async {
        game_config(&second, &key, None).await.2["config"]["version"] == 2
    })
    .await;
}
