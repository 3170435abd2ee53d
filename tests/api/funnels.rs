//! Black-box tests of funnels: definitions in the dashboard, reports on the game side.
use crate::helpers::{spawn_app, Fetch, TestApp};
use chrono::{DateTime, Duration, Utc};
use entity::{api_keys, events};
use reqwest::Method;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, TransactionTrait};
use serde_json::{json, Value};
use uuid::Uuid;

/// One event to store, as a game would have sent it at `at` (`client_timestamp`).
pub struct Ev {
    pub name: String,
    pub player: Option<String>,
    pub session: String,
    pub properties: Value,
    pub at: DateTime<Utc>,
    /// The key's environment when `None`.
    pub environment: Option<&'static str>,
}

/// An event by `player` (session `s-{player}`).
pub fn ev(name: &str, player: &str, at: DateTime<Utc>) -> Ev {
    Ev {
        name: name.into(),
        player: Some(player.into()),
        session: format!("s-{player}"),
        properties: json!({}),
        at,
        environment: None,
    }
}

impl Ev {
    pub fn props(mut self, properties: Value) -> Self {
        self.properties = properties;
        self
    }

    /// The same event without a player id (the user is then the session).
    pub fn anonymous(mut self) -> Self {
        self.player = None;
        self
    }
}

/// Stores events for the game exactly as ingestion does (the one place tests create events):
/// `actor_id` is the player, else the session; `revenue_amount` a purchase's numeric
/// `properties.amount`; `log_level` a log event's `properties.level`.
pub async fn seed_events(app: &TestApp, game_id: &str, list: &[Ev]) {
    let game_id: Uuid = game_id.parse().unwrap();
    let key = api_keys::Entity::find()
        .filter(api_keys::Column::GameId.eq(game_id))
        .one(&app.state.db)
        .await
        .unwrap()
        .expect("the game has an API key");
    let rows: Vec<events::Model> = list
        .iter()
        .map(|e| events::Model {
            id: Uuid::now_v7(),
            game_id,
            api_key_id: key.id,
            environment: e
                .environment
                .map_or_else(|| key.environment.clone(), str::to_string),
            event_name: e.name.clone(),
            event_id: None,
            player_id: e.player.clone(),
            session_id: e.session.clone(),
            actor_id: e.player.clone().unwrap_or_else(|| e.session.clone()),
            properties: e.properties.clone(),
            revenue_amount: (e.name == "purchase")
                .then(|| e.properties["amount"].as_f64())
                .flatten(),
            log_level: (e.name == "log")
                .then(|| e.properties["level"].as_str().map(String::from))
                .flatten(),
            occurred_at: e.at,
            received_at: app.state.now(),
        })
        .collect();
    // Stored with their aggregates in one transaction, as the event writer does.
    let txn = app.state.db.begin().await.unwrap();
    for chunk in rows.chunks(500) {
        events::Entity::insert_many(chunk.iter().cloned().map(events::ActiveModel::from))
            .exec_without_returning(&txn)
            .await
            .unwrap();
        let stored: Vec<&events::Model> = chunk.iter().collect();
        playtrace::aggregates::ingest::add_game(
            &mut playtrace::aggregates::Tx::SeaOrm(&txn),
            game_id,
            &stored,
            0,
        )
        .await
        .unwrap();
    }
    txn.commit().await.unwrap();
}

async fn create_funnel(app: &TestApp, token: &str, game_id: &str, body: Value) -> Value {
    app.dashboard(Method::POST, &format!("/v1/games/{game_id}/funnels"), token)
        .json(&body)
        .expect_status(201)
        .await
}

async fn report(app: &TestApp, key: &str, funnel_id: &str, query: &str) -> Value {
    app.game(Method::GET, &format!("/v1/funnels/{funnel_id}{query}"), key)
        .expect_status(200)
        .await
}

fn counts(report: &Value) -> Vec<u64> {
    report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["count"].as_u64().unwrap())
        .collect()
}

