//! Fault tests (services backend only): a node's Redis or PostgreSQL becomes unreachable (the
//! TCP proxy between them is cut, as a stopped server looks: open connections dropped, new ones
//! refused) and comes back, or Redis loses every key of the deployment (a restart without
//! persistence). Each test asserts what a client notices: status codes and how soon they come,
//! bodies, and the rows stored. The shared pieces are here; the tests are in `faults/`, one file
//! per fault.
mod postgres_unreachable;
mod redis_lost;
mod redis_unreachable;

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
