//! The monthly event quota: all or nothing, exact under concurrency and across nodes, and
//! rebuilt from the cold store when the hot-store counter is gone; and the dashboard's view of
//! it, `GET /v1/games/{game_id}/usage`.
use super::{batch, event, stored, track};
use crate::helpers::{services_backend, spawn_app, spawn_on, Fetch, TestApp, PASSWORD};
use playtrace::events::{quota::counter_name, writer::month_of};
use reqwest::Method;
use serde_json::json;
use uuid::Uuid;

const FREE_LIMIT: u64 = 100_000;

fn counter(app: &TestApp, game_id: &str) -> String {
    counter_name(
        Uuid::parse_str(game_id).unwrap(),
        &month_of(app.state.now()),
    )
}

/// The game's hot counter for this month (`None` while it is missing).
async fn hot_count(app: &TestApp, game_id: &str) -> Option<u64> {
    app.state
        .hot
        .quotas
        .current(&counter(app, game_id))
        .await
        .unwrap()
}

/// Counts `used` events on the game's counter through the hot-store trait, as if they had been
/// tracked earlier this month (sending 100,000 events over HTTP would take minutes).
pub async fn preuse(app: &TestApp, game_id: &str, used: u64) {
    let reservation = app
        .state
        .hot
        .quotas
        .reserve(&counter(app, game_id), used, FREE_LIMIT * 100, Some(0))
        .await
        .unwrap();
    assert!(
        matches!(
            reservation,
            playtrace::store::hot::quotas::Reservation::Reserved { .. }
        ),
        "{reservation:?}"
    );
}

/// Loses the game's hot counter: a new process has an empty in-process store; with Redis, the
/// key is gone as after a restart without persistence or a FLUSHALL. Returns the app to go on
/// with (a new node on the same backend, or the same app), whose counter is then missing.
async fn lose_the_hot_counter(app: TestApp, game_id: &str) -> TestApp {
    let app = if services_backend() {
        let handle = app.state.hot.redis.clone().unwrap();
        let key_name = handle.key(&format!("quota:{}", counter(&app, game_id)));
        let deleted: i64 = fred::prelude::KeysInterface::del(&handle.pool, key_name)
            .await
            .unwrap();
        assert_eq!(deleted, 1, "the counter lived in Redis");
        app
    } else {
        let backend = app.backend.clone();
        app.stop().await;
        spawn_on(backend, |_| {}).await
    };
    assert_eq!(hot_count(&app, game_id).await, None);
    app
}

#[tokio::test]
async fn a_request_that_does_not_fit_is_refused_whole_with_429() {
    let app = spawn_app().await;
    let (_token, game_id, key) = app.game_with_key().await;
    preuse(&app, &game_id, FREE_LIMIT - 5).await;

    let (status, body) = track(&app, &key, batch(3)).await;
    assert_eq!(status, 202, "{body}");
    assert_eq!(
        body["quota"],
        json!({ "remaining": 2, "limit": FREE_LIMIT })
    );

    let (status, body) = track(&app, &key, batch(3)).await;
    assert_eq!(status, 429, "3 events do not fit in 2: {body}");
    assert_eq!(body["error"], "Monthly event quota exceeded");
    assert_eq!(
        body["quota"],
        json!({ "current": FREE_LIMIT - 2, "limit": FREE_LIMIT, "remaining": 0 })
    );
    assert_eq!(
        stored(&app, &game_id).await.len(),
        3,
        "nothing of the refused request is stored"
    );

    let (status, body) = track(&app, &key, batch(2)).await;
    assert_eq!(status, 202, "exactly the rest fits: {body}");
    assert_eq!(body["quota"]["remaining"], 0);
    let (status, body) = track(&app, &key, event("one_more")).await;
    assert_eq!(status, 429);
    assert_eq!(body["quota"]["current"], FREE_LIMIT);

    // a new UTC month starts from zero
    app.clock.advance(chrono::Duration::days(32));
    let (status, body) = track(&app, &key, event("next_month")).await;
    assert_eq!(status, 202, "{body}");
    assert_eq!(body["quota"]["remaining"], FREE_LIMIT - 1);
}