/// Five users walking open -> signup -> purchase in different ways, three days ago.
async fn seed_paths(app: &TestApp, game_id: &str) -> DateTime<Utc> {
    let t = app.state.now() - Duration::days(3);
    let m = |minutes: i64| t + Duration::minutes(minutes);
    seed_events(
        app,
        game_id,
        &[
            // in order
            ev("open", "p1", m(0)),
            ev("signup", "p1", m(1)),
            ev("purchase", "p1", m(2)),
            // all three, signup before open
            ev("signup", "p2", m(0)),
            ev("open", "p2", m(1)),
            ev("purchase", "p2", m(2)),
            // repeats count once
            ev("open", "p3", m(0)),
            ev("open", "p3", m(1)),
            ev("signup", "p3", m(2)),
            ev("signup", "p3", m(3)),
            // never opened
            ev("purchase", "p4", m(0)),
            // no player id: the session is the user
            ev("open", "anon", m(0)).anonymous(),
            ev("signup", "anon", m(1)).anonymous(),
            // an event that is no step
            ev("level_up", "p1", m(5)),
        ],
    )
    .await;
    t
}

#[tokio::test]
async fn loose_and_strict_funnels_count_users_per_step() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    seed_paths(&app, &game_id).await;
    let steps = json!(["open", "signup", "purchase"]);
    let loose = create_funnel(
        &app,
        &token,
        &game_id,
        json!({ "name": "Onboarding", "steps": steps }),
    )
    .await;
    assert_eq!(loose["mode"], "loose", "loose is the default");
    assert_eq!(loose["steps"], steps);
    let strict = create_funnel(
        &app,
        &token,
        &game_id,
        json!({ "name": "Ordered", "mode": "strict", "steps": steps }),
    )
    .await;

    let body = report(&app, &key, loose["funnel_id"].as_str().unwrap(), "").await;
    assert_eq!(body["funnel_id"], loose["funnel_id"]);
    assert_eq!(body["mode"], "loose");
    assert_eq!(counts(&body), vec![4, 4, 2]);
    assert!(
        body["steps"][0].get("dropoff").is_none(),
        "no dropoff on step 1: {body}"
    );
    assert_eq!(body["steps"][0]["step"], 1);
    assert_eq!(body["steps"][2]["event"], "purchase");
    assert_eq!(body["steps"][1]["dropoff"], 0.0);
    assert_eq!(body["steps"][2]["dropoff"], 50.0);
    assert_eq!(body["overall_conversion"], 50.0);

    let strict_id = strict["funnel_id"].as_str().unwrap();
    let body = report(&app, &key, strict_id, "").await;
    let dashboard = app
        .dashboard(
            Method::GET,
            &format!("/v1/games/{game_id}/funnels/{strict_id}/report"),
            &token,
        )
        .expect_status(200)
        .await;
    assert_eq!(dashboard, body, "the dashboard sees the same report");
    assert_eq!(body["mode"], "strict");
    assert_eq!(
        counts(&body),
        vec![4, 3, 1],
        "p2 signed up before opening; only p1 bought after signing up"
    );
    assert_eq!(
        counts(&report(&app, &key, strict_id, "?environment=development").await),
        vec![4, 3, 1]
    );
    assert_eq!(
        counts(&report(&app, &key, strict_id, "?environment=production").await),
        vec![0, 0, 0]
    );
    assert_eq!(body["steps"][1]["dropoff"], 25.0);
    assert_eq!(body["steps"][2]["dropoff"], 66.67);
    assert_eq!(body["overall_conversion"], 25.0);
}

