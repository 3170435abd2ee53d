//! Black-box tests of presence: activity and presence on the game side and the dashboard's live
//! list here; the WebSocket feed in `presence/stream.rs`. The `Presence` hot-store conformance
//! suite is in `conformance/presence.rs`.
mod stream;

use crate::helpers::{spawn_app, Fetch, TestApp};
use chrono::Duration;
use reqwest::Method;
use serde_json::{json, Value};
use uuid::Uuid;

// ---------------------------------------------------------------------------------------------
// HTTP: activity and presence (game side).

async fn set_activity(app: &TestApp, key: &str, body: Value) -> (u16, Value) {
    app.game_json(Method::POST, "/v1/activity", key, body.clone())
        .await
}

async fn get(app: &TestApp, key: &str, path: &str) -> (u16, Value) {
    app.game_call(Method::GET, path, key).await
}

#[tokio::test]
async fn a_game_sets_reads_and_clears_a_players_activity() {
    let app = spawn_app().await;
    let (_, _, key) = app.game_with_key().await;

    let (status, body) = set_activity(
        &app,
        &key,
        json!({ "player_id": "ana", "session_id": "s1", "activity": "In a match", "details": { "map": "harbor" } }),
    )
    .await;
    assert_eq!((status, body), (200, json!({ "success": true })));

    let (status, presence) = get(&app, &key, "/v1/presence/ana").await;
    assert_eq!(status, 200);
    assert_eq!(presence["player_id"], "ana");
    assert_eq!(
        presence["status"], "playing",
        "playing is the default status"
    );
    assert_eq!(presence["activity"], "In a match");
    assert_eq!(presence["data"], json!({ "map": "harbor" }));
    assert!(presence["last_updated"].as_str().unwrap().ends_with('Z'));

    let (_, list) = get(&app, &key, "/v1/presence").await;
    assert_eq!(list["active_count"], 1);
    assert_eq!(list["players"][0], presence);

    let response = app
        .game(Method::DELETE, "/v1/activity", &key)
        .json(&json!({ "player_id": "ana" }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 204);
    assert!(response.text().await.unwrap().is_empty(), "204 has no body");
    assert_eq!(get(&app, &key, "/v1/presence/ana").await.0, 404);
    assert_eq!(
        get(&app, &key, "/v1/presence").await.1,
        json!({ "active_count": 0, "players": [] })
    );
    let (status, _) = app
        .game_json(
            Method::DELETE,
            "/v1/activity",
            &key,
            json!({ "player_id": "ana" }),
        )
        .await;
    assert_eq!(status, 204, "clearing twice is harmless");
}

#[tokio::test]
async fn a_write_may_name_the_details_data_as_reads_do_but_not_both() {
    let app = spawn_app().await;
    let (_, _, key) = app.game_with_key().await;

    let (status, body) = set_activity(
        &app,
        &key,
        json!({ "player_id": "ana", "activity": "In a match", "data": { "map": "harbor" } }),
    )
    .await;
    assert_eq!((status, body), (200, json!({ "success": true })));
    let (_, presence) = get(&app, &key, "/v1/presence/ana").await;
    assert_eq!(presence["data"], json!({ "map": "harbor" }));

    let (status, body) = set_activity(
        &app,
        &key,
        json!({ "player_id": "ana", "activity": "x", "details": { "map": "a" }, "data": { "map": "b" } }),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(
        body["error"],
        "details and data are one field under two names: send one of them"
    );
    let (status, body) = set_activity(
        &app,
        &key,
        json!({ "player_id": "ana", "activity": "x", "data": [1] }),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    let (_, presence) = get(&app, &key, "/v1/presence/ana").await;
    assert_eq!(
        (presence["activity"].clone(), presence["data"].clone()),
        (json!("In a match"), json!({ "map": "harbor" })),
        "refused writes change nothing"
    );
}

#[tokio::test]
async fn a_silent_player_goes_offline_after_ten_minutes_and_is_forgotten_after_a_day() {
    let app = spawn_app().await;
    let (_, _, key) = app.game_with_key().await;
    set_activity(
        &app,
        &key,
        json!({ "player_id": "ana", "activity": "Queueing", "status": "waiting" }),
    )
    .await;
    set_activity(
        &app,
        &key,
        json!({ "player_id": "bob", "activity": "Exploring" }),
    )
    .await;

    app.clock.advance(Duration::minutes(9));
    set_activity(
        &app,
        &key,
        json!({ "player_id": "bob", "activity": "Still exploring" }),
    )
    .await;
    app.clock.advance(Duration::minutes(1));

    let (_, ana) = get(&app, &key, "/v1/presence/ana").await;
    assert_eq!(ana["status"], "offline");
    assert_eq!(
        ana["activity"], "Queueing",
        "an offline entry keeps its last activity"
    );
    let (_, list) = get(&app, &key, "/v1/presence").await;
    assert_eq!(list["active_count"], 1);
    assert_eq!(list["players"][0]["player_id"], "bob");
    assert_eq!(
        get(&app, &key, "/v1/presence?status=waiting").await.1["active_count"],
        0
    );

    app.clock.advance(Duration::hours(24));
    assert_eq!(get(&app, &key, "/v1/presence/ana").await.0, 404);
}

#[tokio::test]
async fn presence_lists_filter_by_status_and_page() {
    let app = spawn_app().await;
    let (_, _, key) = app.game_with_key().await;
    for (i, status) in ["playing", "idle", "playing", "waiting", "playing"]
        .iter()
        .enumerate()
    {
        set_activity(
            &app,
            &key,
            json!({ "player_id": format!("p{i}"), "activity": "x", "status": status }),
        )
        .await;
        app.clock.advance(Duration::seconds(1));
    }
    let (_, playing) = get(&app, &key, "/v1/presence?status=playing").await;
    assert_eq!(playing["active_count"], 3);
    let ids: Vec<&str> = playing["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["player_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["p4", "p2", "p0"], "most recently updated first");
    assert!(playing["players"]
        .as_array()
        .unwrap()
        .iter()
        .all(|p| p["status"] == "playing"));

    let (_, page) = get(&app, &key, "/v1/presence?limit=2&offset=1").await;
    assert_eq!(page["active_count"], 5, "the count covers every page");
    let ids: Vec<&str> = page["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["player_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["p3", "p2"]);

    for (query, case) in [
        ("?status=offline", "offline is not a filter"),
        ("?status=sleeping", "unknown status"),
        ("?limit=0", "limit too small"),
        ("?limit=1001", "limit too large"),
        ("?limit=ten", "limit not a number"),
        ("?offset=-1", "negative offset"),
    ] {
        let (status, error) = get(&app, &key, &format!("/v1/presence{query}")).await;
        assert_eq!(status, 400, "{case}: {error}");
        assert!(error["error"].is_string(), "{case}");
    }
}

#[tokio::test]
async fn invalid_activity_requests_are_refused() {
    let app = spawn_app().await;
    let (_, _, key) = app.game_with_key().await;
    let big = "x".repeat(9 * 1024);
    let cases = [
        (json!({ "activity": "x" }), "missing player_id"),
        (json!({ "player_id": "ana" }), "missing activity"),
        (
            json!({ "player_id": "", "activity": "x" }),
            "empty player_id",
        ),
        (
            json!({ "player_id": "p".repeat(129), "activity": "x" }),
            "player_id too long",
        ),
        (
            json!({ "player_id": "ana", "activity": "" }),
            "empty activity",
        ),
        (
            json!({ "player_id": "ana", "activity": "a".repeat(257) }),
            "activity too long",
        ),
        (
            json!({ "player_id": "ana", "activity": "x", "status": "offline" }),
            "offline cannot be set",
        ),
        (
            json!({ "player_id": "ana", "activity": "x", "status": "busy" }),
            "unknown status",
        ),
        (
            json!({ "player_id": "ana", "activity": "x", "details": [1, 2] }),
            "details not an object",
        ),
        (
            json!({ "player_id": "ana", "activity": "x", "details": "text" }),
            "details a string",
        ),
        (
            json!({ "player_id": "ana", "activity": "x", "details": { "blob": big } }),
            "details over 8 KiB",
        ),
        (
            json!({ "player_id": { "id": 5 }, "activity": "x" }),
            "player_id not a string",
        ),
        (
            json!({ "player_id": "ana", "activity": "x", "mood": "happy" }),
            "unknown field",
        ),
    ];
    for (body, case) in cases {
        let (status, error) = set_activity(&app, &key, body).await;
        assert_eq!(status, 400, "{case}: {error}");
        assert!(error["error"].is_string(), "{case}");
    }
    let (status, _) = app
        .game_json(Method::DELETE, "/v1/activity", &key, json!({}))
        .await;
    assert_eq!(status, 400, "DELETE without player_id");
    assert_eq!(
        get(&app, &key, "/v1/presence").await.1["active_count"],
        0,
        "nothing was stored"
    );

    app.request(Method::POST, "/v1/activity")
        .json(&json!({ "player_id": "a", "activity": "x" }))
        .expect_status(401)
        .await;
    let (status, _) = app.call(Method::GET, "/v1/presence").await;
    assert_eq!(status, 401);
}

#[tokio::test]
async fn one_games_presence_is_invisible_to_another() {
    let app = spawn_app().await;
    let (_, _, key) = app.game_with_key().await;
    let (_, _, other_key) = app.game_with_key().await;
    set_activity(&app, &key, json!({ "player_id": "ana", "activity": "x" })).await;
    assert_eq!(get(&app, &other_key, "/v1/presence/ana").await.0, 404);
    assert_eq!(
        get(&app, &other_key, "/v1/presence").await.1["active_count"],
        0
    );
    app.game(Method::DELETE, "/v1/activity", &other_key)
        .json(&json!({ "player_id": "ana" }))
        .expect_status(204)
        .await;
    assert_eq!(
        get(&app, &key, "/v1/presence/ana").await.0,
        200,
        "another game cannot clear it"
    );
}

// ---------------------------------------------------------------------------------------------
// HTTP: the dashboard's live list.

#[tokio::test]
async fn members_read_the_live_list_and_others_are_refused() {
    let app = spawn_app().await;
    let _admin = app.new_user().await;
    let (token, game_id, key) = app.game_with_key().await;
    set_activity(
        &app,
        &key,
        json!({ "player_id": "ana", "activity": "Boss fight", "details": { "boss": "kraken" } }),
    )
    .await;
    app.clock.advance(Duration::seconds(2));
    set_activity(
        &app,
        &key,
        json!({ "player_id": "bob", "activity": "Shopping" }),
    )
    .await;

    let (status, live) = app
        .dashboard_call(
            Method::GET,
            &format!("/v1/activity/live?game_id={game_id}"),
            &token,
        )
        .await;
    assert_eq!(status, 200, "{live}");
    let live = live.as_array().unwrap().clone();
    assert_eq!(live.len(), 2);
    assert_eq!(live[0]["player_id"], "bob");
    assert_eq!(live[1]["activity"], "Boss fight");
    assert_eq!(live[1]["details"], json!({ "boss": "kraken" }));
    assert!(live[1]["updated_at"].as_str().unwrap().ends_with('Z'));

    app.clock.advance(Duration::minutes(10));
    let (_, live) = app
        .dashboard_call(
            Method::GET,
            &format!("/v1/activity/live?game_id={game_id}"),
            &token,
        )
        .await;
    assert_eq!(live, json!([]), "offline players leave the live list");

    let stranger = app.new_user().await;
    let cases = [
        (
            Some(stranger.as_str()),
            format!("?game_id={game_id}"),
            403,
            "not a member",
        ),
        (
            Some(stranger.as_str()),
            format!("?game_id={}", Uuid::new_v4()),
            403,
            "unknown game",
        ),
        (None, format!("?game_id={game_id}"), 401, "no token"),
        (Some(token.as_str()), String::new(), 400, "missing game_id"),
        (
            Some(token.as_str()),
            "?game_id=nope".to_string(),
            400,
            "game_id not a UUID",
        ),
    ];
    for (bearer, query, expected, case) in cases {
        let (status, error) = app
            .dashboard_or_anonymous(Method::GET, &format!("/v1/activity/live{query}"), bearer)
            .fetch()
            .await;
        assert_eq!(status, expected, "{case}: {error}");
        assert!(error["error"].is_string(), "{case}");
    }
}

#[tokio::test]
async fn the_live_list_shows_each_players_status_and_filters_by_it() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    for (player, status) in [("ana", "playing"), ("bob", "idle"), ("cy", "waiting")] {
        let (code, body) = set_activity(
            &app,
            &key,
            json!({ "player_id": player, "activity": "x", "status": status }),
        )
        .await;
        assert_eq!(code, 200, "{body}");
        app.clock.advance(Duration::seconds(1));
    }
    set_activity(&app, &key, json!({ "player_id": "dee", "activity": "x" })).await;
    let live = |query: String| {
        let request = app.dashboard(
            Method::GET,
            &format!("/v1/activity/live?game_id={game_id}{query}"),
            &token,
        );
        async move { request.fetch().await }
    };
    let statuses = |list: &Value| -> Vec<(String, String)> {
        list.as_array()
            .unwrap()
            .iter()
            .map(|entry| {
                (
                    entry["player_id"].as_str().unwrap().to_string(),
                    entry["status"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };

    let (status, all) = live(String::new()).await;
    assert_eq!(status, 200, "{all}");
    assert_eq!(
        statuses(&all),
        [
            ("dee".to_string(), "playing".to_string()),
            ("cy".into(), "waiting".into()),
            ("bob".into(), "idle".into()),
            ("ana".into(), "playing".into()),
        ],
        "every entry carries its status, most recently updated first"
    );
    assert_eq!(
        all[0].as_object().unwrap().len(),
        5,
        "player_id, status, activity, details, updated_at: {all}"
    );

    let (status, playing) = live("&status=playing".into()).await;
    assert_eq!(status, 200, "{playing}");
    assert_eq!(
        statuses(&playing),
        [
            ("dee".to_string(), "playing".to_string()),
            ("ana".into(), "playing".into())
        ]
    );
    let (_, idle) = live("&status=idle&limit=1".into()).await;
    assert_eq!(statuses(&idle), [("bob".to_string(), "idle".to_string())]);
    let (_, page) = live("&status=playing&limit=1&offset=1".into()).await;
    assert_eq!(
        statuses(&page),
        [("ana".to_string(), "playing".to_string())]
    );

    for (query, case) in [
        ("&status=offline", "offline is not a filter"),
        ("&status=sleeping", "unknown status"),
        ("&status=", "empty status"),
    ] {
        let (status, error) = live(query.into()).await;
        assert_eq!(status, 400, "{case}: {error}");
        assert_eq!(
            error["error"], "status must be one of: playing, waiting, idle",
            "the same answer as GET /v1/presence: {case}"
        );
    }
    let (status, error) = app
        .game_call(Method::GET, "/v1/presence?status=sleeping", &key)
        .await;
    assert_eq!(
        (status, &error["error"]),
        (400, &live("&status=sleeping".into()).await.1["error"])
    );
}
