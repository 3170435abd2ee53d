//! Black-box tests of leaderboards, plus the conformance suite of the `Leaderboards` hot-store
//! trait (in-process always, Redis on the services backend).
use crate::helpers::{read, services_backend, spawn_app, spawn_on, TestApp};
use chrono::{Datelike, Duration, Utc};
use playtrace::store::hot::{
    leaderboards::{HotBoard, HotEntry},
    HotStore,
};
use reqwest::Method;
use serde_json::{json, Value};
use uuid::Uuid;

// ---------------------------------------------------------------------------------------------
// Conformance suite of the hot-store trait
// ---------------------------------------------------------------------------------------------

use crate::helpers::hot_stores as stores;

fn board(lower_is_better: bool) -> HotBoard {
    HotBoard {
        board_id: Uuid::new_v4().to_string(),
        period: "all_time".into(),
        lower_is_better,
        expires_at: Some(Utc::now() + Duration::hours(2)),
    }
}

fn entry(player: &str, score: f64, reached_micros: i64) -> HotEntry {
    HotEntry {
        player_id: player.into(),
        score,
        reached_micros,
        payload: format!("{{\"p\":\"{player}\"}}"),
    }
}

/// (player, score, rank) of a whole board.
async fn standings(store: &HotStore, board: &HotBoard) -> Vec<(String, f64, u64)> {
    let page = store
        .leaderboards
        .page(board, 0, 1000, Utc::now())
        .await
        .unwrap()
        .expect("board loaded");
    page.entries
        .into_iter()
        .map(|r| (r.entry.player_id, r.entry.score, r.rank))
        .collect()
}

#[tokio::test]
async fn hot_boards_keep_the_best_score_and_rank_ties_by_who_reached_them_first() {
    for (name, store) in stores().await {
        let now = Utc::now();
        for lower in [false, true] {
            let board = board(lower);
            store
                .leaderboards
                .load(&board, &[], true, now)
                .await
                .unwrap();
            let better = if lower { 50.0 } else { 150.0 };
            let worse = if lower { 150.0 } else { 50.0 };

            let first = store
                .leaderboards
                .submit(&board, &entry("ann", 100.0, 10), now)
                .await
                .unwrap()
                .unwrap();
            assert!(first.changed, "{name}: a first score is stored");
            assert_eq!(first.standing.rank, 1, "{name}");
            let worse_kept = store
                .leaderboards
                .submit(&board, &entry("ann", worse, 20), now)
                .await
                .unwrap()
                .unwrap();
            assert!(!worse_kept.changed, "{name}: a worse score changes nothing");
            assert_eq!(
                worse_kept.standing.entry,
                entry("ann", 100.0, 10),
                "{name}: the stored entry is answered"
            );
            let equal = store
                .leaderboards
                .submit(&board, &entry("ann", 100.0, 30), now)
                .await
                .unwrap()
                .unwrap();
            assert!(!equal.changed, "{name}: an equal score changes nothing");
            let improved = store
                .leaderboards
                .submit(&board, &entry("ann", better, 40), now)
                .await
                .unwrap()
                .unwrap();
            assert!(improved.changed, "{name}: a better score replaces");
            assert_eq!(improved.standing.entry.score, better, "{name}");

            // Ties: bob reaches ann's score later than cid, so cid ranks ahead of bob.
            store
                .leaderboards
                .submit(&board, &entry("cid", better, 50), now)
                .await
                .unwrap();
            store
                .leaderboards
                .submit(&board, &entry("bob", better, 60), now)
                .await
                .unwrap();
            store
                .leaderboards
                .submit(&board, &entry("dan", worse, 5), now)
                .await
                .unwrap();
            assert_eq!(
                standings(&store, &board).await,
                vec![
                    ("ann".into(), better, 1),
                    ("cid".into(), better, 2),
                    ("bob".into(), better, 3),
                    ("dan".into(), worse, 4)
                ],
                "{name} lower={lower}"
            );
        }
    }
}

#[tokio::test]
async fn hot_boards_are_absent_until_loaded_and_after_they_expire() {
    for (name, store) in stores().await {
        let now = Utc::now();
        let board = board(false);
        let lb = &store.leaderboards;
        assert!(
            lb.submit(&board, &entry("ann", 1.0, 1), now)
                .await
                .unwrap()
                .is_none(),
            "{name}: not loaded"
        );
        assert!(
            lb.page(&board, 0, 10, now).await.unwrap().is_none(),
            "{name}"
        );
        assert!(
            lb.around(&board, "ann", 2, now).await.unwrap().is_none(),
            "{name}"
        );

        // A rebuild in two batches: the board is loaded once the last one is in.
        lb.load(
            &board,
            &[entry("ann", 5.0, 1), entry("bob", 7.0, 2)],
            false,
            now,
        )
        .await
        .unwrap();
        assert!(
            lb.page(&board, 0, 10, now).await.unwrap().is_none(),
            "{name}: loaded only when complete"
        );
        lb.load(
            &board,
            &[entry("ann", 9.0, 3), entry("cid", 1.0, 4)],
            true,
            now,
        )
        .await
        .unwrap();
        assert_eq!(
            standings(&store, &board).await,
            vec![
                ("ann".into(), 9.0, 1),
                ("bob".into(), 7.0, 2),
                ("cid".into(), 1.0, 3)
            ],
            "{name}: loads merge keep-best"
        );
        // Loading an older copy of an entry never rolls a better live score back.
        lb.load(&board, &[entry("ann", 5.0, 1)], true, now)
            .await
            .unwrap();
        assert_eq!(
            standings(&store, &board).await[0],
            ("ann".into(), 9.0, 1),
            "{name}"
        );

        lb.expire(&board, 0, now).await.unwrap();
        assert!(
            lb.page(&board, 0, 10, now).await.unwrap().is_none(),
            "{name}: dropped at once"
        );

        let empty = board.clone();
        lb.load(&empty, &[], true, now).await.unwrap();
        let page = lb
            .page(&empty, 0, 10, now)
            .await
            .unwrap()
            .expect("an empty board is loaded too");
        assert_eq!((page.total, page.entries.len()), (0, 0), "{name}");
    }
}