#[tokio::test]
async fn a_conversion_window_drops_slow_users() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let t = app.state.now() - Duration::days(5);
    let h = |hours: i64| t + Duration::hours(hours);
    seed_events(
        &app,
        &game_id,
        &[
            ev("open", "fast", h(0)),
            ev("signup", "fast", h(2)),
            ev("open", "slow", h(0)),
            ev("signup", "slow", h(30)),
            // loose: signup two hours before the first open is inside a 24-hour window
            ev("signup", "early", h(0)),
            ev("open", "early", h(2)),
        ],
    )
    .await;
    let steps = json!(["open", "signup"]);
    let strict = create_funnel(
        &app,
        &token,
        &game_id,
        json!({ "name": "s", "mode": "strict", "steps": steps, "within_hours": 24 }),
    )
    .await;
    assert_eq!(strict["within_hours"], 24);
    let loose = create_funnel(
        &app,
        &token,
        &game_id,
        json!({ "name": "l", "steps": steps, "within_hours": 24 }),
    )
    .await;
    let strict_id = strict["funnel_id"].as_str().unwrap();

    assert_eq!(
        counts(&report(&app, &key, strict_id, "").await),
        vec![3, 1],
        "slow took 30 h; early signed up first"
    );
    assert_eq!(
        counts(&report(&app, &key, loose["funnel_id"].as_str().unwrap(), "").await),
        vec![3, 2]
    );

    let updated = app
        .dashboard(
            Method::PATCH,
            &format!("/v1/games/{game_id}/funnels/{strict_id}"),
            &token,
        )
        .json(&json!({ "within_hours": null }))
        .expect_status(200)
        .await;
    assert!(updated["within_hours"].is_null());
    assert_eq!(
        counts(&report(&app, &key, strict_id, "").await),
        vec![3, 2],
        "without a window slow converts"
    );
}

#[tokio::test]
async fn reports_cover_the_requested_utc_days() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let today = app.state.now().date_naive();
    let noon = |days_ago: i64| {
        (today - Duration::days(days_ago))
            .and_hms_opt(12, 0, 0)
            .unwrap()
            .and_utc()
    };
    seed_events(
        &app,
        &game_id,
        &[
            ev("open", "recent", noon(2)),
            ev("signup", "recent", noon(2) + Duration::minutes(1)),
            ev("open", "old", noon(40)),
            ev("signup", "old", noon(40) + Duration::minutes(1)),
        ],
    )
    .await;
    let funnel = create_funnel(
        &app,
        &token,
        &game_id,
        json!({ "name": "f", "steps": ["open", "signup"] }),
    )
    .await;
    let id = funnel["funnel_id"].as_str().unwrap();

    let body = report(&app, &key, id, "").await;
    assert_eq!(
        counts(&body),
        vec![1, 1],
        "the default range is the last 30 days"
    );
    assert_eq!(body["to"], today.to_string());
    assert_eq!(body["from"], (today - Duration::days(29)).to_string());

    let day = |days_ago: i64| (today - Duration::days(days_ago)).to_string();
    let body = report(&app, &key, id, &format!("?from={}&to={}", day(41), day(40))).await;
    assert_eq!(counts(&body), vec![1, 1]);
    let body = report(&app, &key, id, &format!("?from={}&to={}", day(40), day(40))).await;
    assert_eq!(counts(&body), vec![1, 1], "from and to are inclusive");
    let body = report(&app, &key, id, &format!("?to={}", day(39))).await;
    assert_eq!(counts(&body), vec![1, 1], "30 days up to to");
    let body = report(&app, &key, id, "?environment=production").await;
    assert_eq!(
        counts(&body),
        vec![0, 0],
        "the events came through a development key"
    );
    let body = report(&app, &key, id, "?environment=development").await;
    assert_eq!(counts(&body), vec![1, 1]);
    let body = report(&app, &key, id, &format!("?from={}&to={}", day(1), day(0))).await;
    assert_eq!(counts(&body), vec![0, 0]);
    assert_eq!(body["overall_conversion"], 0.0, "0 when nobody started");
    assert_eq!(body["steps"][1]["dropoff"], 0.0);

    for (query, why) in [
        ("?from=2026-13-01", "month 13"),
        ("?to=2026-02-30", "no such day"),
        ("?from=20261101", "not YYYY-MM-DD"),
        ("?from=yesterday", "words"),
        ("?from=2026-11-21T00:00:00Z", "a timestamp, not a date"),
        ("?from=2026-11-10&to=2026-11-01", "from after to"),
        ("?from=2020-01-01&to=2026-01-01", "over 366 days"),
        ("?environment=staging", "unknown environment"),
    ] {
        let (status, body) = app
            .game_call(Method::GET, &format!("/v1/funnels/{id}{query}"), &key)
            .await;
        assert_eq!(status, 400, "{why}: {body}");
        assert!(body["error"].is_string(), "{why}");
    }
}

