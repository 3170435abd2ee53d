//! Progression and economy (issue 26): `progression` and `resource` events counted at ingest
//! and read per step and per currency. Small data sets with answers worked out by hand, the
//! validation modes on bad input (`progression_economy_generated.rs` holds them equal to the
//! stored events on generated data).
use crate::helpers::{spawn_app, Fetch, TestApp};
use chrono::Duration;
use reqwest::Method;
use serde_json::{json, Value};

/// Noon of the day `days` before today, as a `client_timestamp`.
fn noon(app: &TestApp, days: i64) -> String {
    let day = app.state.now().date_naive() - Duration::days(days);
    (playtrace::query::midnight(day) + Duration::hours(12))
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

pub fn event(app: &TestApp, name: &str, days: i64, properties: Value) -> Value {
    json!({
        "event_name": name, "session_id": "s1", "player_id": "ana",
        "client_timestamp": noon(app, days), "properties": properties,
    })
}

pub async fn report(app: &TestApp, token: &str, game_id: &str, read: &str, query: &str) -> Value {
    app.dashboard(
        Method::GET,
        &format!("/v1/games/{game_id}/{read}?{query}"),
        token,
    )
    .expect_status(200)
    .await
}

/// The steps of a progression report as (levels, starts, completes, fails, fail rate,
/// average attempts).
fn steps(report: &Value) -> Vec<(Vec<String>, u64, u64, u64, Value, Value)> {
    report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|step| {
            (
                serde_json::from_value(step["levels"].clone()).unwrap(),
                step["starts"].as_u64().unwrap(),
                step["completes"].as_u64().unwrap(),
                step["fails"].as_u64().unwrap(),
                step["fail_rate"].clone(),
                step["average_attempts"].clone(),
            )
        })
        .collect()
}

fn levels(names: &[&str]) -> Vec<String> {
    names.iter().map(|name| name.to_string()).collect()
}

#[tokio::test]
async fn progression_counts_each_steps_starts_completes_fails_and_attempts() {
    let app = spawn_app().await;
    let (token, game_id, development) = app.game_with_key().await;
    let production = app.create_key(&token, &game_id, "production").await;
    let step = |days, status: &str, path: &[&str], attempt: Option<u64>| {
        let mut properties = json!({ "status": status });
        for (index, level) in path.iter().enumerate() {
            properties[format!("level{}", index + 1)] = json!(level);
        }
        if let Some(attempt) = attempt {
            properties["attempt"] = json!(attempt);
            properties["score"] = json!(1200.5);
        }
        event(&app, "progression", days, properties)
    };
    let w1l1 = ["world 1", "level 1"];
    let dev = json!([
        step(2, "start", &w1l1, None),
        step(2, "fail", &w1l1, Some(1)),
        step(2, "start", &w1l1, None),
        step(2, "complete", &w1l1, Some(2)),
        step(1, "start", &["world 1", "level 2"], None),
        step(1, "fail", &["world 1", "level 2"], None),
        step(1, "complete", &["world 1", "level 2"], None),
        step(1, "start", &["world 1"], None),
        // Not of the shape (validation is off: stored, counted nowhere here).
        event(&app, "progression", 1, json!({ "level1": "world 1" })),
        event(
            &app,
            "progression",
            1,
            json!({ "status": "done", "level1": "world 1" })
        ),
    ]);
    let prod = json!([
        step(2, "start", &w1l1, None),
        step(2, "complete", &w1l1, Some(1)),
        step(1, "start", &["world 1", "level 10"], None),
    ]);
    for (key, events) in [(&development, dev), (&production, prod)] {
        app.game(Method::POST, "/v1/track", key)
            .json(&events)
            .expect_status(202)
            .await;
    }
    let today = app.state.now().date_naive();
    let day = |days| (today - Duration::days(days)).to_string();

    let all = report(
        &app,
        &token,
        &game_id,
        "progression",
        &format!("from={}&to={}", day(2), day(1)),
    )
    .await;
    assert_eq!(all["from"], day(2));
    assert_eq!(all["environment"], Value::Null);
    assert_eq!(
        steps(&all),
        [
            (levels(&["world 1"]), 1, 0, 0, Value::Null, Value::Null),
            (levels(&w1l1), 3, 2, 1, json!(33.33), json!(1.5)),
            (
                levels(&["world 1", "level 2"]),
                1,
                1,
                1,
                json!(50.0),
                Value::Null
            ),
            (
                levels(&["world 1", "level 10"]),
                1,
                0,
                0,
                Value::Null,
                Value::Null
            ),
        ],
        "{all}"
    );
    let production_only = report(
        &app,
        &token,
        &game_id,
        "progression",
        "environment=production",
    )
    .await;
    assert_eq!(
        steps(&production_only),
        [
            (levels(&w1l1), 1, 1, 0, json!(0.0), json!(1.0)),
            (
                levels(&["world 1", "level 10"]),
                1,
                0,
                0,
                Value::Null,
                Value::Null
            ),
        ]
    );
    let yesterday = report(
        &app,
        &token,
        &game_id,
        "progression",
        &format!("from={0}&to={0}", day(1)),
    )
    .await;
    assert_eq!(steps(&yesterday).len(), 3, "{yesterday}");
    let empty = report(
        &app,
        &token,
        &game_id,
        "progression",
        &format!("to={}", day(3)),
    )
    .await;
    assert_eq!(empty["steps"], json!([]));

    for (query, error) in [
        ("from=yesterday", "from must be a date in YYYY-MM-DD format"),
        (
            "environment=staging",
            "environment must be development or production",
        ),
    ] {
        let (status, body) = app
            .dashboard_call(
                Method::GET,
                &format!("/v1/games/{game_id}/progression?{query}"),
                &token,
            )
            .await;
        assert_eq!(
            (status, body["error"].as_str()),
            (400, Some(error)),
            "{query}"
        );
    }
    let stranger = app.new_user().await;
    let (status, _) = app
        .dashboard_call(
            Method::GET,
            &format!("/v1/games/{game_id}/economy"),
            &stranger,
        )
        .await;
    assert_eq!(status, 403, "only the game's members read it");
}

