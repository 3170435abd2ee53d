//! Player data rights: `GET`/`DELETE /v1/games/{id}/players/{player_id}/data` (export and
//! erase everything stored about one player) and `GET /v1/games/{id}/audit` (the record of
//! both). Each test seeds two players, so it can tell that the other one is untouched.
//! Tournaments and leaderboard results in a player's data: `player_data/tournaments.rs`.
mod tournaments;

use crate::helpers::{spawn_app, Fetch, TestApp};
use reqwest::Method;
use serde_json::{json, Value};

/// Gives `player` an event of each of two names, a leaderboard score, an achievement
/// unlock, a cloud save and a presence entry.
async fn seed_player(app: &TestApp, key: &str, player: &str, score: f64) {
    let events = json!([
        { "event_name": "level_start", "session_id": "s-1", "player_id": player, "properties": { "level": 1 } },
        { "event_name": "level_complete", "session_id": "s-1", "player_id": player },
    ]);
    let (status, body) = app.game_json(Method::POST, "/v1/track", key, events).await;
    assert_eq!(status, 202, "{body}");
    app.game(Method::POST, "/v1/leaderboards", key)
        .json(&json!({ "board_name": "arena", "player_id": player, "score": score }))
        .expect_status(200)
        .await;
    app.game(Method::POST, "/v1/achievements/unlock", key)
        .json(&json!({ "achievement_key": "first_blood", "player_id": player }))
        .expect_status(200)
        .await;
    app.game(Method::PUT, &format!("/v1/saves/{player}/slot-1"), key)
        .json(&json!({ "data": { "gold": 12 }, "version": 0 }))
        .expect_status(200)
        .await;
    app.game(Method::POST, "/v1/activity", key)
        .json(&json!({ "player_id": player, "activity": "In a match" }))
        .expect_status(200)
        .await;
}

/// A game with an achievement and two seeded players, ana and bob: (token, game_id, key).
async fn game_with_two_players(app: &TestApp) -> (String, String, String) {
    let (token, game_id, key) = app.game_with_key().await;
    app.dashboard(
        Method::POST,
        &format!("/v1/games/{game_id}/achievements"),
        &token,
    )
    .json(&json!({ "key": "first_blood", "name": "First Blood", "description": "", "points": 10 }))
    .expect_status(201)
    .await;
    seed_player(app, &key, "ana", 10.0).await;
    seed_player(app, &key, "bob", 20.0).await;
    (token, game_id, key)
}

async fn export(app: &TestApp, token: &str, game_id: &str, player: &str) -> (u16, Value) {
    app.dashboard(
        Method::GET,
        &format!("/v1/games/{game_id}/players/{player}/data"),
        token,
    )
    .fetch()
    .await
}

async fn erase(app: &TestApp, token: &str, game_id: &str, player: &str) -> (u16, Value) {
    app.dashboard_call(
        Method::DELETE,
        &format!("/v1/games/{game_id}/players/{player}/data"),
        token,
    )
    .await
}

fn counts(events: u64, stored: u64, presence: u64) -> Value {
    json!({
        "events": events, "leaderboard_entries": stored, "leaderboard_bans": 0,
        "tournaments": 0, "leaderboard_results": 0, "achievement_unlocks": stored, "saves": stored, "presence": presence,
        "player_identities": 0
    })
}

#[tokio::test]
async fn an_export_holds_everything_about_the_player_and_nothing_of_others() {
    let app = spawn_app().await;
    let (token, game_id, _key) = game_with_two_players(&app).await;

    let response = app
        .dashboard(
            Method::GET,
            &format!("/v1/games/{game_id}/players/ana/data"),
            &token,
        )
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["content-disposition"],
        "attachment; filename=\"player-ana.json\""
    );
    let document: Value = response.json().await.unwrap();

    assert_eq!(document["player_id"], "ana");
    assert_eq!(document["game_id"], game_id.as_str());
    assert_eq!(document["counts"], counts(2, 1, 1));
    let names: Vec<&str> = document["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["event_name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 2, "{document}");
    assert!(names.contains(&"level_start") && names.contains(&"level_complete"));
    let entries = document["leaderboard_entries"].as_array().unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0]["board_name"], "arena");
    assert_eq!(entries[0]["score"], 10.0);
    assert_eq!(
        document["achievement_unlocks"][0]["achievement_key"],
        "first_blood"
    );
    assert_eq!(document["saves"][0]["slot"], "slot-1");
    assert_eq!(document["saves"][0]["data"], json!({ "gold": 12 }));
    assert_eq!(document["presence"]["activity"], "In a match");
    assert!(!document.to_string().contains("bob"), "{document}");
}