#[tokio::test]
async fn development_and_production_keys_share_the_quota_and_tiers_set_the_limit() {
    let app = spawn_app().await;
    let admin = app.new_user().await; // the first account is the instance admin
    let game_id = app.create_game(&admin).await;
    let development = app.create_key(&admin, &game_id, "development").await;
    let production = app.create_key(&admin, &game_id, "production").await;

    track(&app, &development, batch(10)).await;
    let (_, body) = track(&app, &production, batch(5)).await;
    assert_eq!(body["quota"]["remaining"], FREE_LIMIT - 15);

    for (tier, limit) in [("indie", 1_000_000u64), ("studio", 10_000_000)] {
        app.dashboard(Method::PATCH, &format!("/v1/games/{game_id}"), &admin)
            .json(&json!({ "tier": tier }))
            .expect_status(200)
            .await;
        let (status, body) = track(&app, &production, event("a")).await;
        assert_eq!(status, 202);
        assert_eq!(body["quota"]["limit"], limit, "{tier}");
    }
    let (_, body) = track(&app, &development, event("a")).await;
    assert_eq!(body["quota"]["remaining"], 10_000_000 - 18);
}

#[tokio::test]
async fn exactly_the_limit_is_accepted_under_concurrency() {
    let app = spawn_app().await;
    let (_token, game_id, key) = app.game_with_key().await;
    preuse(&app, &game_id, FREE_LIMIT - 50).await;

    // 40 requests of 2 events race for the last 50 events
    let mut tasks = Vec::new();
    for _ in 0..40 {
        let client = app.client.clone();
        let url = app.url("/v1/track");
        let key = key.clone();
        tasks.push(tokio::spawn(async move {
            client
                .post(url)
                .header("x-game-api-key", key)
                .json(&batch(2))
                .send()
                .await
                .unwrap()
                .status()
                .as_u16()
        }));
    }
    let mut statuses = Vec::new();
    for task in tasks {
        statuses.push(task.await.unwrap());
    }
    assert_eq!(
        statuses.iter().filter(|s| **s == 202).count(),
        25,
        "{statuses:?}"
    );
    assert_eq!(
        statuses.iter().filter(|s| **s == 429).count(),
        15,
        "{statuses:?}"
    );
    assert_eq!(stored(&app, &game_id).await.len(), 50);
}

#[tokio::test]
async fn two_nodes_share_one_exact_quota() {
    if !services_backend() {
        return; // one in-process counter per node: sharing needs Redis
    }
    let first = spawn_app().await;
    let second = spawn_on(first.backend.clone(), |_| {}).await;
    let (_token, game_id, key) = first.game_with_key().await;
    preuse(&first, &game_id, FREE_LIMIT - 30).await;

    let mut tasks = Vec::new();
    for i in 0..20 {
        let node = if i % 2 == 0 { &first } else { &second };
        let request = node.game(Method::POST, "/v1/track", &key).json(&batch(3));
        tasks.push(tokio::spawn(async move {
            request.send().await.unwrap().status().as_u16()
        }));
    }
    let mut accepted = 0;
    for task in tasks {
        accepted += (task.await.unwrap() == 202) as usize;
    }
    assert_eq!(
        accepted, 10,
        "30 events fit, in requests of 3, across both nodes"
    );
    assert_eq!(stored(&first, &game_id).await.len(), 30);
}

#[tokio::test]
async fn the_count_is_rebuilt_from_the_cold_store_when_the_hot_counter_is_lost() {
    let app = spawn_app().await;
    let (_token, game_id, key) = app.game_with_key().await;
    track(&app, &key, batch(30)).await;
    track(
        &app,
        &key,
        json!([{ "event_name": "a", "session_id": "s", "event_id": "x" }]),
    )
    .await;
    track(
        &app,
        &key,
        json!([{ "event_name": "a", "session_id": "s", "event_id": "x" }]),
    )
    .await;

    let app = lose_the_hot_counter(app, &game_id).await;

    let (status, body) = track(&app, &key, event("after_restart")).await;
    assert_eq!(status, 202, "{body}");
    assert_eq!(
        body["quota"]["remaining"],
        FREE_LIMIT - 32,
        "31 stored before, 1 now"
    );
    assert_eq!(hot_count(&app, &game_id).await, Some(32));
}