#[tokio::test]
async fn economy_sums_sources_and_sinks_per_currency_item_type_and_day() {
    let app = spawn_app().await;
    let (token, game_id, development) = app.game_with_key().await;
    let production = app.create_key(&token, &game_id, "production").await;
    let flow = |days, flow: &str, currency: &str, amount: f64, item_type: Option<&str>| {
        let mut properties = json!({ "flow": flow, "currency": currency, "amount": amount });
        if let Some(item_type) = item_type {
            properties["item_type"] = json!(item_type);
            properties["item_id"] = json!("x-1");
        }
        event(&app, "resource", days, properties)
    };
    let dev = json!([
        flow(2, "source", "gold", 100.0, Some("reward")),
        flow(2, "source", "gold", 50.0, Some("reward")),
        flow(2, "sink", "gold", 30.0, Some("shop")),
        flow(2, "source", "gems", 5.0, None),
        // Not of the shape: stored, counted nowhere here.
        flow(2, "sink", "gold", -5.0, Some("shop")),
        flow(2, "gift", "gold", 5.0, Some("shop")),
    ]);
    let prod = json!([
        flow(1, "sink", "gold", 20.0, Some("shop")),
        flow(1, "source", "gold", 10.0, Some("ad")),
    ]);
    for (key, events) in [(&development, dev), (&production, prod)] {
        app.game(Method::POST, "/v1/track", key)
            .json(&events)
            .expect_status(202)
            .await;
    }
    let today = app.state.now().date_naive();
    let day = |days| (today - Duration::days(days)).to_string();
    let range = format!("from={}&to={}", day(2), day(0));

    let all = report(&app, &token, &game_id, "economy", &range).await;
    let day_of = |days, source: f64, sink: f64| json!({ "day": day(days), "source": source, "sink": sink, "net": source - sink });
    assert_eq!(
        all["currencies"],
        json!([
            {
                "currency": "gems", "source": 5.0, "sink": 0.0, "net": 5.0,
                "sources": [{ "item_type": null, "amount": 5.0, "events": 1 }],
                "sinks": [],
                "days": [day_of(2, 5.0, 0.0), day_of(1, 0.0, 0.0), day_of(0, 0.0, 0.0)],
            },
            {
                "currency": "gold", "source": 160.0, "sink": 50.0, "net": 110.0,
                "sources": [
                    { "item_type": "reward", "amount": 150.0, "events": 2 },
                    { "item_type": "ad", "amount": 10.0, "events": 1 },
                ],
                "sinks": [{ "item_type": "shop", "amount": 50.0, "events": 2 }],
                "days": [day_of(2, 150.0, 30.0), day_of(1, 10.0, 20.0), day_of(0, 0.0, 0.0)],
            },
        ]),
        "{all}"
    );
    let development_only = report(
        &app,
        &token,
        &game_id,
        "economy",
        &format!("{range}&environment=development"),
    )
    .await;
    let gold = &development_only["currencies"][1];
    assert_eq!(
        (gold["source"].clone(), gold["sink"].clone()),
        (json!(150.0), json!(30.0))
    );
}

