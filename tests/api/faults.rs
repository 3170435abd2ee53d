//! Fault tests (services backend only): a node's Redis or PostgreSQL becomes unreachable (the
//! TCP proxy between them is cut, as a stopped server looks: open connections dropped, new ones
//! refused) and comes back, or Redis loses every key of the deployment (a restart without
//! persistence). Each test asserts what a client notices: status codes and how soon they come,
//! bodies, and the rows stored.
use crate::{
    helpers::{read, redis_url, services_backend, spawn_app, spawn_on, Backend, Fetch, TestApp},
    proxy::Proxy,
};
use entity::events;
use fred::prelude::{ClientLike, Config, KeysInterface};
use reqwest::{Method, RequestBuilder};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QuerySelect};
use serde_json::{json, Value};
use std::{
    collections::{HashMap, HashSet},
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc,
    },
    time::{Duration, Instant},
};
use uuid::Uuid;

const FREE_LIMIT: u64 = 100_000;

/// How long a client waits for any answer before the test calls it a hang.
const NO_ANSWER: Duration = Duration::from_secs(20);

/// While Redis is unreachable every answer comes within this ("a few seconds").
const PROMPT: Duration = Duration::from_secs(5);

/// What a request was answered, and how long that took.
struct Answer {
    status: u16,
    body: Value,
    took: Duration,
}

async fn answer(what: &str, request: RequestBuilder) -> Answer {
    let started = Instant::now();
    let response = request
        .timeout(NO_ANSWER)
        .send()
        .await
        .unwrap_or_else(|error| panic!("{what}: no answer within {NO_ANSWER:?}: {error}"));
    let (status, body) = read(response).await;
    Answer {
        status,
        body,
        took: started.elapsed(),
    }
}

/// A 503 with the storage-outage body, answered within `PROMPT`.
fn assert_unavailable(what: &str, answer: &Answer) {
    assert_eq!(answer.status, 503, "{what}: {}", answer.body);
    let error = answer.body["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("retry"),
        "{what}: a JSON error telling the client to retry: {}",
        answer.body
    );
    assert!(
        answer.took < PROMPT,
        "{what}: the 503 took {:?}",
        answer.took
    );
}

fn track_one(app: &TestApp, key: &str, event_id: &str) -> RequestBuilder {
    app.game(Method::POST, "/v1/track", key)
        .json(&json!({ "event_name": "tick", "session_id": "s-1", "event_id": event_id }))
}

fn submit(app: &TestApp, key: &str, board: &str, player: &str, score: f64) -> RequestBuilder {
    app.game(Method::POST, "/v1/leaderboards", key)
        .json(&json!({
            "board_name": board,
            "player_id": player,
            "player_name": player.to_uppercase(),
            "score": score,
            "metadata": { "player": player },
        }))
}

fn set_activity(app: &TestApp, key: &str, player: &str) -> RequestBuilder {
    app.game(Method::POST, "/v1/activity", key)
        .json(&json!({ "player_id": player, "activity": "In the lobby" }))
}

/// A node on a fresh backend whose Redis connections (pool and subscribers) go through a proxy.
async fn node_behind_redis_proxy() -> (TestApp, Arc<Proxy>) {
    let backend = Backend::fresh().await;
    let url = backend
        .redis_url
        .clone()
        .expect("the services backend has Redis");
    let proxy = Proxy::to(&url).await;
    let via = proxy.url_for(&url);
    let app = spawn_on(backend, |settings| settings.redis_url = Some(via)).await;
    (app, proxy)
}