#[tokio::test]
async fn memory_boards_expire_with_the_clock() {
    let store = HotStore::in_process();
    let now = Utc::now();
    let mut board = board(false);
    board.expires_at = Some(now + Duration::minutes(5));
    store
        .leaderboards
        .load(&board, &[entry("ann", 1.0, 1)], true, now)
        .await
        .unwrap();
    assert!(store
        .leaderboards
        .page(&board, 0, 1, now + Duration::minutes(4))
        .await
        .unwrap()
        .is_some());
    assert!(store
        .leaderboards
        .page(&board, 0, 1, now + Duration::minutes(6))
        .await
        .unwrap()
        .is_none());
}

#[tokio::test]
async fn hot_boards_page_find_neighbours_and_remove_players() {
    for (name, store) in stores().await {
        let now = Utc::now();
        let board = board(false);
        let lb = &store.leaderboards;
        let entries: Vec<HotEntry> = (0..20)
            .map(|i| entry(&format!("p{i:02}"), i as f64, i))
            .collect();
        lb.load(&board, &entries, true, now).await.unwrap();

        let page = lb.page(&board, 5, 3, now).await.unwrap().unwrap();
        assert_eq!(page.total, 20, "{name}");
        let ranks: Vec<(u64, String)> = page
            .entries
            .iter()
            .map(|r| (r.rank, r.entry.player_id.clone()))
            .collect();
        assert_eq!(
            ranks,
            vec![(6, "p14".into()), (7, "p13".into()), (8, "p12".into())],
            "{name}"
        );
        assert_eq!(
            page.entries[0].entry.payload, "{\"p\":\"p14\"}",
            "{name}: payload kept"
        );
        assert!(
            lb.page(&board, 50, 10, now)
                .await
                .unwrap()
                .unwrap()
                .entries
                .is_empty(),
            "{name}: past the end"
        );
        assert!(
            lb.page(&board, 0, 0, now)
                .await
                .unwrap()
                .unwrap()
                .entries
                .is_empty(),
            "{name}: limit 0"
        );

        let around = lb.around(&board, "p10", 2, now).await.unwrap().unwrap();
        assert_eq!(around.player.as_ref().map(|p| p.rank), Some(10), "{name}");
        let neighbours: Vec<u64> = around.entries.iter().map(|r| r.rank).collect();
        assert_eq!(neighbours, vec![8, 9, 10, 11, 12], "{name}");
        let top = lb.around(&board, "p19", 3, now).await.unwrap().unwrap();
        assert_eq!(
            top.entries.iter().map(|r| r.rank).collect::<Vec<_>>(),
            vec![1, 2, 3, 4],
            "{name}: clipped at the top"
        );
        let absent = lb.around(&board, "nobody", 3, now).await.unwrap().unwrap();
        assert!(
            absent.player.is_none() && absent.entries.is_empty(),
            "{name}"
        );

        assert!(lb.remove(&board, "p19", now).await.unwrap(), "{name}");
        assert!(
            !lb.remove(&board, "p19", now).await.unwrap(),
            "{name}: already gone"
        );
        let page = lb.page(&board, 0, 1, now).await.unwrap().unwrap();
        assert_eq!(
            (page.total, page.entries[0].entry.player_id.as_str()),
            (19, "p18"),
            "{name}"
        );
    }
}

#[tokio::test]
async fn hot_board_versions_change_with_every_change_and_across_rebuilds() {
    for (name, store) in stores().await {
        let now = Utc::now();
        let board = board(false);
        let lb = &store.leaderboards;
        assert_eq!(lb.version(&board, now).await.unwrap(), None, "{name}");
        lb.load(&board, &[entry("ann", 10.0, 1)], true, now)
            .await
            .unwrap();
        let loaded = lb.version(&board, now).await.unwrap().expect("loaded");
        assert_eq!(
            lb.version(&board, now).await.unwrap().as_deref(),
            Some(loaded.as_str()),
            "{name}: reading leaves it"
        );

        let worse = lb.submit(&board, &entry("ann", 5.0, 2), now).await.unwrap();
        assert!(!worse.unwrap().changed);
        let same = lb.version(&board, now).await.unwrap().unwrap();
        assert_eq!(same, loaded, "{name}: a submission that changed nothing");

        lb.submit(&board, &entry("ann", 20.0, 3), now)
            .await
            .unwrap();
        let better = lb.version(&board, now).await.unwrap().unwrap();
        assert_ne!(better, loaded, "{name}: a better score");

        assert!(lb.remove(&board, "ann", now).await.unwrap());
        let removed = lb.version(&board, now).await.unwrap().unwrap();
        assert_ne!(removed, better, "{name}: a removal");

        lb.expire(&board, 0, now).await.unwrap();
        assert_eq!(lb.version(&board, now).await.unwrap(), None, "{name}");
        lb.load(&board, &[], true, now).await.unwrap();
        let rebuilt = lb.version(&board, now).await.unwrap().unwrap();
        assert!(
            ![&loaded, &better, &removed].contains(&&rebuilt),
            "{name}: a rebuilt board never repeats a version"
        );
    }
}

