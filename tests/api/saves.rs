//! Black-box tests of cloud saves on the game side: slots created, replaced, listed and
//! deleted with optimistic versions. Size and input limits, tenants and the dashboard's view
//! are in `saves/`.
mod access;
mod limits;

use crate::helpers::{spawn_app, Fetch, TestApp};
use reqwest::Method;
use serde_json::{json, Value};

/// `PUT /v1/saves/{player}/{slot}` with `{ "data": data, "version": version }`.
async fn put_save(
    app: &TestApp,
    key: &str,
    player: &str,
    slot: &str,
    data: Value,
    version: i64,
) -> (u16, Value) {
    app.game_json(
        Method::PUT,
        &format!("/v1/saves/{player}/{slot}"),
        key,
        json!({ "data": data, "version": version }),
    )
    .await
}

async fn get_save(app: &TestApp, key: &str, player: &str, slot: &str) -> (u16, Value) {
    app.game_call(Method::GET, &format!("/v1/saves/{player}/{slot}"), key)
        .await
}

#[tokio::test]
async fn a_save_is_created_read_replaced_listed_and_deleted() {
    let app = spawn_app().await;
    let (_, _, key) = app.game_with_key().await;
    let progress = json!({ "level": 3, "inventory": ["sword", { "potion": 2 }], "gold": 120.5, "name": "Ünïcode ✓" });

    let (status, created) =
        put_save(&app, &key, "steam:7656119", "slot-1", json!(progress), 0).await;
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
    let (status, replaced) = put_save(&app, &key, "steam:7656119", "slot-1", json!(later), 1).await;
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
        let (status, answer) = put_save(&app, &key, "steam:7656119", slot, json!(data), 0).await;
        assert_eq!(status, 200, "{slot}: {answer}");
        assert_eq!(
            get_save(&app, &key, "steam:7656119", slot).await.1["data"],
            data,
            "{slot}"
        );
    }

    let list = app
        .game(Method::GET, "/v1/saves/steam:7656119", &key)
        .expect_status(200)
        .await;
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

    app.game(Method::DELETE, "/v1/saves/steam:7656119/slot-1", &key)
        .expect_status(204)
        .await;
    let (status, body) = get_save(&app, &key, "steam:7656119", "slot-1").await;
    assert_eq!(status, 404);
    assert!(body["error"].is_string());
    let (status, body) = app
        .game_call(Method::DELETE, "/v1/saves/steam:7656119/slot-1", &key)
        .await;
    assert_eq!(status, 404, "deleting an absent slot: {body}");
    let (_, list) = app
        .game_call(Method::GET, "/v1/saves/steam:7656119", &key)
        .await;
    assert_eq!(list["saves"].as_array().unwrap().len(), 3);
    let (status, list) = app.game_call(Method::GET, "/v1/saves/nobody", &key).await;
    assert_eq!(
        (status, list),
        (200, json!({ "player_id": "nobody", "saves": [] }))
    );

    // A deleted slot can be created again from version 0.
    let (status, again) = put_save(&app, &key, "steam:7656119", "slot-1", json!({}), 0).await;
    assert_eq!((status, again["version"].clone()), (200, json!(1)));
}

#[tokio::test]
async fn writes_from_a_stale_version_are_refused_with_the_stored_version() {
    let app = spawn_app().await;
    let (_, _, key) = app.game_with_key().await;
    let (status, body) = put_save(&app, &key, "p1", "main", json!({ "v": "x" }), 3).await;
    assert_eq!(status, 409, "updating an absent slot");
    assert_eq!(body["version"], 0, "absent counts as version 0");
    assert!(
        body["error"].as_str().unwrap().contains("Version conflict"),
        "{body}"
    );

    put_save(&app, &key, "p1", "main", json!({ "v": "a" }), 0).await;
    put_save(&app, &key, "p1", "main", json!({ "v": "b" }), 1).await;
    for (case, version) in [
        ("create over an existing slot", 0),
        ("stale", 1),
        ("from the future", 7),
    ] {
        let (status, body) =
            put_save(&app, &key, "p1", "main", json!({ "v": case }), version).await;
        assert_eq!(status, 409, "{case}: {body}");
        assert_eq!(body["version"], 2, "{case}");
    }
    assert_eq!(
        get_save(&app, &key, "p1", "main").await.1["data"],
        json!({ "v": "b" }),
        "refused writes change nothing"
    );

    let (status, body) = app
        .game_call(Method::DELETE, "/v1/saves/p1/main?version=1", &key)
        .await;
    assert_eq!(
        status, 409,
        "a conditional delete of a stale version: {body}"
    );
    assert_eq!(body["version"], 2);
    assert_eq!(get_save(&app, &key, "p1", "main").await.0, 200);
    app.game(Method::DELETE, "/v1/saves/p1/main?version=2", &key)
        .expect_status(204)
        .await;
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
                tokio::spawn(async move { (writer, request.fetch().await) })
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