#[tokio::test]
async fn a_failed_write_answers_503_and_gives_the_reservation_back() {
    let app = spawn_app().await;
    let (_token, game_id, key) = app.game_with_key().await;
    track(&app, &key, batch(4)).await;

    // The cold store loses the events table for a moment.
    let db = &app.state.db;
    sea_orm::ConnectionTrait::execute_unprepared(db, "ALTER TABLE events RENAME TO events_away")
        .await
        .unwrap();
    let (status, body) = track(&app, &key, batch(10)).await;
    sea_orm::ConnectionTrait::execute_unprepared(db, "ALTER TABLE events_away RENAME TO events")
        .await
        .unwrap();
    assert_eq!(status, 503, "{body}");
    assert!(body["error"].as_str().unwrap().contains("retry"), "{body}");

    let (status, body) = track(&app, &key, event("a")).await;
    assert_eq!(status, 202);
    assert_eq!(
        body["quota"]["remaining"],
        FREE_LIMIT - 5,
        "the failed 10 were not charged"
    );
    assert_eq!(stored(&app, &game_id).await.len(), 5);
}

/// `GET /v1/games/{game_id}/usage`: status and body.
async fn usage(app: &TestApp, token: &str, game_id: &str) -> (u16, serde_json::Value) {
    app.dashboard_call(Method::GET, &format!("/v1/games/{game_id}/usage"), token)
        .await
}

#[tokio::test]
async fn usage_shows_the_count_track_enforces() {
    let app = spawn_app().await;
    let email = format!("owner-{}@studio.test", Uuid::new_v4().simple());
    let token = app.register(&email).await;
    let game_id = app.create_game(&token).await;
    let key = app.create_key(&token, &game_id, "development").await;
    let month = month_of(app.state.now());

    let (status, body) = usage(&app, &token, &game_id).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body,
        json!({ "month": month, "tier": "free", "used": 0, "limit": FREE_LIMIT, "remaining": FREE_LIMIT }),
        "a new game"
    );

    let (_, tracked) = track(&app, &key, batch(3)).await;
    let (_, tracked_again) = track(&app, &key, batch(2)).await;
    assert_eq!(tracked["quota"]["remaining"], FREE_LIMIT - 3);
    let (_, body) = usage(&app, &token, &game_id).await;
    assert_eq!(body["used"], 5);
    assert_eq!(body["remaining"], tracked_again["quota"]["remaining"]);
    assert_eq!(body["limit"], tracked_again["quota"]["limit"]);

    // the counter the quota reserves against, not a count of its own
    preuse(&app, &game_id, FREE_LIMIT - 15).await;
    let (_, body) = usage(&app, &token, &game_id).await;
    assert_eq!(
        (&body["used"], &body["remaining"]),
        (&json!(FREE_LIMIT - 10), &json!(10))
    );
    let (status, tracked) = track(&app, &key, batch(4)).await;
    assert_eq!(status, 202);
    let (_, body) = usage(&app, &token, &game_id).await;
    assert_eq!(body["remaining"], 6);
    assert_eq!(body["remaining"], tracked["quota"]["remaining"]);
    let (status, refused) = track(&app, &key, batch(7)).await;
    assert_eq!(status, 429);
    let (_, body) = usage(&app, &token, &game_id).await;
    assert_eq!(
        body["used"], refused["quota"]["current"],
        "a refused request counts nothing"
    );

    let (viewer, _) = app.new_member(&token, &game_id, "viewer").await;
    let (status, by_viewer) = usage(&app, &viewer, &game_id).await;
    assert_eq!((status, &by_viewer), (200, &body), "any member reads it");

    // a new UTC month starts from zero (signed in again: tokens last 7 days)
    app.clock.advance(chrono::Duration::days(32));
    let login = app
        .request(Method::POST, "/v1/auth/login")
        .json(&json!({ "email": email, "password": PASSWORD }))
        .expect_status(200)
        .await;
    let token = login["token"].as_str().unwrap();
    let (status, body) = usage(&app, token, &game_id).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["month"], month_of(app.state.now()));
    assert_ne!(body["month"], month);
    assert_eq!(
        (&body["used"], &body["remaining"]),
        (&json!(0), &json!(FREE_LIMIT))
    );
}