#[tokio::test]
async fn funnels_are_private_to_their_game() {
    let app = spawn_app().await;
    let _admin = app.new_user().await; // the first account is the instance admin, who sees every game
    let (token, game_id, key) = app.game_with_key().await;
    let (other_token, other_game, other_key) = app.game_with_key().await;
    let mine = create_funnel(
        &app,
        &token,
        &game_id,
        json!({ "name": "mine", "steps": ["a", "b"] }),
    )
    .await;
    let theirs = create_funnel(
        &app,
        &other_token,
        &other_game,
        json!({ "name": "theirs", "steps": ["a", "b"] }),
    )
    .await;
    let theirs_id = theirs["funnel_id"].as_str().unwrap();

    let (status, list) = app.game_call(Method::GET, "/v1/funnels", &key).await;
    assert_eq!(status, 200);
    assert_eq!(list["funnels"].as_array().unwrap().len(), 1);
    assert_eq!(list["funnels"][0]["funnel_id"], mine["funnel_id"]);

    for (path, why) in [
        (format!("/v1/funnels/{theirs_id}"), "another game's funnel"),
        (format!("/v1/funnels/{}", Uuid::now_v7()), "unknown id"),
        ("/v1/funnels/not-a-uuid".to_string(), "malformed id"),
    ] {
        let (status, body) = app.game_call(Method::GET, &path, &key).await;
        assert_eq!(status, 404, "{why}: {body}");
        assert!(body["error"].is_string());
    }
    assert_eq!(
        report(&app, &other_key, theirs_id, "").await["funnel_id"],
        theirs["funnel_id"]
    );

    // Dashboard: another game's funnel under my game's path is 404; their game is 403.
    let path = format!("/v1/games/{game_id}/funnels/{theirs_id}");
    for method in [Method::GET, Method::DELETE] {
        let (status, _) = app.dashboard_call(method, &path, &token).await;
        assert_eq!(status, 404);
    }
    app.dashboard(
        Method::GET,
        &format!("/v1/games/{other_game}/funnels"),
        &token,
    )
    .expect_status(403)
    .await;
    let (status, _) = app.call(Method::GET, "/v1/funnels").await;
    assert_eq!(status, 401);
}