#[tokio::test]
async fn bad_progression_and_resource_events_warn_or_are_refused_and_never_count() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let set_validation = |mode: &'static str| {
        app.dashboard(Method::PATCH, &format!("/v1/games/{game_id}"), &token)
            .json(&json!({ "event_validation": mode }))
            .expect_status(200)
    };
    let start = event(
        &app,
        "progression",
        0,
        json!({ "status": "start", "level1": "w1" }),
    );
    let gold = event(
        &app,
        "resource",
        0,
        json!({ "flow": "source", "currency": "gold", "amount": 3 }),
    );
    let no_status = event(&app, "progression", 0, json!({ "level1": "w1" }));
    let negative = event(
        &app,
        "resource",
        0,
        json!({ "flow": "sink", "currency": "gold", "amount": -2 }),
    );
    let unknown_flow = event(
        &app,
        "resource",
        0,
        json!({ "flow": "gift", "currency": "gold", "amount": 2 }),
    );

    set_validation("warn").await;
    let answer = app
        .game(Method::POST, "/v1/track", &key)
        .json(&json!([start, no_status, negative, unknown_flow, gold]))
        .expect_status(202)
        .await;
    assert_eq!(answer["received"], 5);
    let warned: Vec<u64> = answer["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .map(|warning| warning["index"].as_u64().unwrap())
        .collect();
    assert_eq!(warned, [1, 2, 3], "{answer}");

    set_validation("enforce").await;
    let (status, refused) = app
        .game_json(Method::POST, "/v1/track", &key, json!([start, negative]))
        .await;
    assert_eq!(status, 400, "{refused}");
    assert_eq!(refused["violations"][0]["index"], 1, "{refused}");
    assert_eq!(refused["violations"][0]["event_name"], "resource");

    // A schema of the game's own for the name replaces the ready one.
    app.dashboard_json(
        Method::PUT,
        &format!("/v1/games/{game_id}/event-schemas/progression"),
        &token,
        json!({ "type": "object" }),
    )
    .await;
    app.game(Method::POST, "/v1/track", &key)
        .json(&json!([no_status]))
        .expect_status(202)
        .await;

    // Only the two events of the shape count: none of the refused request, none of the bad.
    let progression = report(&app, &token, &game_id, "progression", "").await;
    assert_eq!(
        steps(&progression),
        [(levels(&["w1"]), 1, 0, 0, Value::Null, Value::Null)]
    );
    let economy = report(&app, &token, &game_id, "economy", "").await;
    let currencies = economy["currencies"].as_array().unwrap();
    assert_eq!(currencies.len(), 1, "{economy}");
    assert_eq!(
        (
            currencies[0]["source"].clone(),
            currencies[0]["sink"].clone()
        ),
        (json!(3.0), json!(0.0))
    );
}

#[tokio::test]
async fn retention_and_game_deletion_take_the_steps_and_flows_with_the_events() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let start = |days| {
        event(
            &app,
            "progression",
            days,
            json!({ "status": "start", "level1": format!("day {days}") }),
        )
    };
    let gold = |days| {
        event(
            &app,
            "resource",
            days,
            json!({ "flow": "source", "currency": format!("gold {days}"), "amount": 1 }),
        )
    };
    app.game(Method::POST, "/v1/track", &key)
        .json(&json!([start(20), gold(20), start(1), gold(1)]))
        .expect_status(202)
        .await;
    app.dashboard(Method::PATCH, &format!("/v1/games/{game_id}"), &token)
        .json(&json!({ "retention_days": 12 }))
        .expect_status(200)
        .await;
    playtrace::events::retention::delete_expired_events(&app.state)
        .await
        .unwrap();

    let progression = report(&app, &token, &game_id, "progression", "").await;
    assert_eq!(
        steps(&progression),
        [(levels(&["day 1"]), 1, 0, 0, Value::Null, Value::Null)]
    );
    let economy = report(&app, &token, &game_id, "economy", "").await;
    assert_eq!(economy["currencies"][0]["currency"], "gold 1");
    assert_eq!(
        economy["currencies"].as_array().unwrap().len(),
        1,
        "{economy}"
    );

    app.dashboard(Method::DELETE, &format!("/v1/games/{game_id}"), &token)
        .expect_status(204)
        .await;
    for table in ["analytics_progression_days", "analytics_resource_days"] {
        let db = &app.state.db;
        let left = sea_orm::ConnectionTrait::query_one_raw(
            db,
            sea_orm::Statement::from_sql_and_values(
                sea_orm::ConnectionTrait::get_database_backend(db),
                format!("SELECT CAST(COUNT(*) AS BIGINT) AS n FROM {table} WHERE game_id = $1"),
                [game_id.parse::<uuid::Uuid>().unwrap().into()],
            ),
        )
        .await
        .unwrap()
        .unwrap()
        .try_get::<i64>("", "n")
        .unwrap();
        assert_eq!(left, 0, "{table} keeps nothing of a deleted game");
    }
}
