//! Presence: the hot-store conformance suite (in-process always, Redis on the services
//! backend), then black-box tests of activity, presence, the live list and the WebSocket feed.
use crate::helpers::{read, services_backend, spawn_app, spawn_on, TestApp};
use chrono::{DateTime, Duration, TimeZone, Utc};
use futures_util::StreamExt;
use playtrace::store::hot::presence::{PresenceEntry, PresenceStatus};
use reqwest::Method;
use serde_json::{json, Value};
use tokio_tungstenite::{
    connect_async,
    tungstenite::{client::IntoClientRequest, Message},
    MaybeTlsStream, WebSocketStream,
};
use uuid::Uuid;

// ---------------------------------------------------------------------------------------------
// Conformance: one suite, both implementations.

use crate::helpers::hot_stores as stores;

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 21, 10, 0, 0).unwrap()
}

fn entry(player: &str, status: PresenceStatus, at: DateTime<Utc>) -> PresenceEntry {
    PresenceEntry {
        player_id: player.to_string(),
        session_id: Some(format!("s-{player}")),
        status,
        activity: format!("{player} in the lobby"),
        data: json!({ "map": "harbor", "party": 3 }),
        updated_at: at,
    }
}

fn players(page: &playtrace::store::hot::presence::PresencePage) -> Vec<&str> {
    page.entries.iter().map(|e| e.player_id.as_str()).collect()
}

#[tokio::test]
async fn an_entry_reads_offline_after_ten_silent_minutes_and_is_gone_after_a_day() {
    for (name, store) in stores().await {
        let game = Uuid::new_v4();
        let written = entry("ana", PresenceStatus::Waiting, t0());
        store.presence.set(game, &written).await.unwrap();

        let read_back = store
            .presence
            .get(game, "ana", t0())
            .await
            .unwrap()
            .expect(name);
        assert_eq!(read_back, written, "{name}: stored as written");
        assert_eq!(
            read_back.status_at(t0() + Duration::seconds(599)),
            "waiting",
            "{name}"
        );
        let later = store
            .presence
            .get(game, "ana", t0() + Duration::minutes(10))
            .await
            .unwrap()
            .expect(name);
        assert_eq!(
            later.status_at(t0() + Duration::minutes(10)),
            "offline",
            "{name}: offline at 10 min"
        );
        assert!(
            store
                .presence
                .get(game, "ana", t0() + Duration::hours(23))
                .await
                .unwrap()
                .is_some(),
            "{name}"
        );
        assert!(
            store
                .presence
                .get(game, "ana", t0() + Duration::hours(24))
                .await
                .unwrap()
                .is_none(),
            "{name}: kept 24 h"
        );
        assert!(
            store
                .presence
                .get(game, "bob", t0())
                .await
                .unwrap()
                .is_none(),
            "{name}: unknown player"
        );
        assert!(
            store
                .presence
                .get(Uuid::new_v4(), "ana", t0())
                .await
                .unwrap()
                .is_none(),
            "{name}: games are separate"
        );
    }
}