#[tokio::test]
async fn an_unknown_player_exports_an_empty_document() {
    let app = spawn_app().await;
    let (token, game_id, _key) = app.game_with_key().await;

    let (status, document) = export(&app, &token, &game_id, "nobody").await;

    assert_eq!(status, 200, "{document}");
    assert_eq!(document["counts"], counts(0, 0, 0));
    assert_eq!(document["events"], json!([]));
    assert_eq!(document["presence"], Value::Null);
}

#[tokio::test]
async fn an_erase_removes_the_player_everywhere_and_leaves_others_untouched() {
    let app = spawn_app().await;
    let (token, game_id, key) = game_with_two_players(&app).await;

    let (status, erased) = erase(&app, &token, &game_id, "ana").await;

    assert_eq!(status, 200, "{erased}");
    assert_eq!(
        erased,
        json!({ "player_id": "ana", "deleted": counts(2, 1, 1) })
    );
    let (_, after) = export(&app, &token, &game_id, "ana").await;
    assert_eq!(after["counts"], counts(0, 0, 0), "{after}");
    // What the game sees: the live ranking, presence, saves and unlocks.
    let board = app
        .game(Method::GET, "/v1/leaderboards/arena", &key)
        .expect_status(200)
        .await;
    let players: Vec<&str> = board["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["player_id"].as_str().unwrap())
        .collect();
    assert_eq!(players, ["bob"], "{board}");
    assert_eq!(
        app.game_call(Method::GET, "/v1/presence/ana", &key).await.0,
        404
    );
    assert_eq!(
        app.game_call(Method::GET, "/v1/presence/bob", &key).await.0,
        200
    );
    let (_, saves) = app.game_call(Method::GET, "/v1/saves/ana", &key).await;
    assert_eq!(saves["saves"], json!([]), "{saves}");
    let (_, unlocks) = app
        .game_call(Method::GET, "/v1/achievements?player_id=ana", &key)
        .await;
    assert_eq!(unlocks["unlocked_points"], 0, "{unlocks}");
    // bob keeps all of his.
    let (_, bob) = export(&app, &token, &game_id, "bob").await;
    assert_eq!(bob["counts"], counts(2, 1, 1), "{bob}");
}

#[tokio::test]
async fn the_audit_lists_exports_and_erasures_newest_first_with_who_did_them() {
    let app = spawn_app().await;
    let (token, game_id, _key) = game_with_two_players(&app).await;
    let (_, me) = app.dashboard_call(Method::GET, "/v1/auth/me", &token).await;

    assert_eq!(export(&app, &token, &game_id, "ana").await.0, 200);
    app.clock.advance(chrono::Duration::seconds(1));
    assert_eq!(erase(&app, &token, &game_id, "ana").await.0, 200);
    app.clock.advance(chrono::Duration::seconds(1));
    assert_eq!(export(&app, &token, &game_id, "bob").await.0, 200);

    let audit_path = format!("/v1/games/{game_id}/audit");
    let (status, page) = app.dashboard_call(Method::GET, &audit_path, &token).await;
    assert_eq!(status, 200, "{page}");
    let entries = page["entries"].as_array().unwrap();
    let seen: Vec<(&str, &str)> = entries
        .iter()
        .map(|e| {
            (
                e["action"].as_str().unwrap(),
                e["player_id"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [("export", "bob"), ("erase", "ana"), ("export", "ana")]
    );
    assert_eq!(entries[1]["counts"], counts(2, 1, 1));
    assert_eq!(entries[1]["user_id"], me["id"]);
    assert_eq!(entries[1]["user_email"], me["email"]);
    assert_eq!(page["next_offset"], Value::Null);

    let (_, first) = app
        .dashboard_call(Method::GET, &format!("{audit_path}?limit=2"), &token)
        .await;
    assert_eq!(first["entries"].as_array().unwrap().len(), 2);
    assert_eq!(first["next_offset"], 2);
    let (_, rest) = app
        .dashboard_call(
            Method::GET,
            &format!("{audit_path}?limit=2&offset=2"),
            &token,
        )
        .await;
    assert_eq!(rest["entries"][0]["player_id"], "ana");
    assert_eq!(rest["next_offset"], Value::Null);
}

#[tokio::test]
async fn only_the_owner_exports_erases_or_reads_the_audit() {
    let app = spawn_app().await;
    let (token, game_id, _key) = game_with_two_players(&app).await;
    let (editor, _) = app.new_member(&token, &game_id, "editor").await;
    let stranger = app.new_user().await;

    for caller in [&editor, &stranger] {
        assert_eq!(export(&app, caller, &game_id, "ana").await.0, 403);
        assert_eq!(erase(&app, caller, &game_id, "ana").await.0, 403);
        app.dashboard(Method::GET, &format!("/v1/games/{game_id}/audit"), caller)
            .expect_status(403)
            .await;
    }
    let (_, ana) = export(&app, &token, &game_id, "ana").await;
    assert_eq!(ana["counts"], counts(2, 1, 1), "nothing was erased");
}

#[tokio::test]
async fn bad_input_is_refused_with_a_clear_message() {
    let app = spawn_app().await;
    let (token, game_id, _key) = app.game_with_key().await;

    let too_long = "p".repeat(129);
    for (path, what) in [
        (
            format!("/v1/games/{game_id}/players/{too_long}/data"),
            "a player id of 129 characters",
        ),
        (
            format!("/v1/games/{game_id}/players/a%00b/data"),
            "a NUL in the player id",
        ),
        (format!("/v1/games/{game_id}/audit?limit=0"), "limit 0"),
        (
            format!("/v1/games/{game_id}/audit?limit=101"),
            "limit above 100",
        ),
    ] {
        let (status, body) = app.dashboard_call(Method::GET, &path, &token).await;
        assert_eq!(status, 400, "{what}: {body}");
        assert!(body["error"].is_string(), "{what}: {body}");
    }
}

#[tokio::test]
async fn a_player_with_more_events_than_one_read_exports_and_erases_every_one() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    // 1,250 events: more than one export read (1,000 rows) holds.
    for batch in 0..13 {
        let size = if batch == 12 { 50 } else { 100 };
        let events: Vec<Value> = (0..size)
            .map(|i| json!({ "event_name": "tick", "session_id": "s", "player_id": "ana", "properties": { "n": batch * 100 + i } }))
            .collect();
        app.game(Method::POST, "/v1/track", &key)
            .json(&Value::Array(events))
            .expect_status(202)
            .await;
    }
    let bob_events = json!([
        { "event_name": "tick", "session_id": "s", "player_id": "bob" },
        { "event_name": "tick", "session_id": "s", "player_id": "bob" },
    ]);
    assert_eq!(
        app.game_json(Method::POST, "/v1/track", &key, bob_events)
            .await
            .0,
        202
    );

    let (status, document) = export(&app, &token, &game_id, "ana").await;
    assert_eq!(status, 200);
    let mut seen: Vec<u64> = document["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["properties"]["n"].as_u64().unwrap())
        .collect();
    seen.sort();
    assert_eq!(seen, (0..1250).collect::<Vec<u64>>());

    let (_, erased) = erase(&app, &token, &game_id, "ana").await;
    assert_eq!(erased["deleted"]["events"], 1250);
    let (_, bob) = export(&app, &token, &game_id, "bob").await;
    assert_eq!(bob["counts"]["events"], 2, "{bob}");
}

#[tokio::test]
async fn an_erase_takes_the_player_off_archived_and_current_periods_and_drops_bans() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    app.dashboard(
        Method::POST,
        &format!("/v1/games/{game_id}/leaderboards"),
        &token,
    )
    .json(&json!({ "board_name": "daily", "period": "daily" }))
    .expect_status(201)
    .await;
    let submit = |player: &'static str, score: f64| {
        let body = json!({ "board_name": "daily", "player_id": player, "score": score });
        app.game_json(Method::POST, "/v1/leaderboards", &key, body)
    };
    let yesterday = app.state.now().format("%Y-%m-%d").to_string();
    assert_eq!(submit("ana", 30.0).await.0, 200);
    assert_eq!(submit("bob", 20.0).await.0, 200);
    app.clock.advance(chrono::Duration::days(1));
    playtrace::leaderboards::archive_finished_periods(&app.state)
        .await
        .unwrap();
    assert_eq!(submit("ana", 5.0).await.0, 200);
    assert_eq!(submit("bob", 4.0).await.0, 200);
    // Banned from another board (a ban also drops that board's entries).
    let arena = json!({ "board_name": "arena", "player_id": "ana", "score": 1.0 });
    assert_eq!(
        app.game_json(Method::POST, "/v1/leaderboards", &key, arena)
            .await
            .0,
        200
    );
    app.dashboard(
        Method::POST,
        &format!("/v1/games/{game_id}/leaderboards/arena/entries/ana/ban"),
        &token,
    )
    .expect_status(200)
    .await;

    let (status, erased) = erase(&app, &token, &game_id, "ana").await;

    assert_eq!(status, 200, "{erased}");
    assert_eq!(erased["deleted"]["leaderboard_entries"], 2, "{erased}");
    assert_eq!(erased["deleted"]["leaderboard_bans"], 1, "{erased}");
    for query in [format!("daily?period={yesterday}"), "daily".to_string()] {
        let (_, page) = app
            .game_call(Method::GET, &format!("/v1/leaderboards/{query}"), &key)
            .await;
        let players: Vec<&str> = page["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["player_id"].as_str().unwrap())
            .collect();
        assert_eq!(players, ["bob"], "{query}: {page}");
    }
    let (_, bans) = app
        .dashboard_call(
            Method::GET,
            &format!("/v1/games/{game_id}/leaderboards/arena/bans"),
            &token,
        )
        .await;
    assert_eq!(bans["bans"], json!([]), "{bans}");
}

/// Issue 27: a player id `/v1/track` accepts (any text of 1 to 128 characters) is one the
/// player routes reach: export and erase find the events of `Zoë`.
#[tokio::test]
async fn a_player_id_events_accept_can_be_exported_and_erased() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    app.game(Method::POST, "/v1/track", &key)
        .json(&json!({ "event_name": "level_start", "session_id": "s-1", "player_id": "Zoë" }))
        .expect_status(202)
        .await;

    let response = app
        .dashboard(
            Method::GET,
            &format!("/v1/games/{game_id}/players/Zo%C3%AB/data"),
            &token,
        )
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["content-disposition"],
        "attachment; filename=\"player-Zo_.json\"; filename*=UTF-8''player-Zo%C3%AB.json"
    );
    let document: Value = response.json().await.unwrap();
    assert_eq!(document["player_id"], "Zoë");
    assert_eq!(document["counts"]["events"], 1, "{document}");
    assert_eq!(document["events"][0]["player_id"], "Zoë", "{document}");

    let (status, erased) = erase(&app, &token, &game_id, "Zo%C3%AB").await;
    assert_eq!(status, 200, "{erased}");
    assert_eq!(erased["player_id"], "Zoë");
    assert_eq!(erased["deleted"]["events"], 1, "{erased}");
    let (status, after) = export(&app, &token, &game_id, "Zo%C3%AB").await;
    assert_eq!(status, 200, "{after}");
    assert_eq!(after["counts"]["events"], 0, "{after}");
}