/// Deletes every key under `prefix` (SCAN MATCH + DEL): what a Redis restarted without
/// persistence looks like to a deployment, without touching anyone else's keys.
async fn wipe_redis(prefix: &str) -> usize {
    let client = fred::prelude::Builder::from_config(Config::from_url(&redis_url()).unwrap())
        .build()
        .unwrap();
    client.init().await.expect("Redis is reachable");
    let escaped: String = prefix
        .chars()
        .flat_map(|c| match c {
            '*' | '?' | '[' | ']' | '\\' => vec!['\\', c],
            c => vec![c],
        })
        .collect();
    let pattern = format!("{escaped}*");
    let (mut cursor, mut deleted) = ("0".to_string(), 0);
    loop {
        let (next, keys): (String, Vec<String>) = client
            .scan_page(cursor, pattern.clone(), Some(1000), None)
            .await
            .unwrap();
        assert!(keys.iter().all(|k| k.starts_with(prefix)));
        if !keys.is_empty() {
            let gone: i64 = client.del(keys).await.unwrap();
            deleted += gone as usize;
        }
        if next == "0" {
            break;
        }
        cursor = next;
    }
    let _ = client.quit().await;
    deleted
}

/// Asks `probe` until it answers true; fails unless that happens within `limit`.
async fn within<F, Fut>(what: &str, limit: Duration, mut probe: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let started = Instant::now();
    while !probe().await {
        assert!(started.elapsed() < limit, "{what}: not within {limit:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

// ---------------------------------------------------------------------------------------------
// Redis unreachable
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn while_redis_is_unreachable_hot_routes_answer_503_at_once_cold_reads_work_and_all_recover()
{
    if !services_backend() {
        return;
    }
    let (app, proxy) = node_behind_redis_proxy().await;
    let (token, game_id, key) = app.game_with_key().await;

    // What the game and its dashboard set up while everything is up.
    let (status, body) = app.dashboard_json(Method::POST, &format!("/v1/games/{game_id}/achievements"), &token, json!({ "key": "first_win", "name": "First Win", "description": "Win once", "points": 10 })).await;
    assert_eq!(status, 201, "{body}");
    app.dashboard(Method::PUT, &format!("/v1/games/{game_id}/config"), &token)
        .json(&json!({ "values": { "motd": "hello" } }))
        .expect_status(200)
        .await;
    let (status, body) = app
        .game_json(
            Method::PUT,
            "/v1/saves/p1/slot-1",
            &key,
            json!({ "data": { "level": 3 }, "version": 0 }),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    for (player, score) in [("p1", 100.0), ("p2", 50.0)] {
        let done = answer("submit", submit(&app, &key, "main", player, score)).await;
        assert_eq!(done.status, 200, "{}", done.body);
    }
    assert_eq!(
        answer("activity", set_activity(&app, &key, "p1"))
            .await
            .status,
        200
    );
    assert_eq!(
        answer("track", track_one(&app, &key, "before"))
            .await
            .status,
        202
    );

    proxy.cut().await;

    // Routes that need the hot store: a clear 503 at once, nothing half done.
    let hot: Vec<(&str, RequestBuilder)> = vec![
        ("POST /v1/track", track_one(&app, &key, "during")),
        (
            "POST /v1/leaderboards",
            submit(&app, &key, "main", "p3", 75.0),
        ),
        (
            "GET /v1/leaderboards/main",
            app.game(Method::GET, "/v1/leaderboards/main", &key),
        ),
        (
            "GET /v1/leaderboards/main/players/p1",
            app.game(Method::GET, "/v1/leaderboards/main/players/p1", &key),
        ),
        ("POST /v1/activity", set_activity(&app, &key, "p2")),
        (
            "GET /v1/presence",
            app.game(Method::GET, "/v1/presence", &key),
        ),
        (
            "GET /v1/presence/p1",
            app.game(Method::GET, "/v1/presence/p1", &key),
        ),
    ];
    for (what, request) in hot {
        assert_unavailable(what, &answer(what, request).await);
    }
    let ready = answer("GET /readyz", app.request(Method::GET, "/readyz")).await;
    assert_eq!(
        (ready.status, &ready.body),
        (
            503,
            &json!({ "status": "unavailable", "cold_store": true, "hot_store": false })
        )
    );
    assert!(ready.took < PROMPT, "readiness took {:?}", ready.took);

    // What the cold store alone can serve still answers, promptly (the rate limiter lets
    // requests through while it cannot count them).
    type Check<'a> = Box<dyn Fn(&Value) -> bool + 'a>;
    let cold: Vec<(&str, RequestBuilder, Check)> = vec![
        (
            "GET /v1/config",
            app.game(Method::GET, "/v1/config", &key),
            Box::new(|body| body["config"]["motd"] == "hello"),
        ),
        (
            "GET /v1/achievements",
            app.game(Method::GET, "/v1/achievements?player_id=p1", &key),
            Box::new(|body| body["achievements"][0]["key"] == "first_win"),
        ),
        (
            "POST /v1/achievements/unlock",
            app.game(Method::POST, "/v1/achievements/unlock", &key)
                .json(&json!({ "achievement_key": "first_win", "player_id": "p1" })),
            Box::new(|body| body["success"] == true && body["total_points"] == 10),
        ),
        (
            "GET /v1/saves/p1/slot-1",
            app.game(Method::GET, "/v1/saves/p1/slot-1", &key),
            Box::new(|body| body["data"]["level"] == 3),
        ),
        (
            "GET /v1/games",
            app.dashboard(Method::GET, "/v1/games", &token),
            Box::new(|body| body["games"][0]["game_id"] == game_id.as_str()),
        ),
        (
            "GET /v1/games/{id}/leaderboards",
            app.dashboard(
                Method::GET,
                &format!("/v1/games/{game_id}/leaderboards"),
                &token,
            ),
            Box::new(|body| body["leaderboards"][0]["board_name"] == "main"),
        ),
        (
            "GET /v1/games/{id}/leaderboards/main",
            app.dashboard(
                Method::GET,
                &format!("/v1/games/{game_id}/leaderboards/main"),
                &token,
            ),
            Box::new(|body| body["order"] == "higher"),
        ),
    ];
    for (what, request, expected) in cold {
        let done = answer(what, request).await;
        assert_eq!(done.status, 200, "{what}: {}", done.body);
        assert!(expected(&done.body), "{what}: {}", done.body);
        assert!(done.took < PROMPT, "{what} took {:?}", done.took);
    }

    proxy.restore().await;
    within("a track accepted after Redis is back", PROMPT, || async {
        let done = answer("track", track_one(&app, &key, "after")).await;
        assert!(matches!(done.status, 202 | 503), "{}", done.body);
        done.status == 202
    })
    .await;

    // Everything answers again, and keeps answering: no 5xx from here on.
    for round in 0..3 {
        let done = answer("track", track_one(&app, &key, &format!("after-{round}"))).await;
        assert_eq!(done.status, 202, "{}", done.body);
        // The score refused with 503 during the outage is taken when sent again.
        let done = answer("submit", submit(&app, &key, "main", "p3", 75.0)).await;
        assert_eq!(done.status, 200, "{}", done.body);
        assert_eq!(done.body["rank"], 2, "{}", done.body);
        let done = answer(
            "board",
            app.game(Method::GET, "/v1/leaderboards/main", &key),
        )
        .await;
        assert_eq!(done.status, 200, "{}", done.body);
        let ranked: Vec<(Value, Value, Value)> = done.body["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e["player_id"].clone(),
                    e["score"].clone(),
                    e["rank"].clone(),
                )
            })
            .collect();
        assert_eq!(
            ranked,
            vec![
                (json!("p1"), json!(100), json!(1)),
                (json!("p3"), json!(75), json!(2)),
                (json!("p2"), json!(50), json!(3)),
            ]
        );
        let done = answer(
            "around",
            app.game(Method::GET, "/v1/leaderboards/main/players/p2", &key),
        )
        .await;
        assert_eq!(done.status, 200, "{}", done.body);
        assert_eq!(done.body["rank"], 3, "{}", done.body);
        let done = answer("activity", set_activity(&app, &key, "p2")).await;
        assert_eq!(done.status, 200, "{}", done.body);
        let done = answer("presence", app.game(Method::GET, "/v1/presence", &key)).await;
        assert_eq!(done.status, 200, "{}", done.body);
        assert_eq!(done.body["active_count"], 2, "{}", done.body);
        let done = answer("readyz", app.request(Method::GET, "/readyz")).await;
        assert_eq!(done.status, 200, "{}", done.body);
        let done = answer("config", app.game(Method::GET, "/v1/config", &key)).await;
        assert_eq!(done.status, 200, "{}", done.body);
    }
}

// ---------------------------------------------------------------------------------------------
// Redis lost every key
// ---------------------------------------------------------------------------------------------

/// (status, X-RateLimit-Remaining, X-RateLimit-Reset) of a config read.
async fn limited_read(app: &TestApp, key: &str) -> (u16, Option<u64>, Option<u64>) {
    let response = app
        .game(Method::GET, "/v1/config", key)
        .send()
        .await
        .unwrap();
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse().ok())
    };
    (
        response.status().as_u16(),
        header("x-ratelimit-remaining"),
        header("x-ratelimit-reset"),
    )
}

