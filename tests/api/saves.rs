//! Black-box tests of remote config (dashboard and `GET /v1/config`) and cloud saves (game side
//! and dashboard), on whichever backend the suite runs.
use crate::helpers::{read, spawn_app, spawn_on, TestApp};
use reqwest::{header, Method};
use serde_json::{json, Value};
use uuid::Uuid;

const MIB: usize = 1024 * 1024;

// ---------------------------------------------------------------------------------------------
// Remote config
// ---------------------------------------------------------------------------------------------

async fn put_config(app: &TestApp, token: &str, game_id: &str, body: Value) -> (u16, Value) {
    read(
        app.dashboard(Method::PUT, &format!("/v1/games/{game_id}/config"), token)
            .json(&body)
            .send()
            .await
            .unwrap(),
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
    let (status, body) = read(
        app.dashboard(Method::GET, &format!("/v1/games/{game_id}/config"), &token)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(body, json!({ "values": {}, "updated_at": null }));

    let values = json!({ "difficulty": "hard", "spawn_rate": 1.5, "events": ["halloween"], "shop": { "open": true } });
    let (status, saved) = put_config(&app, &token, &game_id, json!({ "values": values })).await;
    assert_eq!(status, 200, "{saved}");
    assert_eq!(saved["values"], values);
    let updated_at = saved["updated_at"].as_str().unwrap().to_string();
    assert!(updated_at.ends_with('Z'));

    let (_, read_back) = read(
        app.dashboard(Method::GET, &format!("/v1/games/{game_id}/config"), &token)
            .send()
            .await
            .unwrap(),
    )
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

    let (status, answer) = read(
        app.dashboard(Method::PUT, &format!("/v1/games/{game_id}/config"), &token)
            .header("content-type", "application/json")
            .body("{\"values\": {")
            .send()
            .await
            .unwrap(),
    )
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
        let mut request = app.request(method.clone(), path);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if method == Method::PUT {
            request = request.json(&body);
        }
        let (status, answer) = read(request.send().await.unwrap()).await;
        assert_eq!(status, expected, "{case}: {answer}");
        assert!(
            status == 200 || answer["error"].is_string(),
            "{case}: {answer}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Cloud saves
// ---------------------------------------------------------------------------------------------

async fn put_save(
    app: &TestApp,
    key: &str,
    player: &str,
    slot: &str,
    body: &Value,
) -> (u16, Value) {
    read(
        app.game(Method::PUT, &format!("/v1/saves/{player}/{slot}"), key)
            .json(body)
            .send()
            .await
            .unwrap(),
    )
    .await
}

async fn get_save(app: &TestApp, key: &str, player: &str, slot: &str) -> (u16, Value) {
    read(
        app.game(Method::GET, &format!("/v1/saves/{player}/{slot}"), key)
            .send()
            .await
            .unwrap(),
    )
    .await
}

#[tokio::test]
async fn a_save_is_created_read_replaced_listed_and_deleted() {
    let app = spawn_app().await;
    let (_, _, key) = app.game_with_key().await;
    let progress = json!({ "level": 3, "inventory": ["sword", { "potion": 2 }], "gold": 120.5, "name": "Ünïcode ✓" });

    let (status, created) = put_save(
        &app,
        &key,
        "steam:7656119",
        "slot-1",
        &json!({ "data": progress, "version": 0 }),
    )
    .await;
    assert_eq!(status, 200, "{created}");
    assert_eq!(created["slot"], "slot-1");
    assert_eq!(created["version"], 1);
    let (status, save) = get_save(&app, &key, "steam:7656119", "slot-1").await;
    assert_eq!(status, 200);
    assert_eq!(
        save,
        json!({ "slot": "slot-1", "version": 1, "data": progress, "updated_at": created["updated_at"] })
    );

    app.clock.advance(chrono::Duration::minutes(1));
    let later = json!({ "level": 4 });
    let (status, replaced) = put_save(
        &app,
        &key,
        "steam:7656119",
        "slot-1",
        &json!({ "data": later, "version": 1 }),
    )
    .await;
    assert_eq!(status, 200, "{replaced}");
    assert_eq!(replaced["version"], 2);
    assert_ne!(replaced["updated_at"], created["updated_at"]);
    assert_eq!(
        get_save(&app, &key, "steam:7656119", "slot-1").await.1["data"],
        later
    );

    // Any JSON value but null is a save.
    for (slot, data) in [
        ("text", json!("plain")),
        ("number", json!(42)),
        ("list", json!([1, 2, 3])),
    ] {
        let (status, answer) = put_save(
            &app,
            &key,
            "steam:7656119",
            slot,
            &json!({ "data": data, "version": 0 }),
        )
        .await;
        assert_eq!(status, 200, "{slot}: {answer}");
        assert_eq!(
            get_save(&app, &key, "steam:7656119", slot).await.1["data"],
            data,
            "{slot}"
        );
    }

    let (status, list) = read(
        app.game(Method::GET, "/v1/saves/steam:7656119", &key)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["player_id"], "steam:7656119");
    let slots: Vec<&str> = list["saves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["slot"].as_str().unwrap())
        .collect();
    assert_eq!(
        slots,
        ["list", "number", "slot-1", "text"],
        "listed by name"
    );
    let first = list["saves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["slot"] == "slot-1")
        .unwrap();
    assert_eq!(first["version"], 2);
    assert_eq!(first["size_bytes"], later.to_string().len());
    assert_eq!(first["updated_at"], replaced["updated_at"]);
    assert!(first.get("data").is_none(), "listings leave the data out");

    let (status, _) = read(
        app.game(Method::DELETE, "/v1/saves/steam:7656119/slot-1", &key)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 204);
    let (status, body) = get_save(&app, &key, "steam:7656119", "slot-1").await;
    assert_eq!(status, 404);
    assert!(body["error"].is_string());
    let (status, body) = read(
        app.game(Method::DELETE, "/v1/saves/steam:7656119/slot-1", &key)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 404, "deleting an absent slot: {body}");
    let (_, list) = read(
        app.game(Method::GET, "/v1/saves/steam:7656119", &key)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(list["saves"].as_array().unwrap().len(), 3);
    let (status, list) = read(
        app.game(Method::GET, "/v1/saves/nobody", &key)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        (status, list),
        (200, json!({ "player_id": "nobody", "saves": [] }))
    );

    // A deleted slot can be created again from version 0.
    let (status, again) = put_save(
        &app,
        &key,
        "steam:7656119",
        "slot-1",
        &json!({ "data": {}, "version": 0 }),
    )
    .await;
    assert_eq!((status, again["version"].clone()), (200, json!(1)));
}

#[tokio::test]
async fn writes_from_a_stale_version_are_refused_with_the_stored_version() {
    let app = spawn_app().await;
    let (_, _, key) = app.game_with_key().await;
    let write = |data: Value, version: i64| json!({ "data": data, "version": version });

    let (status, body) = put_save(&app, &key, "p1", "main", &write(json!({ "v": "x" }), 3)).await;
    assert_eq!(status, 409, "updating an absent slot");
    assert_eq!(body["version"], 0, "absent counts as version 0");
    assert!(
        body["error"].as_str().unwrap().contains("Version conflict"),
        "{body}"
    );

    put_save(&app, &key, "p1", "main", &write(json!({ "v": "a" }), 0)).await;
    put_save(&app, &key, "p1", "main", &write(json!({ "v": "b" }), 1)).await;
    for (case, version) in [
        ("create over an existing slot", 0),
        ("stale", 1),
        ("from the future", 7),
    ] {
        let (status, body) = put_save(
            &app,
            &key,
            "p1",
            "main",
            &write(json!({ "v": case }), version),
        )
        .await;
        assert_eq!(status, 409, "{case}: {body}");
        assert_eq!(body["version"], 2, "{case}");
    }
    assert_eq!(
        get_save(&app, &key, "p1", "main").await.1["data"],
        json!({ "v": "b" }),
        "refused writes change nothing"
    );

    let (status, body) = read(
        app.game(Method::DELETE, "/v1/saves/p1/main?version=1", &key)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        status, 409,
        "a conditional delete of a stale version: {body}"
    );
    assert_eq!(body["version"], 2);
    assert_eq!(get_save(&app, &key, "p1", "main").await.0, 200);
    let (status, _) = read(
        app.game(Method::DELETE, "/v1/saves/p1/main?version=2", &key)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 204);
}

#[tokio::test]
async fn racing_writers_from_the_same_version_have_exactly_one_winner() {
    let app = spawn_app().await;
    let (_, _, key) = app.game_with_key().await;
    let writers = 24;

    for (round, expected) in [(0i64, 1i64), (1, 2), (2, 3)] {
        let tasks: Vec<_> = (0..writers)
            .map(|writer| {
                let request = app.game(Method::PUT, "/v1/saves/racer/shared", &key).json(
                    &json!({ "data": { "writer": writer, "round": round }, "version": round }),
                );
                tokio::spawn(async move { (writer, read(request.send().await.unwrap()).await) })
            })
            .collect();
        let mut winners = Vec::new();
        for task in tasks {
            let (writer, (status, body)) = task.await.unwrap();
            match status {
                200 => {
                    assert_eq!(body["version"], expected, "round {round}");
                    winners.push(writer);
                }
                409 => assert_eq!(
                    body["version"], expected,
                    "round {round}: losers see the winner's version"
                ),
                other => panic!("round {round}: unexpected {other}: {body}"),
            }
        }
        assert_eq!(
            winners.len(),
            1,
            "round {round}: exactly one writer wins, got {winners:?}"
        );
        let (_, save) = get_save(&app, &key, "racer", "shared").await;
        assert_eq!(save["version"], expected);
        assert_eq!(
            save["data"],
            json!({ "writer": winners[0], "round": round }),
            "round {round}: the winner's data, whole"
        );
    }
}

#[tokio::test]
async fn save_data_is_limited_to_one_mebibyte_of_json() {
    let app = spawn_app().await;
    let (_, _, key) = app.game_with_key().await;

    // A JSON string of n characters serializes to n + 2 bytes.
    let exactly_1_mib = "a".repeat(MIB - 2);
    let (status, body) = put_save(
        &app,
        &key,
        "p",
        "full",
        &json!({ "data": exactly_1_mib, "version": 0 }),
    )
    .await;
    assert_eq!(status, 200, "1 MiB of data fits: {body}");
    let (status, save) = get_save(&app, &key, "p", "full").await;
    assert_eq!(status, 200);
    assert_eq!(
        save["data"].as_str().unwrap().len(),
        MIB - 2,
        "read back whole"
    );
    let (_, list) = read(
        app.game(Method::GET, "/v1/saves/p", &key)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(list["saves"][0]["size_bytes"], MIB);

    let one_byte_over = "a".repeat(MIB - 1);
    let (status, body) = put_save(
        &app,
        &key,
        "p",
        "full",
        &json!({ "data": one_byte_over, "version": 1 }),
    )
    .await;
    assert_eq!(status, 413, "{body}");
    assert_eq!(body["limit"], MIB);
    assert_eq!(body["received"], MIB + 1);
    assert!(body["error"].as_str().unwrap().contains("1 MiB"), "{body}");
    assert_eq!(
        get_save(&app, &key, "p", "full").await.1["version"],
        1,
        "the refused write changed nothing"
    );

    let far_over = "a".repeat(3 * MIB);
    let (status, body) = put_save(
        &app,
        &key,
        "p",
        "huge",
        &json!({ "data": far_over, "version": 0 }),
    )
    .await;
    assert_eq!(status, 413, "refused before being read: {body}");
    assert_eq!(body["limit"], MIB);
    assert!(body["error"].is_string());
    assert_eq!(get_save(&app, &key, "p", "huge").await.0, 404);

    // Other routes keep the 1 MiB body cap.
    let (status, body) = read(
        app.game(Method::POST, "/v1/track", &key)
            .header("content-type", "application/json")
            .body(format!("{{\"pad\": \"{}\"}}", "a".repeat(MIB)))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 413, "{body}");
}

#[tokio::test]
async fn save_requests_with_bad_input_are_refused() {
    let app = spawn_app().await;
    let (_, _, key) = app.game_with_key().await;
    let ok_body = json!({ "data": { "a": 1 }, "version": 0 });
    let long_player = "p".repeat(129);
    let long_slot = "s".repeat(65);
    let cases: Vec<(&str, String, Value)> = vec![
        (
            "data missing",
            "/v1/saves/p/s".into(),
            json!({ "version": 0 }),
        ),
        (
            "data null",
            "/v1/saves/p/s".into(),
            json!({ "data": null, "version": 0 }),
        ),
        (
            "version missing",
            "/v1/saves/p/s".into(),
            json!({ "data": {} }),
        ),
        (
            "version negative",
            "/v1/saves/p/s".into(),
            json!({ "data": {}, "version": -1 }),
        ),
        (
            "version a string",
            "/v1/saves/p/s".into(),
            json!({ "data": {}, "version": "1" }),
        ),
        (
            "version fractional",
            "/v1/saves/p/s".into(),
            json!({ "data": {}, "version": 1.5 }),
        ),
        (
            "unknown field",
            "/v1/saves/p/s".into(),
            json!({ "data": {}, "version": 0, "slot": "x" }),
        ),
        (
            "body an array",
            "/v1/saves/p/s".into(),
            json!([ok_body.clone()]),
        ),
        (
            "player_id too long",
            format!("/v1/saves/{long_player}/s"),
            ok_body.clone(),
        ),
        (
            "player_id with a space",
            "/v1/saves/a%20b/s".into(),
            ok_body.clone(),
        ),
        (
            "player_id not ASCII",
            "/v1/saves/j%C3%B6rg/s".into(),
            ok_body.clone(),
        ),
        (
            "player_id with a slash",
            "/v1/saves/a%2Fb/s".into(),
            ok_body.clone(),
        ),
        (
            "player_id only dots",
            "/v1/saves/.../s".into(),
            ok_body.clone(),
        ),
        (
            "slot too long",
            format!("/v1/saves/p/{long_slot}"),
            ok_body.clone(),
        ),
        (
            "slot with a colon",
            "/v1/saves/p/a:b".into(),
            ok_body.clone(),
        ),
        (
            "slot with a space",
            "/v1/saves/p/a%20b".into(),
            ok_body.clone(),
        ),
    ];
    for (case, path, body) in cases {
        let (status, answer) = read(
            app.game(Method::PUT, &path, &key)
                .json(&body)
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(status, 400, "{case}: {answer}");
        assert!(answer["error"].is_string(), "{case}: {answer}");
    }
    let (status, answer) = read(
        app.game(Method::PUT, "/v1/saves/p/s", &key)
            .header("content-type", "application/json")
            .body("{\"data\": ")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 400, "malformed JSON: {answer}");
    for path in [
        format!("/v1/saves/{long_player}"),
        format!("/v1/saves/p/{long_slot}"),
        "/v1/saves/a%20b".to_string(),
    ] {
        let (status, answer) = read(app.game(Method::GET, &path, &key).send().await.unwrap()).await;
        assert_eq!(status, 400, "GET {path}: {answer}");
    }
    // Longest valid names are fine.
    let player = format!("{}:@|._-", "P".repeat(121));
    let slot = format!("{}._-", "S".repeat(61));
    let (status, answer) = put_save(&app, &key, &player, &slot, &ok_body).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!((get_save(&app, &key, &player, &slot).await).0, 200);

    let (_, list) = read(
        app.game(Method::GET, "/v1/saves/p", &key)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert!(
        list["saves"].as_array().unwrap().is_empty(),
        "no refused write was stored: {list}"
    );
    let (status, answer) = read(
        app.request(Method::GET, "/v1/saves/p/s")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 401, "{answer}");
    assert!(answer["error"].as_str().unwrap().contains("x-game-api-key"));
}

#[tokio::test]
async fn games_see_only_their_own_saves() {
    let app = spawn_app().await;
    let (_, _, key_a) = app.game_with_key().await;
    let (_, _, key_b) = app.game_with_key().await;
    put_save(
        &app,
        &key_a,
        "hero",
        "s1",
        &json!({ "data": { "owner": "a" }, "version": 0 }),
    )
    .await;

    assert_eq!(get_save(&app, &key_b, "hero", "s1").await.0, 404);
    let (_, list) = read(
        app.game(Method::GET, "/v1/saves/hero", &key_b)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert!(list["saves"].as_array().unwrap().is_empty());
    assert_eq!(
        read(
            app.game(Method::DELETE, "/v1/saves/hero/s1", &key_b)
                .send()
                .await
                .unwrap()
        )
        .await
        .0,
        404
    );
    let (status, body) = put_save(
        &app,
        &key_b,
        "hero",
        "s1",
        &json!({ "data": { "owner": "b" }, "version": 0 }),
    )
    .await;
    assert_eq!(
        (status, body["version"].clone()),
        (200, json!(1)),
        "the same player and slot in another game is separate"
    );
    assert_eq!(
        get_save(&app, &key_a, "hero", "s1").await.1["data"],
        json!({ "owner": "a" })
    );
}

#[tokio::test]
async fn support_staff_list_read_and_delete_saves_in_the_dashboard() {
    let app = spawn_app().await;
    let _admin = app.new_user().await;
    let (owner, game_id, key) = app.game_with_key().await;
    let (viewer, _) = app.new_member(&owner, &game_id, "viewer").await;
    let (editor, _) = app.new_member(&owner, &game_id, "editor").await;
    let (stranger, _, _) = app.game_with_key().await;
    for slot in ["auto", "manual"] {
        put_save(
            &app,
            &key,
            "player-7",
            slot,
            &json!({ "data": { "slot": slot }, "version": 0 }),
        )
        .await;
    }
    let base = format!("/v1/games/{game_id}/saves/player-7");

    let (status, list) = read(
        app.dashboard(Method::GET, &base, &viewer)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200, "{list}");
    let (_, game_list) = read(
        app.game(Method::GET, "/v1/saves/player-7", &key)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(list, game_list, "the dashboard sees what the game sees");
    let (status, save) = read(
        app.dashboard(Method::GET, &format!("{base}/auto"), &viewer)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(save, get_save(&app, &key, "player-7", "auto").await.1);

    let other_game = format!("/v1/games/{}/saves/player-7", Uuid::now_v7());
    let cases = [
        (
            "viewer deletes",
            Method::DELETE,
            format!("{base}/auto"),
            Some(&viewer),
            403,
        ),
        (
            "stranger lists",
            Method::GET,
            base.clone(),
            Some(&stranger),
            403,
        ),
        (
            "stranger reads",
            Method::GET,
            format!("{base}/auto"),
            Some(&stranger),
            403,
        ),
        (
            "stranger deletes",
            Method::DELETE,
            format!("{base}/auto"),
            Some(&stranger),
            403,
        ),
        ("unknown game", Method::GET, other_game, Some(&owner), 403),
        ("no token", Method::GET, base.clone(), None, 401),
        (
            "absent slot",
            Method::GET,
            format!("{base}/nope"),
            Some(&viewer),
            404,
        ),
        (
            "bad slot",
            Method::GET,
            format!("{base}/a%20b"),
            Some(&viewer),
            400,
        ),
        (
            "editor deletes",
            Method::DELETE,
            format!("{base}/auto"),
            Some(&editor),
            204,
        ),
        (
            "deleted slot",
            Method::GET,
            format!("{base}/auto"),
            Some(&viewer),
            404,
        ),
        (
            "owner deletes",
            Method::DELETE,
            format!("{base}/manual"),
            Some(&owner),
            204,
        ),
        (
            "deleting again",
            Method::DELETE,
            format!("{base}/manual"),
            Some(&owner),
            404,
        ),
    ];
    for (case, method, path, token, expected) in cases {
        let mut request = app.request(method, &path);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        let (status, answer) = read(request.send().await.unwrap()).await;
        assert_eq!(status, expected, "{case}: {answer}");
        assert!(
            status < 300 || answer["error"].is_string(),
            "{case}: {answer}"
        );
    }
    assert_eq!(
        get_save(&app, &key, "player-7", "auto").await.0,
        404,
        "the game sees the deletion"
    );
}