#[tokio::test]
async fn active_lists_are_newest_first_filtered_by_time_at_read_and_paged() {
    for (name, store) in stores().await {
        let game = Uuid::new_v4();
        for (i, player) in ["p0", "p1", "p2", "p3", "p4"].iter().enumerate() {
            let status = if i % 2 == 0 {
                PresenceStatus::Playing
            } else {
                PresenceStatus::Idle
            };
            store
                .presence
                .set(
                    game,
                    &entry(player, status, t0() + Duration::minutes(i as i64)),
                )
                .await
                .unwrap();
        }
        let now = t0() + Duration::minutes(5);
        let all = store
            .presence
            .active(game, None, now, 0, 100)
            .await
            .unwrap();
        assert_eq!(all.active_count, 5, "{name}");
        assert_eq!(
            players(&all),
            ["p4", "p3", "p2", "p1", "p0"],
            "{name}: newest first"
        );
        assert_eq!(
            all.entries[0].data,
            json!({ "map": "harbor", "party": 3 }),
            "{name}"
        );

        let page = store.presence.active(game, None, now, 1, 2).await.unwrap();
        assert_eq!(
            (page.active_count, players(&page)),
            (5, vec!["p3", "p2"]),
            "{name}: offset and limit"
        );
        let playing = store
            .presence
            .active(game, Some(PresenceStatus::Playing), now, 0, 100)
            .await
            .unwrap();
        assert_eq!(
            (playing.active_count, players(&playing)),
            (3, vec!["p4", "p2", "p0"]),
            "{name}: by status"
        );
        let waiting = store
            .presence
            .active(game, Some(PresenceStatus::Waiting), now, 0, 100)
            .await
            .unwrap();
        assert_eq!(waiting.active_count, 0, "{name}");

        // Nothing sweeps here: the read alone leaves out entries silent for 10 minutes.
        let later = t0() + Duration::minutes(12);
        let remaining = store
            .presence
            .active(game, None, later, 0, 100)
            .await
            .unwrap();
        assert_eq!(
            (remaining.active_count, players(&remaining)),
            (2, vec!["p4", "p3"]),
            "{name}: p0..p2 went offline"
        );
        let none = store
            .presence
            .active(game, None, t0() + Duration::minutes(14), 0, 100)
            .await
            .unwrap();
        assert_eq!((none.active_count, none.entries.len()), (0, 0), "{name}");
    }
}

#[tokio::test]
async fn a_new_status_moves_the_player_between_filters_and_refreshes_it() {
    for (name, store) in stores().await {
        let game = Uuid::new_v4();
        store
            .presence
            .set(game, &entry("ana", PresenceStatus::Playing, t0()))
            .await
            .unwrap();
        store
            .presence
            .set(
                game,
                &entry("ana", PresenceStatus::Idle, t0() + Duration::minutes(8)),
            )
            .await
            .unwrap();
        let now = t0() + Duration::minutes(12);
        let playing = store
            .presence
            .active(game, Some(PresenceStatus::Playing), now, 0, 10)
            .await
            .unwrap();
        let idle = store
            .presence
            .active(game, Some(PresenceStatus::Idle), now, 0, 10)
            .await
            .unwrap();
        assert_eq!((playing.active_count, idle.active_count), (0, 1), "{name}");
        let all = store.presence.active(game, None, now, 0, 10).await.unwrap();
        assert_eq!(all.active_count, 1, "{name}: one entry per player");
        assert_eq!(all.entries[0].status, PresenceStatus::Idle, "{name}");
    }
}

#[tokio::test]
async fn clearing_forgets_the_entry() {
    for (name, store) in stores().await {
        let game = Uuid::new_v4();
        store
            .presence
            .set(game, &entry("ana", PresenceStatus::Playing, t0()))
            .await
            .unwrap();
        assert!(
            store.presence.clear(game, "ana", t0()).await.unwrap(),
            "{name}"
        );
        assert!(
            !store.presence.clear(game, "ana", t0()).await.unwrap(),
            "{name}: nothing left to clear"
        );
        assert!(
            store
                .presence
                .get(game, "ana", t0())
                .await
                .unwrap()
                .is_none(),
            "{name}"
        );
        assert_eq!(
            store
                .presence
                .active(game, None, t0(), 0, 10)
                .await
                .unwrap()
                .active_count,
            0,
            "{name}"
        );
        let announced = store
            .presence
            .announce_offline(t0() + Duration::hours(1), 100)
            .await
            .unwrap();
        assert!(
            announced.is_empty(),
            "{name}: a cleared player never goes offline: {announced:?}"
        );
    }
}