async fn board_page(app: &TestApp, key: &str, board: &str) -> Value {
    app.game(Method::GET, &format!("/v1/leaderboards/{board}"), key)
        .expect_status(200)
        .await
}

async fn standing(app: &TestApp, key: &str, board: &str, player: &str) -> Value {
    app.game(
        Method::GET,
        &format!("/v1/leaderboards/{board}/players/{player}?around=1"),
        key,
    )
    .expect_status(200)
    .await
}

#[tokio::test]
async fn after_redis_lost_every_key_boards_quotas_and_limits_carry_on_from_the_cold_store() {
    if !services_backend() {
        return;
    }
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;

    // Events: 30 plain ones and one retried event_id (stored once).
    let (status, _) = app.game_json(Method::POST, "/v1/track", &key, Value::Array(
                (0..30)
                    .map(|i| json!({ "event_name": "level_start", "session_id": "s", "properties": { "i": i } }))
                    .collect(),
            )).await;
    assert_eq!(status, 202);
    for _ in 0..2 {
        let done = answer("track", track_one(&app, &key, "x")).await;
        assert_eq!(done.status, 202, "{}", done.body);
        assert_eq!(done.body["quota"]["remaining"], FREE_LIMIT - 31);
    }

    // Boards: one higher-is-better (with a tie: bob reached 200 before cid), one defined on
    // the dashboard as lower-is-better.
    let (status, body) = app
        .dashboard_json(
            Method::POST,
            &format!("/v1/games/{game_id}/leaderboards"),
            &token,
            json!({ "board_name": "speedrun", "order": "lower" }),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    for (board, player, score) in [
        ("main", "ann", 300.0),
        ("main", "bob", 200.0),
        ("main", "cid", 200.0),
        ("main", "dan", 100.0),
        ("main", "eve", 50.0),
        ("main", "dan", 20.0), // worse: not kept
        ("speedrun", "ann", 61.5),
        ("speedrun", "bob", 59.0),
    ] {
        let done = answer("submit", submit(&app, &key, board, player, score)).await;
        assert_eq!(done.status, 200, "{}", done.body);
    }
    let main_before = board_page(&app, &key, "main").await;
    let speedrun_before = board_page(&app, &key, "speedrun").await;
    let cid_before = standing(&app, &key, "main", "cid").await;
    assert_eq!(main_before["total"], 5);
    assert_eq!(cid_before["rank"], 3);
    assert_eq!(speedrun_before["entries"][0]["player_id"], "bob");

    // Rate-limit windows: a second game whose key may make 5 requests a minute.
    let limited_game = app.create_game(&token).await;
    app.dashboard(Method::PATCH, &format!("/v1/games/{limited_game}"), &token)
        .json(&json!({ "rate_limit_per_minute": 5 }))
        .expect_status(200)
        .await;
    let limited_key = app.create_key(&token, &limited_game, "development").await;
    let (status, _, resets_in) = limited_read(&app, &limited_key).await;
    assert_eq!(status, 200);
    if resets_in.unwrap() < 20 {
        // Too close to the end of the window for the rest of the test: start the next one.
        app.clock
            .advance(chrono::Duration::seconds(resets_in.unwrap() as i64 + 1));
        assert_eq!(limited_read(&app, &limited_key).await.0, 200);
    }
    for _ in 0..4 {
        assert_eq!(limited_read(&app, &limited_key).await.0, 200);
    }
    assert_eq!(limited_read(&app, &limited_key).await.0, 429);

    assert_eq!(
        answer("activity", set_activity(&app, &key, "ann"))
            .await
            .status,
        200
    );

    let deleted = wipe_redis(&app.backend.redis_prefix).await;
    assert!(deleted >= 5, "the deployment had keys in Redis: {deleted}");

    // Boards are rebuilt from the cold store: the same entries, in the same ranks.
    assert_eq!(board_page(&app, &key, "main").await, main_before);
    assert_eq!(board_page(&app, &key, "speedrun").await, speedrun_before);
    assert_eq!(standing(&app, &key, "main", "cid").await, cid_before);
    // And they go on from there.
    let done = answer("submit", submit(&app, &key, "main", "eve", 250.0)).await;
    assert_eq!(done.status, 200, "{}", done.body);
    assert_eq!(
        (done.body["rank"].clone(), done.body["updated"].clone()),
        (json!(2), json!(true))
    );
    let main_after = board_page(&app, &key, "main").await;
    let order: Vec<&str> = main_after["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["player_id"].as_str().unwrap())
        .collect();
    assert_eq!(order, ["ann", "eve", "bob", "cid", "dan"]);

    // The quota counts on from the events stored: 31 before, 1 now.
    let done = answer("track", track_one(&app, &key, "after-wipe")).await;
    assert_eq!(done.status, 202, "{}", done.body);
    assert_eq!(
        done.body["quota"],
        json!({ "remaining": FREE_LIMIT - 32, "limit": FREE_LIMIT })
    );
    // A retried event is still stored once and not counted again.
    let done = answer("track", track_one(&app, &key, "x")).await;
    assert_eq!(done.status, 202, "{}", done.body);
    assert_eq!(done.body["quota"]["remaining"], FREE_LIMIT - 32);

    // The lost window starts over, and the limit holds again.
    let mut statuses = Vec::new();
    for _ in 0..6 {
        let (status, remaining, _) = limited_read(&app, &limited_key).await;
        assert!(remaining.is_some_and(|r| r <= 5), "{remaining:?}");
        statuses.push(status);
    }
    assert_eq!(statuses, [200, 200, 200, 200, 200, 429]);

    // Presence lives only in the hot store: it starts empty and fills again.
    let (status, body) = app.game_call(Method::GET, "/v1/presence", &key).await;
    assert_eq!((status, body["active_count"].clone()), (200, json!(0)));
    assert_eq!(
        answer("activity", set_activity(&app, &key, "bob"))
            .await
            .status,
        200
    );
    let (status, body) = app.game_call(Method::GET, "/v1/presence", &key).await;
    assert_eq!((status, body["active_count"].clone()), (200, json!(1)));

    let ready = answer("readyz", app.request(Method::GET, "/readyz")).await;
    assert_eq!(ready.status, 200, "{}", ready.body);
}

#[tokio::test]
async fn after_redis_lost_every_key_a_revoked_key_still_stops_on_every_node_within_a_second() {
    // Each node forgets what it cached about a game when another node announces a change;
    // the announcements are numbered by a counter in Redis. Losing it must not make the
    // nodes ignore the announcements that follow.
    if !services_backend() {
        return;
    }
    let first = spawn_app().await;
    let second = spawn_on(first.backend.clone(), |_| {}).await;
    let (token, game_id, key) = first.game_with_key().await;
    // A deployment that has been running a while has announced many changes.
    for version in 0..10 {
        first
            .dashboard(Method::PUT, &format!("/v1/games/{game_id}/config"), &token)
            .json(&json!({ "values": { "version": version } }))
            .expect_status(200)
            .await;
    }
    for node in [&first, &second] {
        let (status, _, _) = limited_read(node, &key).await;
        assert_eq!(status, 200);
    }

    wipe_redis(&first.backend.redis_prefix).await;
    // Long enough for every node to have read the counter again.
    tokio::time::sleep(Duration::from_millis(600)).await;

    let (new_key, key_id) = first.new_key(&token, &game_id, "production").await;
    // The second node looks the new key up now, and caches it.
    assert_eq!(limited_read(&second, &new_key).await.0, 200);

    first.revoke_key(&token, &game_id, &key_id).await;
    within(
        "the revoked key refused by the second node",
        Duration::from_secs(1),
        || async { limited_read(&second, &new_key).await.0 == 401 },
    )
    .await;
    // The game's other key still works everywhere.
    assert_eq!(limited_read(&second, &key).await.0, 200);
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL unreachable
// ---------------------------------------------------------------------------------------------

/// How many times each event_id of the game is stored, read straight from the database.
async fn stored_ids(db: &sea_orm::DatabaseConnection, game_id: &str) -> HashMap<String, usize> {
    let ids: Vec<Option<String>> = events::Entity::find()
        .select_only()
        .column(events::Column::EventId)
        .filter(events::Column::GameId.eq(Uuid::parse_str(game_id).unwrap()))
        .into_tuple()
        .all(db)
        .await
        .unwrap();
    let mut counts = HashMap::new();
    for id in ids {
        *counts
            .entry(id.expect("every event of the test has an event_id"))
            .or_default() += 1;
    }
    counts
}

#[tokio::test]
async fn while_postgres_is_unreachable_tracks_answer_503_and_after_it_each_event_is_stored_once() {
    if !services_backend() {
        return;
    }
    let backend = Backend::fresh().await;
    let proxy = Proxy::to(&backend.database_url).await;
    let via = proxy.url_for(&backend.database_url);
    // Both of the node's pools (requests' and writers') connect through the proxy.
    let app = spawn_on(backend.clone(), |settings| settings.database_url = via).await;
    let (token, game_id, key) = app.game_with_key().await;
    let db = sea_orm::Database::connect(&backend.database_url)
        .await
        .unwrap();

    let mut sent: Vec<String> = Vec::new();
    for i in 0..5 {
        let id = format!("before-{i}");
        let done = answer("track", track_one(&app, &key, &id)).await;
        assert_eq!(done.status, 202, "{}", done.body);
        sent.push(id);
    }

    // Four clients send events one after another while the database goes away.
    let stop = Arc::new(AtomicBool::new(false));
    let mut loaders = Vec::new();
    for client in 0..4 {
        let requests: Vec<RequestBuilder> = (0..1000)
            .map(|n| track_one(&app, &key, &format!("load-{client}-{n}")))
            .collect();
        let stop = stop.clone();
        loaders.push(tokio::spawn(async move {
            let mut outcomes = Vec::new();
            for (n, request) in requests.into_iter().enumerate() {
                if stop.load(Ordering::Acquire) {
                    break;
                }
                let done = answer("track under load", request).await;
                outcomes.push((format!("load-{client}-{n}"), done.status, done.body));
            }
            outcomes
        }));
    }
    // And dashboards read the game list meanwhile (a read, not a group write).
    let mut readers = Vec::new();
    for _ in 0..3 {
        let requests: Vec<RequestBuilder> = (0..1000)
            .map(|_| app.dashboard(Method::GET, "/v1/games", &token))
            .collect();
        let stop = stop.clone();
        readers.push(tokio::spawn(async move {
            let mut statuses = Vec::new();
            for request in requests {
                if stop.load(Ordering::Acquire) {
                    break;
                }
                let done = answer("dashboard read", request).await;
                statuses.push((done.status, done.body));
            }
            statuses
        }));
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    proxy.cut().await;
    stop.store(true, Ordering::Release);

    // Sent once the database is unreachable: never accepted.
    let during: Vec<String> = (0..3).map(|i| format!("during-{i}")).collect();
    let requests: Vec<_> = during
        .iter()
        .map(|id| answer("track while down", track_one(&app, &key, id)))
        .collect();
    let asked = std::time::Instant::now();
    let (ready, answers) = tokio::join!(
        async {
            let ready = answer("readyz", app.request(Method::GET, "/readyz")).await;
            (ready, asked.elapsed())
        },
        async {
            let answers = futures_util::future::join_all(requests).await;
            (answers, asked.elapsed())
        }
    );
    let ((ready, ready_took), (answers, tracks_took)) = (ready, answers);
    // A probe and a client learn within a few seconds that the database is gone (they waited
    // ten before).
    assert!(
        ready_took < Duration::from_millis(1_500),
        "/readyz took {ready_took:?}"
    );
    assert!(
        tracks_took < Duration::from_secs(4),
        "the 503s took {tracks_took:?}"
    );
    for done in &answers {
        assert_eq!(done.status, 503, "{}", done.body);
        assert!(
            done.body["error"].as_str().unwrap().contains("retry"),
            "{}",
            done.body
        );
    }
    assert_eq!(
        (ready.status, &ready.body),
        (
            503,
            &json!({ "status": "unavailable", "cold_store": false, "hot_store": true })
        )
    );
    let mut pending: Vec<String> = during.clone();
    sent.extend(during.iter().cloned());
    for loader in loaders {
        for (id, status, body) in loader.await.unwrap() {
            // In flight when the database went: committed (202) or not (503), never a 500.
            assert!(matches!(status, 202 | 503), "{id}: {status} {body}");
            if status != 202 {
                pending.push(id.clone());
            }
            sent.push(id);
        }
    }
    for reader in readers {
        for (status, body) in reader.await.unwrap() {
            // A read whose connection broke under it is an outage too: 503, never a 500.
            assert!(
                matches!(status, 200 | 503),
                "dashboard read: {status} {body}"
            );
        }
    }
    let stored = stored_ids(&db, &game_id).await;
    for id in &during {
        assert!(!stored.contains_key(id), "{id} was answered 503 but stored");
    }

    // Back: the node recovers on its own, and the clients' retries are each stored once.
    proxy.restore().await;
    let restored = Instant::now();
    for id in &pending {
        loop {
            let done = answer("track retried", track_one(&app, &key, id)).await;
            if done.status == 202 {
                break;
            }
            assert_eq!(done.status, 503, "{id}: {}", done.body);
            assert!(
                restored.elapsed() < Duration::from_secs(15),
                "{id} still refused 15 s after the database came back: {}",
                done.body
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    for i in 0..10 {
        let id = format!("after-{i}");
        let done = answer("track", track_one(&app, &key, &id)).await;
        assert_eq!(done.status, 202, "{}", done.body);
        sent.push(id);
    }
    let ready = answer("readyz", app.request(Method::GET, "/readyz")).await;
    assert_eq!(ready.status, 200, "{}", ready.body);

    let stored = stored_ids(&db, &game_id).await;
    let twice: Vec<_> = stored.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "stored more than once: {twice:?}");
    let sent: HashSet<String> = sent.into_iter().collect();
    let stored: HashSet<String> = stored.into_keys().collect();
    assert_eq!(stored, sent, "every event sent is stored, and nothing else");
    db.close().await.ok();
}
