//! 202 means committed: the real binary is killed with SIGKILL in the middle of a load run, and
//! every event that got a 202 must be in the database afterwards, exactly once.
use crate::helpers::{spawn_app, Backend, Fetch, PASSWORD};
use entity::{event_usage, events};
use reqwest::Method;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::{json, Value};
use std::{
    collections::{HashMap, HashSet},
    process::{Child, Command, Stdio},
    sync::Arc,
    time::Duration,
};
use uuid::Uuid;

/// A `playtrace serve` process on a backend, listening on a port picked before it starts.
pub struct Server {
    child: Child,
    pub address: String,
}

impl Server {
    pub async fn start(backend: &Backend) -> Self {
        Self::start_with(backend, &[], None).await
    }

    /// Starts with more environment variables, writing the node's log (at info) to `log`.
    pub async fn start_with(
        backend: &Backend,
        env: &[(&str, &str)],
        log: Option<&std::path::Path>,
    ) -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut command = Command::new(env!("CARGO_BIN_EXE_playtrace"));
        command
            .arg("serve")
            .env("PLAYTRACE_LISTEN", format!("127.0.0.1:{port}"))
            .env("PLAYTRACE_DATABASE_URL", &backend.database_url)
            .env("PLAYTRACE_REDIS_PREFIX", &backend.redis_prefix)
            .env("PLAYTRACE_RATE_LIMIT_PER_MINUTE", "100000000")
            .env("PLAYTRACE_DB_MAX_CONNECTIONS", "8")
            .envs(env.iter().copied());
        // A logged run keeps the binary's own default levels (what an operator sees).
        match log {
            Some(_) => command.env_remove("RUST_LOG"),
            None => command.env("RUST_LOG", "error"),
        };
        match log {
            Some(path) => {
                let file = std::fs::File::create(path).expect("log file");
                command.stdout(file.try_clone().unwrap()).stderr(file)
            }
            None => command.stdout(Stdio::null()).stderr(Stdio::null()),
        };
        match &backend.redis_url {
            Some(url) => command.env("PLAYTRACE_REDIS_URL", url),
            None => command.env_remove("PLAYTRACE_REDIS_URL"),
        };
        let mut child = command.spawn().expect("the playtrace binary starts");
        let address = format!("http://127.0.0.1:{port}");
        let client = reqwest::Client::new();
        for _ in 0..300 {
            if client
                .get(format!("{address}/healthz"))
                .send()
                .await
                .is_ok_and(|r| r.status() == 200)
            {
                return Self { child, address };
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let _ = child.kill();
        let _ = child.wait();
        panic!("playtrace did not come up on port {port}");
    }

    fn kill_9(&mut self) {
        self.child.kill().expect("SIGKILL"); // std sends SIGKILL on Unix
        self.child.wait().unwrap();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn post(
    client: &reqwest::Client,
    url: String,
    token: Option<&str>,
    body: Value,
) -> (u16, Value) {
    let mut request = client.request(Method::POST, url).json(&body);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.fetch().await
}

/// Creates a game named `name` and a production key of it on the server at `base`:
/// (game_id, key).
async fn game_with_production_key(
    client: &reqwest::Client,
    base: &str,
    token: &str,
    name: &str,
) -> (String, String) {
    let (_, game) = post(
        client,
        format!("{base}/v1/games"),
        Some(token),
        json!({ "name": name }),
    )
    .await;
    let game_id = game["game_id"].as_str().unwrap().to_string();
    let (_, key) = post(
        client,
        format!("{base}/v1/games/{game_id}/api-keys"),
        Some(token),
        json!({ "environment": "production" }),
    )
    .await;
    (game_id, key["key"].as_str().unwrap().to_string())
}

/// The game's count in the cold store's usage shards (what a quota rebuild reads).
async fn stored_usage(db: &sea_orm::DatabaseConnection, game_id: Uuid) -> i64 {
    event_usage::Entity::find()
        .filter(event_usage::Column::GameId.eq(game_id))
        .all(db)
        .await
        .unwrap()
        .iter()
        .map(|u| u.events)
        .sum()
}

#[tokio::test]
async fn every_acknowledged_event_survives_kill_9_exactly_once() {
    let backend = Backend::fresh().await;
    let mut server = Server::start(&backend).await;
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap();
    let base = server.address.clone();
    let (status, registered) = post(
        &client,
        format!("{base}/v1/auth/register"),
        None,
        json!({ "email": "kill@studio.test", "password": PASSWORD }),
    )
    .await;
    assert_eq!(status, 201, "{registered}");
    let token = registered["token"].as_str().unwrap().to_string();
    let (game_id, key) = game_with_production_key(&client, &base, &token, "Crash Test").await;

    // 16 clients send batches of 5 identified events as fast as they can.
    let acknowledged = Arc::new(parking_lot::Mutex::new(Vec::<String>::new()));
    let mut workers = Vec::new();
    for worker in 0..16 {
        let (client, url, key, acknowledged) = (
            client.clone(),
            format!("{base}/v1/track"),
            key.clone(),
            acknowledged.clone(),
        );
        workers.push(tokio::spawn(async move {
            let mut sent = Vec::new();
            for round in 0.. {
                let ids: Vec<String> = (0..5).map(|i| format!("w{worker}-r{round}-{i}")).collect();
                let batch: Vec<Value> = ids
                    .iter()
                    .map(|id| json!({ "event_name": "tick", "session_id": "s", "event_id": id }))
                    .collect();
                sent.extend(ids.iter().cloned());
                match client
                    .post(&url)
                    .header("x-game-api-key", &key)
                    .json(&batch)
                    .send()
                    .await
                {
                    Ok(response) if response.status() == 202 => acknowledged.lock().extend(ids),
                    Ok(response) => panic!("unexpected {} before the kill", response.status()),
                    Err(_) => break, // the server is gone
                }
            }
            sent
        }));
    }
    // Kill once the load is well under way.
    for _ in 0..200 {
        if acknowledged.lock().len() >= 1_000 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    server.kill_9();
    let mut sent = HashSet::new();
    for worker in workers {
        sent.extend(worker.await.unwrap());
    }
    let acknowledged: Vec<String> = acknowledged.lock().clone();
    assert!(
        acknowledged.len() >= 100,
        "the load ran before the kill ({} acknowledged)",
        acknowledged.len()
    );
    eprintln!(
        "killed with {} events acknowledged of {} sent",
        acknowledged.len(),
        sent.len()
    );

    // Every acknowledged event is stored, none twice, nothing that was never sent.
    let db = sea_orm::Database::connect(&backend.database_url)
        .await
        .unwrap();
    let game_uuid = Uuid::parse_str(&game_id).unwrap();
    let rows = events::Entity::find()
        .filter(events::Column::GameId.eq(game_uuid))
        .all(&db)
        .await
        .unwrap();
    let mut copies: HashMap<String, usize> = HashMap::new();
    for row in &rows {
        *copies
            .entry(row.event_id.clone().expect("every event had an id"))
            .or_default() += 1;
    }
    let missing: Vec<&String> = acknowledged
        .iter()
        .filter(|id| !copies.contains_key(*id))
        .collect();
    assert!(
        missing.is_empty(),
        "{} acknowledged events lost, e.g. {:?}",
        missing.len(),
        missing.first()
    );
    assert!(copies.values().all(|n| *n == 1), "no event stored twice");
    assert!(
        copies.keys().all(|id| sent.contains(id)),
        "only sent events stored"
    );
    // The usage count commits with the events: the quota rebuild will see exactly these.
    let usage = stored_usage(&db, game_uuid).await;
    assert_eq!(usage as usize, rows.len());

    // After a restart the quota carries on from what was stored (Redis may still count the
    // reservations of requests cut off by the kill, never fewer).
    let server = Server::start(&backend).await;
    let (status, body) = client
        .post(format!("{}/v1/track", server.address))
        .header("x-game-api-key", &key)
        .json(&json!({ "event_name": "after", "session_id": "s" }))
        .fetch()
        .await;
    assert_eq!(status, 202, "{body}");
    let remaining = body["quota"]["remaining"].as_u64().unwrap();
    let exact = 100_000 - rows.len() as u64 - 1;
    if backend.redis_url.is_some() {
        assert!(remaining <= exact, "{remaining} <= {exact}");
    } else {
        assert_eq!(remaining, exact);
    }

    // The clients send every batch again, acknowledged or not, 8 at a time, as a client
    // library retrying after the crash would: each is accepted, and each event is stored once.
    let mut batches: HashMap<String, Vec<String>> = HashMap::new();
    for id in &sent {
        let batch = id.rsplit_once('-').unwrap().0.to_string();
        batches.entry(batch).or_default().push(id.clone());
    }
    let batches: Vec<Vec<String>> = batches.into_values().collect();
    let resend = Arc::new(parking_lot::Mutex::new(batches));
    let mut retries = Vec::new();
    for _ in 0..8 {
        let (client, url, key, resend) = (
            client.clone(),
            format!("{}/v1/track", server.address),
            key.clone(),
            resend.clone(),
        );
        retries.push(tokio::spawn(async move {
            loop {
                let Some(ids) = resend.lock().pop() else {
                    break;
                };
                let batch: Vec<Value> = ids
                    .iter()
                    .map(|id| json!({ "event_name": "tick", "session_id": "s", "event_id": id }))
                    .collect();
                let (status, _) = client
                    .post(&url)
                    .header("x-game-api-key", &key)
                    .json(&batch)
                    .fetch()
                    .await;
                assert_eq!(status, 202, "a batch sent again");
            }
        }));
    }
    for retry in retries {
        retry.await.unwrap();
    }
    let rows = events::Entity::find()
        .filter(events::Column::GameId.eq(game_uuid))
        .filter(events::Column::EventName.eq("tick"))
        .all(&db)
        .await
        .unwrap();
    let stored: HashSet<String> = rows.iter().filter_map(|r| r.event_id.clone()).collect();
    assert_eq!(rows.len(), sent.len(), "every sent event stored once");
    assert_eq!(stored, sent);

    // Right after, a new game's first event is stored at once (it used to wait for a
    // connection of the writers' pool, 10 s, and fail with 503).
    let base = server.address.clone();
    let (_, new_key) = game_with_production_key(&client, &base, &token, "After the crash").await;
    let started = std::time::Instant::now();
    let (status, body) = client
        .post(format!("{base}/v1/track"))
        .header("x-game-api-key", &new_key)
        .json(&json!({ "event_name": "first", "session_id": "s" }))
        .fetch()
        .await;
    assert_eq!(status, 202, "{body}");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "the new game's first event took {:?}",
        started.elapsed()
    );

    // What the kill cut off between reservation and commit is given back: once the killed
    // node's lease lapses (30 s), the worker drops the counter and the next read or write
    // rebuilds it from the cold store, so the month's count is exactly what was stored.
    if backend.redis_url.is_some() {
        let stored = stored_usage(&db, game_uuid).await;
        let deadline = std::time::Instant::now() + Duration::from_secs(80);
        loop {
            let (status, usage) = client
                .get(format!("{base}/v1/games/{game_id}/usage"))
                .bearer_auth(&token)
                .fetch()
                .await;
            assert_eq!(status, 200, "{usage}");
            if usage["used"].as_i64() == Some(stored) {
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the quota still counts {} for {stored} events stored",
                usage["used"]
            );
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    }
}

#[tokio::test]
async fn a_graceful_stop_commits_what_was_accepted() {
    let app = spawn_app().await;
    let (_token, game_id, key) = app.game_with_key().await;
    let mut tasks = Vec::new();
    for i in 0..30 {
        let request = app
            .game(Method::POST, "/v1/track", &key)
            .json(&json!({ "event_name": "bye", "session_id": "s", "event_id": format!("e{i}") }));
        tasks.push(tokio::spawn(async move {
            request
                .send()
                .await
                .map(|r| r.status().as_u16())
                .unwrap_or(0)
        }));
    }
    tokio::time::sleep(Duration::from_millis(20)).await;
    let db = app.state.db.clone();
    app.stop().await;
    let accepted = {
        let mut accepted = 0;
        for task in tasks {
            accepted += (task.await.unwrap() == 202) as usize;
        }
        accepted
    };
    let game = Uuid::parse_str(&game_id).unwrap();
    let rows = events::Entity::find()
        .filter(events::Column::GameId.eq(game))
        .all(&db)
        .await
        .unwrap();
    assert!(
        rows.len() >= accepted,
        "{} stored, {accepted} acknowledged",
        rows.len()
    );
}

#[tokio::test]
async fn events_are_stored_after_the_database_dropped_every_connection() {
    // The writers keep their PostgreSQL connection between groups. When the server closes it
    // while it is idle (a restart, a proxy's idle timeout), the next write must not fail.
    if !crate::helpers::services_backend() {
        return;
    }
    let app = spawn_app().await;
    let (_token, game_id, key) = app.game_with_key().await;
    // One at a time, so that every writer task writes a group and keeps its connection.
    for _ in 0..8 {
        let (status, _) = super::track(&app, &key, super::event("before")).await;
        assert_eq!(status, 202);
    }

    let database = app
        .backend
        .database_url
        .rsplit('/')
        .next()
        .and_then(|name_and_query| name_and_query.split('?').next())
        .unwrap()
        .to_string();
    let admin = sea_orm::Database::connect(crate::helpers::postgres_url("postgres"))
        .await
        .unwrap();
    sea_orm::ConnectionTrait::execute_unprepared(
        &admin,
        &format!(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{database}'"
        ),
    )
    .await
    .unwrap();
    admin.close().await.ok();
    // Longer than a writer keeps an unused connection without the pool testing it.
    tokio::time::sleep(Duration::from_secs(6)).await;

    for _ in 0..8 {
        let (status, body) = super::track(&app, &key, super::event("after")).await;
        assert_eq!(status, 202, "{body}");
    }
    let stored = super::stored(&app, &game_id).await;
    assert_eq!(stored.len(), 16);
    assert_eq!(stored.iter().filter(|e| e.event_name == "after").count(), 8);
}

#[tokio::test]
async fn a_new_games_first_event_is_stored_at_once_while_every_writer_holds_its_connection() {
    // Each writer task keeps a connection of the writers' pool. Once every task of both kinds of
    // write held one, a new game's first event (its quota counter rebuilt from the cold store)
    // used to wait for a free connection of that pool until it gave up with 503.
    let app = spawn_app().await;
    let (_token, game_id, key) = app.game_with_key().await;
    // One at a time, so that every writer task of both kinds writes a group.
    for round in 0..8 {
        let (status, _) = super::track(&app, &key, super::event("busy")).await;
        assert_eq!(status, 202);
        app.game(Method::POST, "/v1/leaderboards", &key)
            .json(
                &json!({ "board_name": "busy", "player_id": format!("p{round}"), "score": round }),
            )
            .expect_status(200)
            .await;
    }

    let (_token, new_game, new_key) = app.game_with_key().await;
    let started = std::time::Instant::now();
    let (status, body) = super::track(&app, &new_key, super::event("first")).await;
    assert_eq!(status, 202, "{body}");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "the first event took {:?}",
        started.elapsed()
    );
    assert_eq!(super::stored(&app, &new_game).await.len(), 1);
    assert_eq!(super::stored(&app, &game_id).await.len(), 8);
}