#[tokio::test]
async fn funnel_definitions_are_validated_and_editable_by_editors_only() {
    let app = spawn_app().await;
    let (token, game_id, _) = app.game_with_key().await;
    let path = format!("/v1/games/{game_id}/funnels");
    let twenty_one: Vec<String> = (0..21).map(|i| format!("e{i}")).collect();
    for (body, why) in [
        (json!({ "name": "f", "steps": ["only"] }), "one step"),
        (json!({ "name": "f", "steps": twenty_one }), "21 steps"),
        (json!({ "name": "f", "steps": [] }), "no steps"),
        (json!({ "name": "f" }), "steps missing"),
        (json!({ "steps": ["a", "b"] }), "name missing"),
        (json!({ "name": "", "steps": ["a", "b"] }), "empty name"),
        (
            json!({ "name": "x".repeat(101), "steps": ["a", "b"] }),
            "long name",
        ),
        (json!({ "name": "f", "steps": ["a", ""] }), "empty step"),
        (
            json!({ "name": "f", "steps": ["a", "b".repeat(129)] }),
            "long step",
        ),
        (json!({ "name": "f", "steps": ["a", null] }), "null step"),
        (
            json!({ "name": "f", "steps": ["a", ["b"]] }),
            "step is an array",
        ),
        (json!({ "name": "f", "steps": "a,b" }), "steps not an array"),
        (
            json!({ "name": "f", "mode": "fuzzy", "steps": ["a", "b"] }),
            "unknown mode",
        ),
        (
            json!({ "name": "f", "steps": ["a", "b"], "within_hours": 0 }),
            "zero window",
        ),
        (
            json!({ "name": "f", "steps": ["a", "b"], "within_hours": -3 }),
            "negative window",
        ),
        (
            json!({ "name": "f", "steps": ["a", "b"], "colour": "red" }),
            "unknown field",
        ),
    ] {
        let (status, body) = app.dashboard_json(Method::POST, &path, &token, body).await;
        assert_eq!(status, 400, "{why}: {body}");
        assert!(body["error"].is_string(), "{why}");
    }

    let twenty: Vec<String> = (0..20).map(|i| format!("e{i}")).collect();
    let funnel = create_funnel(
        &app,
        &token,
        &game_id,
        json!({ "name": "Long", "mode": "strict", "steps": twenty }),
    )
    .await;
    let funnel_path = format!("{path}/{}", funnel["funnel_id"].as_str().unwrap());

    // A viewer reads but cannot write.
    let (viewer, _) = app.new_member(&token, &game_id, "viewer").await;
    let (status, list) = app.dashboard_call(Method::GET, &path, &viewer).await;
    assert_eq!(status, 200);
    assert_eq!(list["funnels"][0]["name"], "Long");
    let (status, _) = app.dashboard_call(Method::GET, &funnel_path, &viewer).await;
    assert_eq!(status, 200);
    for (method, body) in [
        (Method::POST, json!({ "name": "v", "steps": ["a", "b"] })),
        (Method::PATCH, json!({ "name": "v" })),
        (Method::DELETE, json!({})),
    ] {
        let target = if method == Method::POST {
            &path
        } else {
            &funnel_path
        };
        let (status, body) = app
            .dashboard_json(method.clone(), target, &viewer, body)
            .await;
        assert_eq!(status, 403, "viewer {method}: {body}");
    }

    let updated = app
        .dashboard(Method::PATCH, &funnel_path, &token)
        .json(&json!({ "name": "Short", "mode": "loose", "steps": ["x", "y"] }))
        .expect_status(200)
        .await;
    assert_eq!(
        (updated["name"].as_str(), updated["mode"].as_str()),
        (Some("Short"), Some("loose"))
    );
    assert_eq!(updated["steps"], json!(["x", "y"]));
    app.dashboard(Method::PATCH, &funnel_path, &token)
        .json(&json!({ "steps": ["x"] }))
        .expect_status(400)
        .await;

    app.dashboard(Method::DELETE, &funnel_path, &token)
        .expect_status(204)
        .await;
    let (status, _) = app.dashboard_call(Method::GET, &funnel_path, &token).await;
    assert_eq!(status, 404);
}

/// End to end through ingestion: events sent with `POST /v1/track` (backdated with
/// `client_timestamp`) are what the funnel counts.
#[tokio::test]
async fn tracked_events_feed_the_funnel() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let funnel = create_funnel(
        &app,
        &token,
        &game_id,
        json!({ "name": "tutorial", "mode": "strict", "steps": ["start", "finish"] }),
    )
    .await;
    let at = |minutes: i64| {
        playtrace::http::timestamp(
            app.state.now() - Duration::hours(2) + Duration::minutes(minutes),
        )
    };
    let batch = json!([
        { "event_name": "start", "session_id": "s1", "player_id": "p1", "client_timestamp": at(0) },
        { "event_name": "finish", "session_id": "s1", "player_id": "p1", "client_timestamp": at(5) },
        { "event_name": "start", "session_id": "s2", "player_id": "p2", "client_timestamp": at(1) },
        { "event_name": "finish", "session_id": "s3", "client_timestamp": at(2) },
    ]);
    let (status, body) = app.game_json(Method::POST, "/v1/track", &key, batch).await;
    assert_eq!(status, 202, "{body}");
    let report = report(&app, &key, funnel["funnel_id"].as_str().unwrap(), "").await;
    assert_eq!(counts(&report), vec![2, 1], "{report}");
    assert_eq!(report["overall_conversion"].as_f64().unwrap(), 50.0);
}