#[tokio::test]
async fn going_offline_is_announced_once_however_many_nodes_check() {
    for (name, store) in stores().await {
        let game = Uuid::new_v4();
        for i in 0..30 {
            store
                .presence
                .set(
                    game,
                    &entry(&format!("p{i}"), PresenceStatus::Playing, t0()),
                )
                .await
                .unwrap();
        }
        // Refreshed at +5 min: goes offline at +15, not +10.
        store
            .presence
            .set(
                game,
                &entry("p0", PresenceStatus::Playing, t0() + Duration::minutes(5)),
            )
            .await
            .unwrap();
        assert!(
            store
                .presence
                .announce_offline(t0() + Duration::seconds(599), 100)
                .await
                .unwrap()
                .is_empty(),
            "{name}"
        );

        let at = t0() + Duration::minutes(10);
        let checkers: Vec<_> = (0..4)
            .map(|_| {
                let store = store.clone();
                tokio::spawn(async move { store.presence.announce_offline(at, 7).await.unwrap() })
            })
            .collect();
        let mut announced = Vec::new();
        for checker in checkers {
            announced.extend(checker.await.unwrap());
        }
        announced.extend(store.presence.announce_offline(at, 100).await.unwrap());
        let mut names: Vec<String> = announced.iter().map(|w| w.player_id.clone()).collect();
        names.sort();
        names.dedup();
        assert_eq!(
            (announced.len(), names.len()),
            (29, 29),
            "{name}: each of p1..p29 exactly once"
        );
        assert!(
            announced
                .iter()
                .all(|w| w.game_id == game && w.last_updated == t0()),
            "{name}"
        );

        let p0 = store
            .presence
            .announce_offline(t0() + Duration::minutes(15), 100)
            .await
            .unwrap();
        assert_eq!(
            p0.iter().map(|w| w.player_id.as_str()).collect::<Vec<_>>(),
            ["p0"],
            "{name}"
        );
        assert!(
            store
                .presence
                .announce_offline(t0() + Duration::hours(2), 100)
                .await
                .unwrap()
                .is_empty(),
            "{name}"
        );
    }
}

#[tokio::test]
async fn the_feed_carries_one_games_updates_clears_and_offline_notices() {
    for (name, store) in stores().await {
        let game = Uuid::new_v4();
        let other_game = Uuid::new_v4();
        let mut feed = store.presence.subscribe(game).await.unwrap();
        store
            .presence
            .set(
                other_game,
                &entry("elsewhere", PresenceStatus::Playing, t0()),
            )
            .await
            .unwrap();
        store
            .presence
            .set(game, &entry("ana", PresenceStatus::Waiting, t0()))
            .await
            .unwrap();
        store
            .presence
            .clear(game, "ana", t0() + Duration::minutes(1))
            .await
            .unwrap();
        store
            .presence
            .set(game, &entry("bob", PresenceStatus::Playing, t0()))
            .await
            .unwrap();
        store
            .presence
            .announce_offline(t0() + Duration::minutes(10), 100)
            .await
            .unwrap();

        let mut messages = Vec::new();
        for _ in 0..4 {
            let text = tokio::time::timeout(std::time::Duration::from_secs(5), feed.recv())
                .await
                .unwrap_or_else(|_| panic!("{name}: message expected, got {messages:?}"))
                .unwrap();
            messages.push(serde_json::from_str::<Value>(&text).unwrap());
        }
        assert_eq!(
            messages[0]["type"], "activity.updated",
            "{name}: {messages:?}"
        );
        assert_eq!(
            messages[0]["player_id"], "ana",
            "{name}: other games' messages are not delivered"
        );
        assert_eq!(messages[0]["status"], "waiting");
        assert_eq!(
            messages[0]["details"],
            json!({ "map": "harbor", "party": 3 })
        );
        assert_eq!(messages[0]["updated_at"], "2026-11-21T10:00:00Z");
        assert_eq!(
            (
                messages[1]["type"].as_str(),
                messages[1]["player_id"].as_str()
            ),
            (Some("activity.cleared"), Some("ana"))
        );
        assert_eq!(messages[2]["type"], "activity.updated", "{name}");
        assert_eq!(
            messages[3],
            json!({ "type": "presence.offline", "player_id": "bob", "last_updated": "2026-11-21T10:00:00Z" })
        );
    }
}

// ---------------------------------------------------------------------------------------------
// HTTP: activity and presence (game side).

