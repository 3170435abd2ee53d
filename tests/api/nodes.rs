//! Two API nodes on one PostgreSQL + Redis: a change made through one node holds on the other
//! within a second, although each node caches keys, game settings, event schemas, board
//! definitions and remote config (remote config's test is in `config.rs`). (The embedded
//! backend is one node by design.)
use crate::{
    events::{quota::preuse, schemas::put_schema, track},
    helpers::{services_backend, spawn_app, spawn_on, Fetch, TestApp},
};
use reqwest::Method;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// Two nodes sharing one backend with a fresh user's game and development key,
/// `(first, second, (token, game_id, key))`, or `None` on the embedded backend.
pub async fn two_nodes_with_a_game() -> Option<(TestApp, TestApp, (String, String, String))> {
    if !services_backend() {
        return None;
    }
    let first = spawn_app().await;
    let second = spawn_on(first.backend.clone(), |_| {}).await;
    let game = first.game_with_key().await;
    Some((first, second, game))
}

/// Asks `probe` until it answers true; fails the test unless that happens within one second
/// of the call (the change it waits for has already been answered by the other node).
pub async fn holds_within_a_second<F, Fut>(what: &str, mut probe: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let started = Instant::now();
    loop {
        if probe().await {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "{what}: not seen by the other node within 1 s"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn patch_game(node: &TestApp, token: &str, game_id: &str, body: Value) {
    node.dashboard(Method::PATCH, &format!("/v1/games/{game_id}"), token)
        .json(&body)
        .expect_status(200)
        .await;
}

async fn config_status(node: &TestApp, key: &str) -> (u16, Value) {
    node.game_call(Method::GET, "/v1/config", key).await
}

#[tokio::test]
async fn a_key_revoked_on_one_node_is_refused_by_the_other_within_a_second() {
    let Some((first, second, (token, game_id, key))) = two_nodes_with_a_game().await else {
        return;
    };
    let (status, _) = config_status(&second, &key).await;
    assert_eq!(status, 200, "the second node knows (and caches) the key");
    let (_, keys) = first
        .dashboard_call(
            Method::GET,
            &format!("/v1/games/{game_id}/api-keys"),
            &token,
        )
        .await;
    let key_id = keys["api_keys"][0]["key_id"].as_str().unwrap().to_string();

    first.revoke_key(&token, &game_id, &key_id).await;

    holds_within_a_second("revoked key", || async {
        let (status, body) = config_status(&second, &key).await;
        status == 401 && body["error"] == "Invalid API key"
    })
    .await;
}

/// The other node applies a change before the node that made it answers (each node
/// acknowledges every announcement): no window opens between the answer and the other node.
#[tokio::test]
async fn a_key_revoked_on_one_node_is_refused_by_the_other_as_soon_as_the_revocation_answers() {
    let Some((first, second, (token, game_id, _))) = two_nodes_with_a_game().await else {
        return;
    };
    for round in 0..10 {
        let (key, key_id) = first.new_key(&token, &game_id, "production").await;
        let (status, _) = config_status(&second, &key).await;
        assert_eq!(status, 200, "round {round}: the second node caches the key");

        first.revoke_key(&token, &game_id, &key_id).await;
        let (status, body) = config_status(&second, &key).await;
        assert_eq!(status, 401, "round {round}: {body}");
    }
}

#[tokio::test]
async fn validation_switched_to_enforce_on_one_node_refuses_on_the_other_within_a_second() {
    let Some((first, second, (token, game_id, key))) = two_nodes_with_a_game().await else {
        return;
    };
    let (status, body) = put_schema(
        &first,
        &token,
        &game_id,
        "level_up",
        json!({ "type": "object", "required": ["level"] }),
    )
    .await;
    assert!(status == 200 || status == 201, "{status} {body}");
    let violating = json!([{ "event_name": "level_up", "session_id": "s", "properties": {} }]);
    let (status, _) = track(&second, &key, violating.clone()).await;
    assert_eq!(status, 202, "validation is off: stored");

    patch_game(
        &first,
        &token,
        &game_id,
        json!({ "event_validation": "enforce" }),
    )
    .await;

    holds_within_a_second("enforce", || async {
        let (status, body) = track(&second, &key, violating.clone()).await;
        status == 400 && body["violations"][0]["event_name"] == "level_up"
    })
    .await;
}

#[tokio::test]
async fn a_schema_changed_on_one_node_applies_on_the_other_within_a_second() {
    let Some((first, second, (token, game_id, key))) = two_nodes_with_a_game().await else {
        return;
    };
    patch_game(
        &first,
        &token,
        &game_id,
        json!({ "event_validation": "enforce" }),
    )
    .await;
    let event = json!([{ "event_name": "boss", "session_id": "s", "properties": {} }]);
    let (status, _) = track(&second, &key, event.clone()).await;
    assert_eq!(status, 202, "no schema for the event yet");

    let (status, body) = put_schema(
        &first,
        &token,
        &game_id,
        "boss",
        json!({ "type": "object", "required": ["boss_id"] }),
    )
    .await;
    assert!(status == 200 || status == 201, "{status} {body}");

    holds_within_a_second("new schema", || async {
        track(&second, &key, event.clone()).await.0 == 400
    })
    .await;
}

#[tokio::test]
async fn a_tier_raised_on_one_node_lifts_the_quota_on_the_other_within_a_second() {
    // The first account of the instance is its admin, who may change tiers.
    let Some((first, second, (admin, game_id, key))) = two_nodes_with_a_game().await else {
        return;
    };
    preuse(&first, &game_id, 100_000).await;
    let (status, body) = track(
        &second,
        &key,
        json!({ "event_name": "a", "session_id": "s" }),
    )
    .await;
    assert_eq!(status, 429, "the free tier is used up: {body}");

    patch_game(&first, &admin, &game_id, json!({ "tier": "indie" })).await;

    holds_within_a_second("indie tier", || async {
        let (status, body) = track(
            &second,
            &key,
            json!({ "event_name": "a", "session_id": "s" }),
        )
        .await;
        status == 202 && body["quota"]["limit"] == 1_000_000
    })
    .await;
}

#[tokio::test]
async fn a_board_definition_changed_on_one_node_applies_on_the_other_within_a_second() {
    let Some((first, second, (token, game_id, key))) = two_nodes_with_a_game().await else {
        return;
    };
    let submit = |player: String, score: f64| {
        let request = second
            .game(Method::POST, "/v1/leaderboards", &key)
            .json(&json!({ "board_name": "arena", "player_id": player, "score": score }));
        async move { request.fetch().await }
    };
    for player in ["p-a", "p-b"] {
        let (status, body) = submit(player.into(), 500.0).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["status"], "ok", "no bounds yet: {body}");
    }

    let (status, body) = first
        .dashboard_json(
            Method::PATCH,
            &format!("/v1/games/{game_id}/leaderboards/arena"),
            &token,
            json!({ "max_score": 100 }),
        )
        .await;
    assert_eq!(status, 200, "{body}");

    let mut attempt = 0;
    holds_within_a_second("max_score", || {
        attempt += 1;
        let answer = submit(format!("p-{attempt}"), 500.0);
        async move {
            let (status, body) = answer.await;
            status == 200 && body["status"] == "suspicious"
        }
    })
    .await;
}

#[tokio::test]
async fn a_role_changed_on_one_node_holds_on_the_other() {
    let Some((first, second, (owner, game_id, _key))) = two_nodes_with_a_game().await else {
        return;
    };
    let (member, member_id) = first.new_member(&owner, &game_id, "editor").await;
    let create_board = |name: &'static str| {
        second
            .dashboard(
                Method::POST,
                &format!("/v1/games/{game_id}/leaderboards"),
                &member,
            )
            .json(&json!({ "board_name": name }))
            .send()
    };
    assert_eq!(create_board("first").await.unwrap().status(), 201);

    let (status, _) = first
        .dashboard_json(
            Method::PATCH,
            &format!("/v1/games/{game_id}/members/{member_id}"),
            &owner,
            json!({ "role": "viewer" }),
        )
        .await;
    assert_eq!(status, 200);

    holds_within_a_second("viewer role", || async {
        create_board("second").await.unwrap().status() == 403
    })
    .await;
}

#[tokio::test]
async fn a_missed_announcement_is_caught_by_the_version_check() {
    let Some((first, second, (_token, _game_id, key))) = two_nodes_with_a_game().await else {
        return;
    };
    assert_eq!(config_status(&second, &key).await.0, 200);

    // A change whose pub/sub message never arrives: the key is revoked behind the nodes' backs
    // and only the shared version counter moves.
    sea_orm::ConnectionTrait::execute_unprepared(
        &first.state.db,
        "UPDATE api_keys SET revoked_at = now()",
    )
    .await
    .unwrap();
    let redis = first.state.hot.redis.clone().unwrap();
    let _: u64 = fred::prelude::KeysInterface::incr(&redis.pool, redis.key("changes:version"))
        .await
        .unwrap();

    holds_within_a_second("revoked key without its message", || async {
        config_status(&second, &key).await.0 == 401
    })
    .await;
}
