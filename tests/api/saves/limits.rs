//! What a save may be: at most 1 MiB of JSON, under valid player and slot names.
use super::{get_save, put_save};
use crate::helpers::{spawn_app, Fetch};
use reqwest::Method;
use serde_json::{json, Value};

const MIB: usize = 1024 * 1024;

#[tokio::test]
async fn save_data_is_limited_to_one_mebibyte_of_json() {
    let app = spawn_app().await;
    let (_, _, key) = app.game_with_key().await;

    // A JSON string of n characters serializes to n + 2 bytes.
    let exactly_1_mib = "a".repeat(MIB - 2);
    let (status, body) = put_save(&app, &key, "p", "full", json!(exactly_1_mib), 0).await;
    assert_eq!(status, 200, "1 MiB of data fits: {body}");
    let (status, save) = get_save(&app, &key, "p", "full").await;
    assert_eq!(status, 200);
    assert_eq!(
        save["data"].as_str().unwrap().len(),
        MIB - 2,
        "read back whole"
    );
    let (_, list) = app.game_call(Method::GET, "/v1/saves/p", &key).await;
    assert_eq!(list["saves"][0]["size_bytes"], MIB);

    let one_byte_over = "a".repeat(MIB - 1);
    let (status, body) = put_save(&app, &key, "p", "full", json!(one_byte_over), 1).await;
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
    let (status, body) = put_save(&app, &key, "p", "huge", json!(far_over), 0).await;
    assert_eq!(status, 413, "refused before being read: {body}");
    assert_eq!(body["limit"], MIB);
    assert!(body["error"].is_string());
    assert_eq!(get_save(&app, &key, "p", "huge").await.0, 404);

    // Other routes keep the 1 MiB body cap.
    let (status, body) = app
        .game(Method::POST, "/v1/track", &key)
        .header("content-type", "application/json")
        .body(format!("{{\"pad\": \"{}\"}}", "a".repeat(MIB)))
        .fetch()
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
            "player_id with NUL",
            "/v1/saves/a%00b/s".into(),
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
        let (status, answer) = app.game_json(Method::PUT, &path, &key, body.clone()).await;
        assert_eq!(status, 400, "{case}: {answer}");
        assert!(answer["error"].is_string(), "{case}: {answer}");
    }
    let (status, answer) = app
        .game(Method::PUT, "/v1/saves/p/s", &key)
        .header("content-type", "application/json")
        .body("{\"data\": ")
        .fetch()
        .await;
    assert_eq!(status, 400, "malformed JSON: {answer}");
    for path in [
        format!("/v1/saves/{long_player}"),
        format!("/v1/saves/p/{long_slot}"),
        "/v1/saves/a%00b".to_string(),
    ] {
        let (status, answer) = app.game_call(Method::GET, &path, &key).await;
        assert_eq!(status, 400, "GET {path}: {answer}");
    }
    // Longest valid names are fine.
    let player = format!("{}:@|._-", "P".repeat(121));
    let slot = format!("{}._-", "S".repeat(61));
    let (status, answer) = put_save(&app, &key, &player, &slot, json!({ "a": 1 }), 0).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!((get_save(&app, &key, &player, &slot).await).0, 200);

    // Any other text is a player id (issue 27), percent-encoded in the path.
    let (status, answer) = app
        .game(Method::PUT, "/v1/saves/Zo%C3%AB%20the%202nd%2FEU/s", &key)
        .json(&json!({ "data": { "a": 1 }, "version": 0 }))
        .fetch()
        .await;
    assert_eq!(status, 200, "{answer}");
    let (status, list) = app
        .game_call(Method::GET, "/v1/saves/Zo%C3%AB%20the%202nd%2FEU", &key)
        .await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["player_id"], "Zoë the 2nd/EU", "{list}");
    assert_eq!(list["saves"][0]["slot"], "s", "{list}");

    let (_, list) = app.game_call(Method::GET, "/v1/saves/p", &key).await;
    assert!(
        list["saves"].as_array().unwrap().is_empty(),
        "no refused write was stored: {list}"
    );
    let (status, answer) = app.call(Method::GET, "/v1/saves/p/s").await;
    assert_eq!(status, 401, "{answer}");
    assert!(answer["error"].as_str().unwrap().contains("x-game-api-key"));
}