#[tokio::test]
async fn usage_follows_the_tier_and_survives_a_lost_counter() {
    let app = spawn_app().await;
    let admin = app.new_user().await; // the first account is the instance admin
    let game_id = app.create_game(&admin).await;
    let key = app.create_key(&admin, &game_id, "production").await;
    track(&app, &key, batch(20)).await;
    app.dashboard(Method::PATCH, &format!("/v1/games/{game_id}"), &admin)
        .json(&json!({ "tier": "indie" }))
        .expect_status(200)
        .await;
    let (_, body) = usage(&app, &admin, &game_id).await;
    assert_eq!(
        (
            &body["tier"],
            &body["used"],
            &body["limit"],
            &body["remaining"]
        ),
        (
            &json!("indie"),
            &json!(20),
            &json!(1_000_000),
            &json!(1_000_000 - 20)
        )
    );

    // Lose the counter (a restarted process, or Redis without the key): the usage is then the
    // stored count.
    let app = lose_the_hot_counter(app, &game_id).await;
    let (status, body) = usage(&app, &admin, &game_id).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["used"], 20, "read from the cold store: {body}");
    let (_, tracked) = track(&app, &key, event("after_restart")).await;
    assert_eq!(tracked["quota"]["remaining"], 1_000_000 - 21);
    let (_, body) = usage(&app, &admin, &game_id).await;
    assert_eq!(body["remaining"], tracked["quota"]["remaining"]);
}

#[tokio::test]
async fn usage_is_the_same_on_every_node() {
    if !services_backend() {
        return; // one in-process counter per node: sharing needs Redis
    }
    let first = spawn_app().await;
    let second = spawn_on(first.backend.clone(), |_| {}).await;
    let (token, game_id, key) = first.game_with_key().await;
    track(&first, &key, batch(4)).await;
    let (_, tracked) = track(&second, &key, batch(3)).await;
    preuse(&first, &game_id, 100).await;
    for node in [&first, &second] {
        let (status, body) = usage(node, &token, &game_id).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["used"], 107);
        assert_eq!(
            body["remaining"],
            tracked["quota"]["remaining"].as_u64().unwrap() - 100
        );
    }
}

#[tokio::test]
async fn the_admin_sets_a_big_games_quota_beyond_the_tiers_or_unlimited() {
    let app = spawn_app().await;
    let admin = app.new_user().await; // the first account is the instance admin
    let (owner, game_id, key) = app.game_with_key().await;
    let patch = |token: &str, body: serde_json::Value| {
        app.dashboard(Method::PATCH, &format!("/v1/games/{game_id}"), token)
            .json(&body)
            .send()
    };

    let refused = patch(&owner, json!({ "monthly_event_quota": 50_000_000 }))
        .await
        .unwrap();
    assert_eq!(
        refused.status(),
        403,
        "only the instance admin sets a quota"
    );
    for bad in [
        json!(0),
        json!(-5),
        json!(1.5),
        json!("lots"),
        json!(true),
        json!(9_007_199_254_740_992u64),
    ] {
        let response = patch(&admin, json!({ "monthly_event_quota": bad }))
            .await
            .unwrap();
        assert_eq!(response.status(), 400, "{bad}");
        let body: serde_json::Value = response.json().await.unwrap();
        assert!(
            body["error"]
                .as_str()
                .unwrap()
                .starts_with("monthly_event_quota must be"),
            "{body}"
        );
    }

    let game = app
        .dashboard(Method::PATCH, &format!("/v1/games/{game_id}"), &admin)
        .json(&json!({ "monthly_event_quota": 50_000_000 }))
        .expect_status(200)
        .await;
    assert_eq!(
        (&game["monthly_event_quota"], &game["event_quota_set"]),
        (&json!(50_000_000), &json!(true))
    );
    let (status, body) = track(&app, &key, event("a")).await;
    assert_eq!(status, 202);
    assert_eq!(
        body["quota"]["limit"], 50_000_000,
        "the key's cached game follows at once"
    );
    assert_eq!(usage(&app, &owner, &game_id).await.1["limit"], 50_000_000);

    let game = app
        .dashboard(Method::PATCH, &format!("/v1/games/{game_id}"), &admin)
        .json(&json!({ "monthly_event_quota": "unlimited" }))
        .expect_status(200)
        .await;
    assert_eq!(game["monthly_event_quota"], 9_007_199_254_740_991u64);
    let (_, body) = track(&app, &key, batch(100)).await;
    assert_eq!(body["quota"]["remaining"], 9_007_199_254_740_991u64 - 101);

    let game = app
        .dashboard(Method::PATCH, &format!("/v1/games/{game_id}"), &admin)
        .json(&json!({ "monthly_event_quota": null }))
        .expect_status(200)
        .await;
    assert_eq!(
        (&game["monthly_event_quota"], &game["event_quota_set"]),
        (&json!(FREE_LIMIT), &json!(false))
    );
    let (_, body) = track(&app, &key, event("b")).await;
    assert_eq!(body["quota"]["limit"], FREE_LIMIT, "back to the tier's");
}