#[tokio::test]
async fn hot_boards_keep_the_best_of_concurrent_submissions() {
    for (name, store) in stores().await {
        let now = Utc::now();
        let board = board(false);
        store
            .leaderboards
            .load(&board, &[], true, now)
            .await
            .unwrap();
        let mut tasks = Vec::new();
        for i in 0..60i64 {
            // Scores go up and down as they race; the best is computed below.
            let score = ((i * 37) % 101) as f64;
            let (racer_store, racer_board) = (store.clone(), board.clone());
            tasks.push(tokio::spawn(async move {
                racer_store
                    .leaderboards
                    .submit(&racer_board, &entry("racer", score, i), now)
                    .await
                    .unwrap()
                    .unwrap()
            }));
            let (store, board) = (store.clone(), board.clone());
            tasks.push(tokio::spawn(async move {
                store
                    .leaderboards
                    .submit(&board, &entry(&format!("other{i}"), 1.0, i), now)
                    .await
                    .unwrap()
                    .unwrap()
            }));
        }
        for task in tasks {
            task.await.unwrap();
        }
        let best = (0..60i64).map(|i| (i * 37) % 101).max().unwrap() as f64;
        let page = store
            .leaderboards
            .page(&board, 0, 1, now)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(page.total, 61, "{name}: one entry per player");
        assert_eq!(page.entries[0].entry.player_id, "racer", "{name}");
        assert_eq!(
            page.entries[0].entry.score, best,
            "{name}: the best score survived the race"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// HTTP: helpers
// ---------------------------------------------------------------------------------------------

async fn submit(app: &TestApp, key: &str, body: Value) -> (u16, Value) {
    read(
        app.game(Method::POST, "/v1/leaderboards", key)
            .json(&body)
            .send()
            .await
            .unwrap(),
    )
    .await
}

async fn score(app: &TestApp, key: &str, board: &str, player: &str, score: f64) -> Value {
    let (status, body) = submit(
        app,
        key,
        json!({ "board_name": board, "player_id": player, "score": score }),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    body
}

async fn board_page(app: &TestApp, key: &str, path_and_query: &str) -> (u16, Value) {
    read(
        app.game(
            Method::GET,
            &format!("/v1/leaderboards/{path_and_query}"),
            key,
        )
        .send()
        .await
        .unwrap(),
    )
    .await
}

/// (player_id, score, rank) of every entry on the first page of a board.
async fn ranking(app: &TestApp, key: &str, path_and_query: &str) -> Vec<(String, f64, u64)> {
    let (status, body) = board_page(app, key, path_and_query).await;
    assert_eq!(status, 200, "{body}");
    body["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["player_id"].as_str().unwrap().to_string(),
                e["score"].as_f64().unwrap(),
                e["rank"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn ranked(rows: &[(&str, f64)]) -> Vec<(String, f64, u64)> {
    rows.iter()
        .enumerate()
        .map(|(i, (p, s))| (p.to_string(), *s, i as u64 + 1))
        .collect()
}

async fn define(app: &TestApp, token: &str, game_id: &str, body: Value) -> (u16, Value) {
    read(
        app.dashboard(
            Method::POST,
            &format!("/v1/games/{game_id}/leaderboards"),
            token,
        )
        .json(&body)
        .send()
        .await
        .unwrap(),
    )
    .await
}

async fn dashboard(app: &TestApp, method: Method, path: &str, token: &str) -> (u16, Value) {
    read(app.dashboard(method, path, token).send().await.unwrap()).await
}

// ---------------------------------------------------------------------------------------------
// HTTP: submissions and reads
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn a_score_is_ranked_at_once_and_only_a_better_one_replaces_it() {
    let app = spawn_app().await;
    let (_, _, key) = app.game_with_key().await;

    let (status, first) = submit(
        &app,
        &key,
        json!({ "board_name": "arena", "player_id": "ann", "score": 1500, "player_name": "Ann", "metadata": { "level": 3 } }),
    )
    .await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(first["board_name"], "arena");
    assert_eq!(first["player_id"], "ann");
    assert_eq!(first["player_name"], "Ann");
    assert_eq!(
        first["score"],
        json!(1500),
        "whole scores read back as integers"
    );
    assert_eq!(first["metadata"], json!({ "level": 3 }));
    assert_eq!(first["rank"], 1);
    assert_eq!(first["updated"], true);
    assert!(first["updated_at"].as_str().unwrap().ends_with('Z'));

    let (status, worse) = read(
        app.game(Method::POST, "/v1/leaderboards/arena/entries", &key)
            .json(&json!({ "player_id": "ann", "score": 900, "player_name": "Someone else", "metadata": { "level": 9 } }))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200, "{worse}");
    assert_eq!(worse["updated"], false, "a lower score leaves the entry");
    assert_eq!(worse["score"], 1500);
    assert_eq!(worse["player_name"], "Ann", "nothing of the entry changed");
    assert_eq!(worse["metadata"], json!({ "level": 3 }));

    let (_, equal) = submit(
        &app,
        &key,
        json!({ "board_name": "arena", "player_id": "ann", "score": 1500 }),
    )
    .await;
    assert_eq!(equal["updated"], false, "an equal score leaves the entry");

    score(&app, &key, "arena", "bob", 1700.5).await;
    let better = score(&app, &key, "arena", "ann", 2000.0).await;
    assert_eq!(
        (better["updated"].clone(), better["rank"].clone()),
        (json!(true), json!(1))
    );
    assert_eq!(
        better["player_name"],
        Value::Null,
        "a replacing submission brings its own name"
    );

    let (status, page) = board_page(&app, &key, "arena").await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(page["board_name"], "arena");
    assert_eq!(page["leaderboard"], "arena");
    assert_eq!(page["total"], 2);
    assert_eq!(page["period"], "all_time");
    assert_eq!(
        ranking(&app, &key, "arena").await,
        ranked(&[("ann", 2000.0), ("bob", 1700.5)])
    );
    assert_eq!(page["entries"][1]["score"], json!(1700.5));
}

#[tokio::test]
async fn equal_scores_rank_by_who_reached_them_first() {
    let app = spawn_app().await;
    let (_, _, key) = app.game_with_key().await;
    for player in ["late", "early"] {
        score(&app, &key, "ties", player, 10.0).await;
    }
    app.clock.advance(Duration::seconds(1));
    score(&app, &key, "ties", "early", 50.0).await;
    app.clock.advance(Duration::seconds(1));
    score(&app, &key, "ties", "late", 50.0).await;
    score(&app, &key, "ties", "third", 50.0).await;
    assert_eq!(
        ranking(&app, &key, "ties").await,
        ranked(&[("early", 50.0), ("late", 50.0), ("third", 50.0)])
    );
}

#[tokio::test]
async fn bad_submissions_are_refused_with_400() {
    let app = spawn_app().await;
    let (_, _, key) = app.game_with_key().await;
    let long_name = "b".repeat(256);
    let cases = [
        (
            json!({ "player_id": "p", "score": 1 }),
            "board_name missing",
        ),
        (
            json!({ "board_name": "b", "score": 1 }),
            "player_id missing",
        ),
        (
            json!({ "board_name": "b", "player_id": "p" }),
            "score missing",
        ),
        (
            json!({ "board_name": "b", "player_id": "p", "score": "100" }),
            "score as a string",
        ),
        (
            json!({ "board_name": "b", "player_id": "p", "score": null }),
            "score null",
        ),
        (
            json!({ "board_name": long_name, "player_id": "p", "score": 1 }),
            "board_name over 255 characters",
        ),
        (
            json!({ "board_name": "", "player_id": "p", "score": 1 }),
            "empty board_name",
        ),
        (
            json!({ "board_name": "b", "player_id": "", "score": 1 }),
            "empty player_id",
        ),
        (
            json!({ "board_name": "b", "player_id": "p".repeat(129), "score": 1 }),
            "player_id too long",
        ),
        (
            json!({ "board_name": "b", "player_id": ["p"], "score": 1 }),
            "player_id an array",
        ),
        (
            json!({ "board_name": "b", "player_id": "p", "score": 1, "metadata": [1] }),
            "metadata an array",
        ),
        (
            json!({ "board_name": "b", "player_id": "p", "score": 1, "metadata": "x" }),
            "metadata a string",
        ),
        (
            json!({ "board_name": "b", "player_id": "p", "score": 1, "metadata": { "x": "y".repeat(5000) } }),
            "metadata too big",
        ),
        (
            json!({ "board_name": "b", "player_id": "p", "score": 1, "player_name": "n".repeat(129) }),
            "player_name too long",
        ),
        (
            json!({ "board_name": "b", "player_id": "p", "score": 1, "cheat": true }),
            "unknown field",
        ),
        (
            json!([{ "board_name": "b", "player_id": "p", "score": 1 }]),
            "an array",
        ),
    ];
    for (body, case) in cases {
        let (status, answer) = submit(&app, &key, body).await;
        assert_eq!(status, 400, "{case}: {answer}");
        assert!(answer["error"].is_string(), "{case}: {answer}");
    }
    let ok_name = "b".repeat(255);
    let (status, body) = submit(
        &app,
        &key,
        json!({ "board_name": ok_name, "player_id": "p", "score": 1 }),
    )
    .await;
    assert_eq!(status, 200, "255 characters are fine: {body}");

    let (status, body) = read(
        app.game(Method::POST, "/v1/leaderboards/one/entries", &key)
            .json(&json!({ "board_name": "two", "player_id": "p", "score": 1 }))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 400, "a body naming another board: {body}");
    let (status, body) = board_page(&app, &key, "b").await;
    assert_eq!(
        (status, body["total"].clone()),
        (200, json!(0)),
        "nothing was stored by refused submissions"
    );
}

#[tokio::test]
async fn board_reads_page_with_limit_and_offset_and_refuse_bad_values() {
    let app = spawn_app().await;
    let (_, _, key) = app.game_with_key().await;
    for i in 0..120 {
        score(&app, &key, "big", &format!("p{i:03}"), i as f64).await;
    }
    let (_, page) = board_page(&app, &key, "big").await;
    assert_eq!(
        page["entries"].as_array().unwrap().len(),
        50,
        "default limit 50"
    );
    assert_eq!(
        (
            page["total"].clone(),
            page["limit"].clone(),
            page["offset"].clone()
        ),
        (json!(120), json!(50), json!(0))
    );
    let (_, page) = board_page(&app, &key, "big?limit=100&offset=100").await;
    let entries = page["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 20);
    assert_eq!(
        (entries[0]["rank"].clone(), entries[0]["player_id"].clone()),
        (json!(101), json!("p019"))
    );
    assert_eq!(
        (entries[19]["rank"].clone(), entries[19]["score"].clone()),
        (json!(120), json!(0))
    );
    let (_, page) = board_page(&app, &key, "big?offset=500").await;
    assert!(page["entries"].as_array().unwrap().is_empty());

    for query in [
        "limit=0",
        "limit=101",
        "limit=-1",
        "limit=abc",
        "limit=1.5",
        "offset=-1",
        "offset=x",
        "period=yesterday",
        "period=2026-13",
    ] {
        let (status, body) = board_page(&app, &key, &format!("big?{query}")).await;
        assert_eq!(status, 400, "{query}: {body}");
        assert!(body["error"].is_string(), "{query}");
    }
    let (status, body) = board_page(&app, &key, &"x".repeat(256)).await;
    assert_eq!(status, 400, "{body}");

    let (status, body) = board_page(&app, &key, "never-used").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        (body["total"].clone(), body["entries"].clone()),
        (json!(0), json!([]))
    );
}

#[tokio::test]
async fn boards_need_a_valid_key_and_belong_to_one_game() {
    let app = spawn_app().await;
    let (_, _, key) = app.game_with_key().await;
    let (_, _, other_key) = app.game_with_key().await;
    score(&app, &key, "shared-name", "ann", 10.0).await;
    score(&app, &other_key, "shared-name", "zed", 99.0).await;
    assert_eq!(
        ranking(&app, &key, "shared-name").await,
        ranked(&[("ann", 10.0)])
    );
    assert_eq!(
        ranking(&app, &other_key, "shared-name").await,
        ranked(&[("zed", 99.0)])
    );

    let (status, body) = read(
        app.request(Method::GET, "/v1/leaderboards/shared-name")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 401);
    assert!(body["error"].as_str().unwrap().contains("x-game-api-key"));
    let (status, body) = board_page(&app, "pt_wrong", "shared-name").await;
    assert_eq!(
        (status, body["error"].clone()),
        (401, json!("Invalid API key"))
    );
    let (status, _) = read(
        app.request(Method::POST, "/v1/leaderboards")
            .json(&json!({ "board_name": "b", "player_id": "p", "score": 1 }))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 401);
}

#[tokio::test]
async fn a_player_sees_their_rank_and_neighbours() {
    let app = spawn_app().await;
    let (_, _, key) = app.game_with_key().await;
    for i in 1..=12 {
        score(&app, &key, "climb", &format!("p{i:02}"), (i * 10) as f64).await;
    }
    let (status, body) = board_page(&app, &key, "climb/players/p06?around=2").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        (body["rank"].clone(), body["total"].clone()),
        (json!(7), json!(12))
    );
    assert_eq!(body["entry"]["player_id"], "p06");
    let neighbours: Vec<&str> = body["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["player_id"].as_str().unwrap())
        .collect();
    assert_eq!(neighbours, vec!["p08", "p07", "p06", "p05", "p04"]);

    let (_, top) = board_page(&app, &key, "climb/players/p12").await;
    assert_eq!(top["rank"], 1);
    assert_eq!(
        top["entries"].as_array().unwrap().len(),
        6,
        "default 5 either side, clipped at the top"
    );

    let (status, body) = board_page(&app, &key, "climb/players/nobody").await;
    assert_eq!(status, 404, "{body}");
    for query in ["around=-1", "around=51", "around=x"] {
        let (status, _) = board_page(&app, &key, &format!("climb/players/p01?{query}")).await;
        assert_eq!(status, 400, "{query}");
    }
}

// ---------------------------------------------------------------------------------------------
// HTTP: definitions
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn editors_define_boards_and_a_lower_is_better_board_keeps_the_lowest() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let (status, created) = define(
        &app,
        &token,
        &game_id,
        json!({ "board_name": "speedrun", "order": "lower", "period": "weekly" }),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(
        (created["order"].clone(), created["period"].clone()),
        (json!("lower"), json!("weekly"))
    );
    let week = created["current_period"].as_str().unwrap().to_string();
    assert!(
        week.len() == 8 && week.contains("-W"),
        "ISO week key: {week}"
    );

    score(&app, &key, "speedrun", "ann", 95.2).await;
    score(&app, &key, "speedrun", "bob", 80.0).await;
    let kept = score(&app, &key, "speedrun", "ann", 120.0).await;
    assert_eq!(kept["updated"], false, "a slower time is worse");
    let improved = score(&app, &key, "speedrun", "ann", 61.5).await;
    assert_eq!(
        (improved["updated"].clone(), improved["rank"].clone()),
        (json!(true), json!(1))
    );
    assert_eq!(
        ranking(&app, &key, "speedrun").await,
        ranked(&[("ann", 61.5), ("bob", 80.0)])
    );
    let (_, page) = board_page(&app, &key, "speedrun").await;
    assert_eq!(page["period"], week.as_str());

    let (status, body) = define(&app, &token, &game_id, json!({ "board_name": "speedrun" })).await;
    assert_eq!(status, 409, "{body}");

    // A board created by a first score is listed with the defaults.
    score(&app, &key, "implicit", "ann", 1.0).await;
    let (status, list) = dashboard(
        &app,
        Method::GET,
        &format!("/v1/games/{game_id}/leaderboards"),
        &token,
    )
    .await;
    assert_eq!(status, 200, "{list}");
    let implicit = list["leaderboards"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["board_name"] == "implicit")
        .unwrap()
        .clone();
    assert_eq!(
        (implicit["order"].clone(), implicit["period"].clone()),
        (json!("higher"), json!("all_time"))
    );

    // Order is fixed once a board has entries; other settings change freely.
    let path = format!("/v1/games/{game_id}/leaderboards/speedrun");
    let (status, body) = read(
        app.dashboard(Method::PATCH, &path, &token)
            .json(&json!({ "order": "higher" }))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 409, "{body}");
    let (status, body) = read(
        app.dashboard(Method::PATCH, &path, &token)
            .json(&json!({ "max_score": 500, "min_score": 1 }))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        (body["min_score"].clone(), body["max_score"].clone()),
        (json!(1), json!(500))
    );
    let (status, body) = read(
        app.dashboard(Method::PATCH, &path, &token)
            .json(&json!({ "max_score": null }))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        (status, body["max_score"].clone(), body["min_score"].clone()),
        (200, Value::Null, json!(1))
    );
    let (status, body) = dashboard(&app, Method::GET, &path, &token).await;
    assert_eq!(
        (status, body["board_name"].clone()),
        (200, json!("speedrun"))
    );

    let (status, _) = dashboard(&app, Method::DELETE, &path, &token).await;
    assert_eq!(status, 204);
    let (status, _) = dashboard(&app, Method::GET, &path, &token).await;
    assert_eq!(status, 404);
    let (_, page) = board_page(&app, &key, "speedrun").await;
    assert_eq!(page["total"], 0, "entries went with the board");
}

#[tokio::test]
async fn definitions_are_validated_and_need_the_right_role() {
    let app = spawn_app().await;
    let _admin = app.new_user().await;
    let (token, game_id, _) = app.game_with_key().await;
    let cases = [
        (json!({ "order": "higher" }), "board_name missing"),
        (json!({ "board_name": "" }), "empty name"),
        (json!({ "board_name": "x".repeat(256) }), "name too long"),
        (
            json!({ "board_name": "b", "order": "best" }),
            "unknown order",
        ),
        (
            json!({ "board_name": "b", "period": "hourly" }),
            "unknown period",
        ),
        (
            json!({ "board_name": "b", "auto_reset_at": "next tuesday" }),
            "bad date",
        ),
        (
            json!({ "board_name": "b", "period": "daily", "auto_reset_at": "2030-01-01T00:00:00Z" }),
            "reset on a daily board",
        ),
        (
            json!({ "board_name": "b", "min_score": 10, "max_score": 5 }),
            "min above max",
        ),
        (
            json!({ "board_name": "b", "min_score": "low" }),
            "bound not a number",
        ),
        (
            json!({ "board_name": "b", "color": "red" }),
            "unknown field",
        ),
    ];
    for (body, case) in cases {
        let (status, answer) = define(&app, &token, &game_id, body).await;
        assert_eq!(status, 400, "{case}: {answer}");
    }

    // A viewer reads but cannot define; a stranger sees nothing.
    let viewer = app.new_user().await;
    let (_, me) = dashboard(&app, Method::GET, "/v1/auth/me", &viewer).await;
    let (status, body) = read(
        app.dashboard(
            Method::POST,
            &format!("/v1/games/{game_id}/members"),
            &token,
        )
        .json(&json!({ "email": me["email"], "role": "viewer" }))
        .send()
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let (status, _) = define(&app, &viewer, &game_id, json!({ "board_name": "b" })).await;
    assert_eq!(status, 403);
    let (status, _) = dashboard(
        &app,
        Method::GET,
        &format!("/v1/games/{game_id}/leaderboards"),
        &viewer,
    )
    .await;
    assert_eq!(status, 200);
    let stranger = app.new_user().await;
    let (status, _) = dashboard(
        &app,
        Method::GET,
        &format!("/v1/games/{game_id}/leaderboards"),
        &stranger,
    )
    .await;
    assert_eq!(status, 403);
    let (status, _) = define(&app, &stranger, &game_id, json!({ "board_name": "b" })).await;
    assert_eq!(status, 403);
    let (status, _) = read(
        app.request(Method::GET, &format!("/v1/games/{game_id}/leaderboards"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 401);
}

// ---------------------------------------------------------------------------------------------
// HTTP: moderation
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn scores_outside_the_bounds_wait_for_approval_and_banned_players_are_refused() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let (status, _) = define(
        &app,
        &token,
        &game_id,
        json!({ "board_name": "guarded", "min_score": 0, "max_score": 1000 }),
    )
    .await;
    assert_eq!(status, 201);
    score(&app, &key, "guarded", "honest", 800.0).await;
    score(&app, &key, "guarded", "lucky", 500.0).await;
    let flagged = score(&app, &key, "guarded", "lucky", 5000.0).await;
    assert_eq!(
        (flagged["status"].clone(), flagged["rank"].clone()),
        (json!("suspicious"), Value::Null)
    );
    let cheat = score(&app, &key, "guarded", "cheat", 999999.0).await;
    assert_eq!(cheat["status"], "suspicious");

    assert_eq!(
        ranking(&app, &key, "guarded").await,
        ranked(&[("honest", 800.0), ("lucky", 500.0)]),
        "suspicious scores stay off the public board"
    );
    let base = format!("/v1/games/{game_id}/leaderboards/guarded/entries");
    let (status, listed) = dashboard(
        &app,
        Method::GET,
        &format!("{base}?status=suspicious"),
        &token,
    )
    .await;
    assert_eq!(status, 200, "{listed}");
    let suspects: Vec<&str> = listed["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["player_id"].as_str().unwrap())
        .collect();
    assert_eq!(suspects, vec!["cheat", "lucky"]);
    assert_eq!(listed["total"], 2);
    let (status, _) = dashboard(&app, Method::GET, &format!("{base}?status=weird"), &token).await;
    assert_eq!(status, 400);

    let (status, approved) =
        dashboard(&app, Method::POST, &format!("{base}/lucky/approve"), &token).await;
    assert_eq!(status, 200, "{approved}");
    assert_eq!(
        (
            approved["score"].clone(),
            approved["rank"].clone(),
            approved["status"].clone()
        ),
        (json!(5000), json!(1), json!("ok"))
    );
    assert_eq!(
        ranking(&app, &key, "guarded").await,
        ranked(&[("lucky", 5000.0), ("honest", 800.0)])
    );
    let (status, _) = dashboard(&app, Method::POST, &format!("{base}/lucky/approve"), &token).await;
    assert_eq!(status, 404, "nothing left to approve");

    score(&app, &key, "guarded", "cheat", 10.0).await;
    let (status, banned) =
        dashboard(&app, Method::POST, &format!("{base}/cheat/ban"), &token).await;
    assert_eq!(status, 200, "{banned}");
    assert_eq!(
        (banned["banned"].clone(), banned["removed_entries"].clone()),
        (json!(true), json!(2))
    );
    assert_eq!(
        ranking(&app, &key, "guarded").await,
        ranked(&[("lucky", 5000.0), ("honest", 800.0)])
    );
    let (status, refused) = submit(
        &app,
        &key,
        json!({ "board_name": "guarded", "player_id": "cheat", "score": 5 }),
    )
    .await;
    assert_eq!(status, 403, "{refused}");
    assert!(refused["error"].as_str().unwrap().contains("banned"));
    let (_, all) = dashboard(&app, Method::GET, &base, &token).await;
    assert!(all["entries"]
        .as_array()
        .unwrap()
        .iter()
        .all(|e| e["player_id"] != "cheat"));

    // Banning is per board; lifting it lets the player back in.
    score(&app, &key, "another-board", "cheat", 5.0).await;
    let (status, _) = dashboard(&app, Method::DELETE, &format!("{base}/cheat/ban"), &token).await;
    assert_eq!(status, 204);
    score(&app, &key, "guarded", "cheat", 5.0).await;
    let (status, _) = dashboard(&app, Method::DELETE, &format!("{base}/cheat/ban"), &token).await;
    assert_eq!(status, 404);

    let (status, _) = dashboard(
        &app,
        Method::POST,
        &format!("/v1/games/{game_id}/leaderboards/nope/entries/x/ban"),
        &token,
    )
    .await;
    assert_eq!(status, 404);
    let viewer_game_stranger = app.new_user().await;
    let (status, _) = dashboard(
        &app,
        Method::POST,
        &format!("{base}/lucky/ban"),
        &viewer_game_stranger,
    )
    .await;
    assert_eq!(status, 403);
}

// ---------------------------------------------------------------------------------------------
// HTTP: periods and archives
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn a_daily_board_starts_empty_each_day_and_keeps_yesterday_readable() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let (_, created) = define(
        &app,
        &token,
        &game_id,
        json!({ "board_name": "daily", "period": "daily" }),
    )
    .await;
    let today = created["current_period"].as_str().unwrap().to_string();
    assert_eq!(today, app.state.now().format("%Y-%m-%d").to_string());
    score(&app, &key, "daily", "ann", 30.0).await;
    score(&app, &key, "daily", "bob", 20.0).await;

    app.clock.advance(Duration::days(1));
    let (_, page) = board_page(&app, &key, "daily").await;
    assert_eq!(
        (page["total"].clone(), page["entries"].clone()),
        (json!(0), json!([])),
        "a new day starts empty"
    );
    assert_ne!(page["period"], today.as_str());
    let fresh = score(&app, &key, "daily", "bob", 5.0).await;
    assert_eq!(
        (fresh["rank"].clone(), fresh["updated"].clone()),
        (json!(1), json!(true)),
        "yesterday's best does not count today"
    );

    let archived = playtrace::leaderboards::archive_finished_periods(&app.state)
        .await
        .unwrap();
    assert_eq!(archived, 1, "yesterday is archived once");
    assert_eq!(
        playtrace::leaderboards::archive_finished_periods(&app.state)
            .await
            .unwrap(),
        0
    );
    assert_eq!(
        ranking(&app, &key, &format!("daily?period={today}")).await,
        ranked(&[("ann", 30.0), ("bob", 20.0)])
    );
    let (_, page) = board_page(
        &app,
        &key,
        &format!("daily?period={today}&offset=1&limit=1"),
    )
    .await;
    assert_eq!(
        (page["total"].clone(), page["entries"][0]["rank"].clone()),
        (json!(2), json!(2))
    );
    let (status, body) = board_page(&app, &key, &format!("daily/players/bob?period={today}")).await;
    assert_eq!((status, body["rank"].clone()), (200, json!(2)), "{body}");
    assert_eq!(ranking(&app, &key, "daily").await, ranked(&[("bob", 5.0)]));
}

#[tokio::test]
async fn monthly_and_weekly_boards_are_keyed_by_their_period() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    for (name, period) in [("month", "monthly"), ("week", "weekly")] {
        let (status, body) = define(
            &app,
            &token,
            &game_id,
            json!({ "board_name": name, "period": period }),
        )
        .await;
        assert_eq!(status, 201, "{body}");
    }
    let week = app.state.now().iso_week();
    let (_, page) = board_page(&app, &key, "week").await;
    assert_eq!(
        page["period"],
        format!("{:04}-W{:02}", week.year(), week.week())
    );

    score(&app, &key, "month", "ann", 1.0).await;
    let (_, page) = board_page(&app, &key, "month").await;
    let month = app.state.now().format("%Y-%m").to_string();
    assert_eq!(page["period"], month.as_str());
    app.clock.advance(Duration::days(32));
    let (_, page) = board_page(&app, &key, "month").await;
    assert_eq!(page["total"], 0, "a new month starts empty");
    assert_eq!(
        ranking(&app, &key, &format!("month?period={month}")).await,
        ranked(&[("ann", 1.0)])
    );
}

#[tokio::test]
async fn an_all_time_board_resets_once_at_its_auto_reset_date() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let reset_at = (app.state.now() + Duration::days(3))
        .format("%Y-%m-%dT00:00:00Z")
        .to_string();
    let (status, created) = define(
        &app,
        &token,
        &game_id,
        json!({ "board_name": "season", "auto_reset_at": reset_at }),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(created["current_period"], "all_time");
    score(&app, &key, "season", "veteran", 100.0).await;

    app.clock.advance(Duration::days(4));
    let (_, page) = board_page(&app, &key, "season").await;
    assert_eq!(page["total"], 0, "the board reset at its date");
    let since = page["period"].as_str().unwrap().to_string();
    assert!(since.starts_with("since-"), "{since}");
    score(&app, &key, "season", "rookie", 1.0).await;
    assert_eq!(
        playtrace::leaderboards::archive_finished_periods(&app.state)
            .await
            .unwrap(),
        1
    );
    assert_eq!(
        ranking(&app, &key, "season?period=all_time").await,
        ranked(&[("veteran", 100.0)])
    );

    app.clock.advance(Duration::days(400));
    assert_eq!(
        ranking(&app, &key, "season").await,
        ranked(&[("rookie", 1.0)]),
        "it resets only once"
    );
    assert_eq!(
        playtrace::leaderboards::archive_finished_periods(&app.state)
            .await
            .unwrap(),
        0
    );
}

// ---------------------------------------------------------------------------------------------
// HTTP: durability
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn a_board_lost_from_the_hot_store_is_rebuilt_with_the_same_ranks() {
    let app = spawn_app().await;
    let (_, game_id, key) = app.game_with_key().await;
    for (player, points) in [("a", 5.0), ("b", 9.0), ("c", 9.0), ("d", 1.0), ("e", 7.0)] {
        score(&app, &key, "durable", player, points).await;
    }
    let before = ranking(&app, &key, "durable").await;

    let board = hot_board(&app, &game_id, "durable").await;
    app.state
        .hot
        .leaderboards
        .expire(&board, 0, app.state.now())
        .await
        .unwrap();
    assert!(
        app.state
            .hot
            .leaderboards
            .page(&board, 0, 1, app.state.now())
            .await
            .unwrap()
            .is_none(),
        "the hot copy is gone"
    );

    assert_eq!(
        ranking(&app, &key, "durable").await,
        before,
        "rebuilt from the cold store on first read"
    );
    // Submissions work straight after a loss too, and keep-best still holds.
    app.state
        .hot
        .leaderboards
        .expire(&board, 0, app.state.now())
        .await
        .unwrap();
    let kept = score(&app, &key, "durable", "b", 2.0).await;
    assert_eq!(
        (
            kept["updated"].clone(),
            kept["score"].clone(),
            kept["rank"].clone()
        ),
        (json!(false), json!(9), json!(1))
    );
}

async fn hot_board(app: &TestApp, game_id: &str, name: &str) -> HotBoard {
    let board = playtrace::leaderboards::boards::find(
        &app.state,
        game_id.parse().unwrap(),
        &playtrace::leaderboards::boards::BoardName::parse(name).unwrap(),
    )
    .await
    .unwrap()
    .unwrap();
    let now = app.state.now();
    board.hot(&board.current_period(now), now)
}

#[tokio::test]
async fn a_redis_wipe_loses_no_scores() {
    if !services_backend() {
        return;
    }
    let app = spawn_app().await;
    let (_, _, key) = app.game_with_key().await;
    for i in 0..30 {
        score(
            &app,
            &key,
            "wiped",
            &format!("p{i:02}"),
            ((i * 7) % 10) as f64,
        )
        .await;
    }
    let before = ranking(&app, &key, "wiped?limit=100").await;

    // As FLUSHALL would, but only for this test's keys (other tests share the server).
    use fred::prelude::*;
    let handle = app
        .state
        .hot
        .redis
        .clone()
        .expect("Redis backs the services backend");
    let pattern = format!("{}lb:*", handle.prefix);
    let keys: Vec<String> = handle
        .pool
        .next()
        .custom(
            fred::types::CustomCommand::new_static(
                "KEYS",
                fred::types::ClusterHash::FirstKey,
                false,
            ),
            vec![pattern],
        )
        .await
        .unwrap();
    assert!(!keys.is_empty(), "the board lived in Redis");
    let _: i64 = handle.pool.next().del(keys).await.unwrap();

    assert_eq!(ranking(&app, &key, "wiped?limit=100").await, before);
}

#[tokio::test]
async fn concurrent_submissions_for_one_player_keep_the_best() {
    let app = spawn_app().await;
    let (_, game_id, key) = app.game_with_key().await;
    score(&app, &key, "race", "rival", 50.0).await;
    let scores: Vec<f64> = (0..24).map(|i| ((i * 53) % 97) as f64).collect();
    let best = scores.iter().cloned().fold(f64::MIN, f64::max);
    let mut tasks = Vec::new();
    for points in scores {
        let request = app
            .game(Method::POST, "/v1/leaderboards", &key)
            .json(&json!({
                "board_name": "race", "player_id": "racer", "score": points
            }));
        tasks.push(tokio::spawn(async move {
            read(request.send().await.unwrap()).await
        }));
    }
    let mut stored = 0;
    for task in tasks {
        let (status, body) = task.await.unwrap();
        assert_eq!(status, 200, "{body}");
        stored += (body["updated"] == true) as u32;
    }
    assert!(stored >= 1);
    assert_eq!(
        ranking(&app, &key, "race").await,
        ranked(&[("racer", best), ("rival", 50.0)])
    );

    // The cold store agrees: rebuilt from it, the board is the same.
    let board = hot_board(&app, &game_id, "race").await;
    app.state
        .hot
        .leaderboards
        .expire(&board, 0, app.state.now())
        .await
        .unwrap();
    assert_eq!(
        ranking(&app, &key, "race").await,
        ranked(&[("racer", best), ("rival", 50.0)])
    );
}

#[tokio::test]
async fn two_nodes_share_one_board() {
    if !services_backend() {
        return;
    }
    let first = spawn_app().await;
    let second = spawn_on(first.backend.clone(), |_| {}).await;
    let (_, _, key) = first.game_with_key().await;
    score(&first, &key, "cluster", "ann", 10.0).await;
    score(&second, &key, "cluster", "bob", 20.0).await;
    let kept = score(&second, &key, "cluster", "ann", 5.0).await;
    assert_eq!(kept["updated"], false);
    assert_eq!(
        ranking(&first, &key, "cluster").await,
        ranked(&[("bob", 20.0), ("ann", 10.0)])
    );
    assert_eq!(
        ranking(&second, &key, "cluster").await,
        ranked(&[("bob", 20.0), ("ann", 10.0)])
    );

    // Each node now holds the page it rendered; a change made through the other node shows
    // on the next read all the same.
    score(&second, &key, "cluster", "ann", 30.0).await;
    assert_eq!(
        ranking(&first, &key, "cluster").await,
        ranked(&[("ann", 30.0), ("bob", 20.0)])
    );
}

#[tokio::test]
async fn a_ban_or_a_deletion_on_one_node_applies_at_once_on_another() {
    if !services_backend() {
        return;
    }
    let first = spawn_app().await;
    let second = spawn_on(first.backend.clone(), |_| {}).await;
    let (token, game_id, key) = first.game_with_key().await;
    // The second node caches the board's definition from these submissions on.
    score(&second, &key, "shared", "cheat", 10.0).await;
    score(&second, &key, "shared", "fair", 20.0).await;

    let base = format!("/v1/games/{game_id}/leaderboards/shared/entries");
    let (status, banned) =
        dashboard(&first, Method::POST, &format!("{base}/cheat/ban"), &token).await;
    assert_eq!(status, 200, "{banned}");
    let (status, refused) = submit(
        &second,
        &key,
        json!({ "board_name": "shared", "player_id": "cheat", "score": 99.0 }),
    )
    .await;
    assert_eq!(
        status, 403,
        "the ban list is never read from a cache: {refused}"
    );
    assert_eq!(
        ranking(&second, &key, "shared").await,
        ranked(&[("fair", 20.0)])
    );

    // Deleted through the first node while the second still holds the definition: the next
    // score through the second node creates the board anew, with only that score on it.
    let (status, _) = dashboard(
        &first,
        Method::DELETE,
        &format!("/v1/games/{game_id}/leaderboards/shared"),
        &token,
    )
    .await;
    assert_eq!(status, 204);
    let fresh = score(&second, &key, "shared", "newcomer", 5.0).await;
    assert_eq!(
        (fresh["rank"].clone(), fresh["updated"].clone()),
        (json!(1), json!(true))
    );
    assert_eq!(
        ranking(&first, &key, "shared").await,
        ranked(&[("newcomer", 5.0)])
    );
}