async fn set_activity(app: &TestApp, key: &str, body: Value) -> (u16, Value) {
    read(
        app.game(Method::POST, "/v1/activity", key)
            .json(&body)
            .send()
            .await
            .unwrap(),
    )
    .await
}

async fn get(app: &TestApp, key: &str, path: &str) -> (u16, Value) {
    read(app.game(Method::GET, path, key).send().await.unwrap()).await
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
    let again = app
        .game(Method::DELETE, "/v1/activity", &key)
        .json(&json!({ "player_id": "ana" }))
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 204, "clearing twice is harmless");
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
    let (status, _) = read(
        app.game(Method::DELETE, "/v1/activity", &key)
            .json(&json!({}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 400, "DELETE without player_id");
    assert_eq!(
        get(&app, &key, "/v1/presence").await.1["active_count"],
        0,
        "nothing was stored"
    );

    let (status, _) = read(
        app.request(Method::POST, "/v1/activity")
            .json(&json!({ "player_id": "a", "activity": "x" }))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 401);
    let (status, _) = read(
        app.request(Method::GET, "/v1/presence")
            .send()
            .await
            .unwrap(),
    )
    .await;
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
    let response = app
        .game(Method::DELETE, "/v1/activity", &other_key)
        .json(&json!({ "player_id": "ana" }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 204);
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

    let (status, live) = read(
        app.dashboard(
            Method::GET,
            &format!("/v1/activity/live?game_id={game_id}"),
            &token,
        )
        .send()
        .await
        .unwrap(),
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
    let (_, live) = read(
        app.dashboard(
            Method::GET,
            &format!("/v1/activity/live?game_id={game_id}"),
            &token,
        )
        .send()
        .await
        .unwrap(),
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
        let mut request = app.request(Method::GET, &format!("/v1/activity/live{query}"));
        if let Some(bearer) = bearer {
            request = request.bearer_auth(bearer);
        }
        let (status, error) = read(request.send().await.unwrap()).await;
        assert_eq!(status, expected, "{case}: {error}");
        assert!(error["error"].is_string(), "{case}");
    }
}

// ---------------------------------------------------------------------------------------------
// WebSocket feed.

type Socket = WebSocketStream<MaybeTlsStream<tokio::net::TcpStream>>;

fn stream_url(app: &TestApp, query: &str) -> String {
    format!(
        "{}/v1/activity/stream{query}",
        app.address.replace("http://", "ws://")
    )
}

/// Opens the feed with the token in the Authorization header; the HTTP status on failure.
async fn open_stream(app: &TestApp, game_id: &str, token: Option<&str>) -> Result<Socket, u16> {
    let mut request = stream_url(app, &format!("?game_id={game_id}"))
        .into_client_request()
        .unwrap();
    if let Some(token) = token {
        request
            .headers_mut()
            .insert("authorization", format!("Bearer {token}").parse().unwrap());
    }
    connect(request).await
}

async fn connect(
    request: tokio_tungstenite::tungstenite::handshake::client::Request,
) -> Result<Socket, u16> {
    match connect_async(request).await {
        Ok((socket, response)) => {
            assert_eq!(response.status(), 101);
            Ok(socket)
        }
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            Err(response.status().as_u16())
        }
        Err(other) => panic!("websocket failed: {other}"),
    }
}

/// The next JSON message, skipping keep-alive frames; fails after `secs` seconds.
async fn next_message(socket: &mut Socket, secs: u64) -> Value {
    loop {
        let message = tokio::time::timeout(std::time::Duration::from_secs(secs), socket.next())
            .await
            .expect("a feed message in time")
            .expect("the feed is open")
            .expect("a readable frame");
        match message {
            Message::Text(text) => return serde_json::from_str(text.as_str()).unwrap(),
            Message::Ping(_) | Message::Pong(_) => continue,
            other => panic!("unexpected frame {other:?}"),
        }
    }
}

#[tokio::test]
async fn the_stream_pushes_updates_clears_and_offline_notices() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let mut socket = open_stream(&app, &game_id, Some(&token))
        .await
        .expect("member connects");

    set_activity(&app, &key, json!({ "player_id": "ana", "activity": "Raid", "details": { "boss": "kraken" }, "status": "playing" })).await;
    let updated = next_message(&mut socket, 5).await;
    assert_eq!(updated["type"], "activity.updated");
    assert_eq!(updated["player_id"], "ana");
    assert_eq!(updated["activity"], "Raid");
    assert_eq!(updated["details"], json!({ "boss": "kraken" }));
    assert_eq!(updated["status"], "playing");

    app.game(Method::DELETE, "/v1/activity", &key)
        .json(&json!({ "player_id": "ana" }))
        .send()
        .await
        .unwrap();
    let cleared = next_message(&mut socket, 5).await;
    assert_eq!(
        (cleared["type"].as_str(), cleared["player_id"].as_str()),
        (Some("activity.cleared"), Some("ana"))
    );

    set_activity(
        &app,
        &key,
        json!({ "player_id": "bob", "activity": "AFK", "status": "idle" }),
    )
    .await;
    assert_eq!(next_message(&mut socket, 5).await["player_id"], "bob");
    app.clock.advance(Duration::minutes(10));
    let offline = next_message(&mut socket, 10).await;
    assert_eq!(
        offline["type"], "presence.offline",
        "the worker notices the silence: {offline}"
    );
    assert_eq!(offline["player_id"], "bob");
    assert!(offline["last_updated"].as_str().unwrap().ends_with('Z'));
    socket.close(None).await.unwrap();
}

#[tokio::test]
async fn the_stream_takes_the_token_as_a_query_parameter_and_only_for_members() {
    let app = spawn_app().await;
    let _admin = app.new_user().await;
    let (token, game_id, key) = app.game_with_key().await;
    let other_game = app.create_game(&token).await;

    let request = stream_url(&app, &format!("?game_id={game_id}&access_token={token}"))
        .into_client_request()
        .unwrap();
    let mut socket = connect(request).await.expect("the query token is accepted");
    let mut other = open_stream(&app, &other_game, Some(&token)).await.unwrap();
    set_activity(
        &app,
        &key,
        json!({ "player_id": "ana", "activity": "Raid" }),
    )
    .await;
    assert_eq!(next_message(&mut socket, 5).await["player_id"], "ana");
    let stray = tokio::time::timeout(std::time::Duration::from_millis(500), other.next()).await;
    assert!(stray.is_err(), "another game's feed stays quiet: {stray:?}");

    let stranger = app.new_user().await;
    assert_eq!(
        open_stream(&app, &game_id, Some(&stranger)).await.err(),
        Some(403),
        "not a member"
    );
    assert_eq!(
        open_stream(&app, &game_id, None).await.err(),
        Some(401),
        "no token"
    );
    assert_eq!(
        open_stream(&app, &game_id, Some("not-a-jwt")).await.err(),
        Some(401),
        "bad token"
    );
    let request = stream_url(&app, "").into_client_request().unwrap();
    let mut request = request;
    request
        .headers_mut()
        .insert("authorization", format!("Bearer {token}").parse().unwrap());
    assert_eq!(connect(request).await.err(), Some(400), "missing game_id");
}

#[tokio::test]
async fn dashboards_on_any_node_see_updates_sent_to_another() {
    if !services_backend() {
        return; // Two in-process stores share nothing; this needs the Redis backend.
    }
    let node_a = spawn_app().await;
    let node_b = spawn_on(node_a.backend.clone(), |_| {}).await;
    let (token, game_id, key) = node_a.game_with_key().await;
    let mut on_a = open_stream(&node_a, &game_id, Some(&token)).await.unwrap();
    let mut on_b = open_stream(&node_b, &game_id, Some(&token)).await.unwrap();

    set_activity(
        &node_a,
        &key,
        json!({ "player_id": "ana", "activity": "Raid" }),
    )
    .await;
    set_activity(
        &node_b,
        &key,
        json!({ "player_id": "bob", "activity": "Shop" }),
    )
    .await;
    for socket in [&mut on_a, &mut on_b] {
        let first = next_message(socket, 5).await;
        let second = next_message(socket, 5).await;
        assert_eq!(
            (first["player_id"].as_str(), second["player_id"].as_str()),
            (Some("ana"), Some("bob"))
        );
    }
    let (_, live) = read(
        node_b
            .dashboard(
                Method::GET,
                &format!("/v1/activity/live?game_id={game_id}"),
                &token,
            )
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        live.as_array().unwrap().len(),
        2,
        "every node reads the same presence"
    );

    // Both nodes run the offline check; each dashboard still hears about bob exactly once.
    node_a.clock.advance(Duration::minutes(10));
    node_b.clock.advance(Duration::minutes(10));
    for socket in [&mut on_a, &mut on_b] {
        let mut offline = vec![
            next_message(socket, 10).await,
            next_message(socket, 10).await,
        ];
        offline.sort_by_key(|m| m["player_id"].as_str().unwrap().to_string());
        assert!(
            offline.iter().all(|m| m["type"] == "presence.offline"),
            "{offline:?}"
        );
        assert_eq!(
            (
                offline[0]["player_id"].as_str(),
                offline[1]["player_id"].as_str()
            ),
            (Some("ana"), Some("bob"))
        );
        let duplicate =
            tokio::time::timeout(std::time::Duration::from_millis(2500), socket.next()).await;
        assert!(duplicate.is_err(), "no second announcement: {duplicate:?}");
    }
}

/// Waits for the server to close the feed; returns the close code.
async fn closed(socket: &mut Socket, secs: u64) -> u16 {
    loop {
        let frame = tokio::time::timeout(std::time::Duration::from_secs(secs), socket.next())
            .await
            .expect("the feed closes in time");
        match frame {
            Some(Ok(Message::Close(Some(close)))) => return u16::from(close.code),
            Some(Ok(Message::Close(None))) | None | Some(Err(_)) => return 1005,
            Some(Ok(_)) => continue,
        }
    }
}

#[tokio::test]
async fn losing_access_closes_the_stream_on_every_node() {
    let app = spawn_app().await;
    let _admin = app.new_user().await;
    let owner = app.new_user().await;
    let game_id = app.create_game(&owner).await;
    let key = app.create_key(&owner, &game_id, "production").await;
    let (viewer, viewer_id) = app.new_member(&owner, &game_id, "viewer").await;

    // With Redis the viewer watches through another node than the one the change is made on.
    let other = match services_backend() {
        true => Some(spawn_on(app.backend.clone(), |_| {}).await),
        false => None,
    };
    let viewer_node = other.as_ref().unwrap_or(&app);
    let mut watching = open_stream(viewer_node, &game_id, Some(&viewer))
        .await
        .expect("the viewer connects");
    let mut owning = open_stream(&app, &game_id, Some(&owner))
        .await
        .expect("the owner connects");

    let (status, _) = read(
        app.dashboard(
            Method::DELETE,
            &format!("/v1/games/{game_id}/members/{viewer_id}"),
            &owner,
        )
        .send()
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(status, 204);
    assert_eq!(closed(&mut watching, 5).await, 1008, "policy violation");
    match open_stream(viewer_node, &game_id, Some(&viewer)).await {
        Err(status) => assert_eq!(status, 403),
        Ok(_) => panic!("a removed member must not reconnect"),
    }

    // Everyone else's feed goes on, and the revocation itself never reaches a dashboard.
    set_activity(
        &app,
        &key,
        json!({ "player_id": "ana", "activity": "Raid" }),
    )
    .await;
    let updated = next_message(&mut owning, 5).await;
    assert_eq!(
        (updated["type"].as_str(), updated["player_id"].as_str()),
        (Some("activity.updated"), Some("ana"))
    );

    let (status, _) = read(
        app.dashboard(Method::DELETE, &format!("/v1/games/{game_id}"), &owner)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 204);
    assert_eq!(closed(&mut owning, 5).await, 1008);
}
