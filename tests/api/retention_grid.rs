//! The retention grid (`GET /v1/games/{game_id}/retention`, issue 26) on a small data set
//! whose answers are worked out by hand: players joining on known days and coming back on
//! known days, cells not complete yet, environments, and bad input.
use crate::helpers::{spawn_app, Fetch, TestApp};
use chrono::{Duration, NaiveDate};
use reqwest::Method;
use serde_json::{json, Value};

/// Noon of the day `days` before `today`, as a `client_timestamp`.
fn noon(today: NaiveDate, days: i64) -> String {
    (playtrace::query::midnight(today - Duration::days(days)) + Duration::hours(12))
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// One `session_start` per (player, days before today).
async fn play(app: &TestApp, key: &str, today: NaiveDate, visits: &[(&str, i64)]) {
    let events: Vec<Value> = visits
        .iter()
        .map(|(player, days)| {
            json!({
                "event_name": "session_start", "player_id": player,
                "session_id": format!("{player}-{days}"), "client_timestamp": noon(today, *days),
            })
        })
        .collect();
    app.game(Method::POST, "/v1/track", key)
        .json(&Value::Array(events))
        .expect_status(202)
        .await;
}

async fn grid(app: &TestApp, token: &str, game_id: &str, query: &str) -> Value {
    app.dashboard(
        Method::GET,
        &format!("/v1/games/{game_id}/retention?{query}"),
        token,
    )
    .expect_status(200)
    .await
}

/// A row's first `days` cells of `field` (`returned` or `retention`), as numbers or None.
fn cells(row: &Value, field: &str, days: usize) -> Vec<Option<f64>> {
    row[field].as_array().unwrap()[..days]
        .iter()
        .map(Value::as_f64)
        .collect()
}

fn close(got: Vec<Option<f64>>, want: &[Option<f64>], what: &str) {
    let same = got.len() == want.len()
        && got.iter().zip(want).all(|(got, want)| match (got, want) {
            (Some(got), Some(want)) => (got - want).abs() < 1e-9,
            (got, want) => got == want,
        });
    assert!(same, "{what}: {got:?}, expected {want:?}");
}

#[tokio::test]
async fn each_cohort_shows_its_size_and_the_share_back_on_each_ended_day() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let production = app.create_key(&token, &game_id, "production").await;
    let today = app.state.now().date_naive();
    // Four days ago ana, bob, cara and dan start; ana and bob come back the next day, ana the
    // day after, bob and cara the day after that, and dan today (day 4, not ended). Nobody
    // starts three days ago. Two days ago eve, fay and gus start; eve comes back yesterday,
    // fay today. Yesterday hal starts on a production key; ivy starts today.
    play(
        &app,
        &key,
        today,
        &[
            ("ana", 4),
            ("bob", 4),
            ("cara", 4),
            ("dan", 4),
            ("ana", 3),
            ("bob", 3),
            ("ana", 2),
            ("bob", 1),
            ("cara", 1),
            ("dan", 0),
            ("eve", 2),
            ("fay", 2),
            ("gus", 2),
            ("eve", 1),
            ("fay", 0),
            ("ivy", 0),
        ],
    )
    .await;
    play(&app, &production, today, &[("hal", 1)]).await;

    let from = today - Duration::days(4);
    let body = grid(&app, &token, &game_id, &format!("from={from}&to={today}")).await;
    assert_eq!(body["from"], from.to_string());
    assert_eq!(body["to"], today.to_string());
    assert_eq!(body["return_days"], 30);
    let rows = body["cohorts"].as_array().unwrap();
    let days: Vec<String> = (0..5)
        .map(|i| (from + Duration::days(i)).to_string())
        .collect();
    assert_eq!(
        rows.iter()
            .map(|r| r["day"].as_str().unwrap())
            .collect::<Vec<_>>(),
        days
    );
    let sizes: Vec<u64> = rows
        .iter()
        .map(|r| r["cohort_size"].as_u64().unwrap())
        .collect();
    assert_eq!(sizes, [4, 0, 3, 1, 1], "{body}");
    // Days 1 to 3 of the oldest cohort have ended, one fewer for each later cohort; today's
    // and yesterday's have none.
    let complete: Vec<u64> = rows
        .iter()
        .map(|r| r["complete_days"].as_u64().unwrap())
        .collect();
    assert_eq!(complete, [3, 2, 1, 0, 0]);
    for row in rows {
        assert_eq!(row["returned"].as_array().unwrap().len(), 30, "{row}");
        assert_eq!(row["retention"].as_array().unwrap().len(), 30, "{row}");
    }
    let (none, zero) = (None, Some(0.0));
    close(
        cells(&rows[0], "returned", 5),
        &[Some(2.0), Some(1.0), Some(2.0), none, none],
        "four days ago, returned",
    );
    close(
        cells(&rows[0], "retention", 5),
        &[Some(50.0), Some(25.0), Some(50.0), none, none],
        "four days ago: dan's return today is not shown until the day ends",
    );
    // An empty cohort: its ended days count nobody and have no share.
    close(cells(&rows[1], "returned", 3), &[zero, zero, none], "empty");
    close(
        cells(&rows[1], "retention", 3),
        &[none, none, none],
        "empty",
    );
    close(
        cells(&rows[2], "retention", 2),
        &[Some(100.0 / 3.0), none],
        "two days ago",
    );
    for (row, what) in [(&rows[3], "yesterday"), (&rows[4], "today")] {
        assert!(
            row["retention"]
                .as_array()
                .unwrap()
                .iter()
                .all(Value::is_null),
            "{what}: {row}"
        );
        assert!(
            row["returned"]
                .as_array()
                .unwrap()
                .iter()
                .all(Value::is_null),
            "{what}: {row}"
        );
    }

    // The day-1 column is the retention_d1 metric.
    let d1 = app
        .dashboard(
            Method::GET,
            &format!("/v1/games/{game_id}/metrics?metric=retention_d1&from={from}&to={today}"),
            &token,
        )
        .expect_status(200)
        .await;
    let metric: Vec<Option<f64>> = d1["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["value"].as_f64())
        .collect();
    let column: Vec<Option<f64>> = rows.iter().map(|r| r["retention"][0].as_f64()).collect();
    close(column, &metric, "day 1 against retention_d1");

    // One environment: hal alone in production; the development grid has no one yesterday.
    let production = grid(
        &app,
        &token,
        &game_id,
        &format!("from={from}&to={today}&environment=production"),
    )
    .await;
    assert_eq!(production["environment"], "production");
    let sizes: Vec<u64> = production["cohorts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["cohort_size"].as_u64().unwrap())
        .collect();
    assert_eq!(sizes, [0, 0, 0, 1, 0]);
    let development = grid(
        &app,
        &token,
        &game_id,
        &format!("from={from}&to={today}&environment=development"),
    )
    .await;
    assert_eq!(development["cohorts"][3]["cohort_size"], 0);
    assert_eq!(development["cohorts"][0]["cohort_size"], 4);

    // A day later today has ended: dan's return is day 4 of his cohort, fay's (none on day 2
    // for eve and gus) day 2 of hers.
    app.clock.advance(Duration::days(1));
    let body = grid(&app, &token, &game_id, &format!("from={from}&to={today}")).await;
    let rows = body["cohorts"].as_array().unwrap();
    close(
        cells(&rows[0], "retention", 5),
        &[Some(50.0), Some(25.0), Some(50.0), Some(25.0), none],
        "four days ago, a day later",
    );
    close(
        cells(&rows[2], "returned", 3),
        &[Some(1.0), Some(1.0), none],
        "two days ago, a day later",
    );
    // Hal (yesterday's cohort, now two days ago) did not come back on his day 1.
    assert_eq!(rows[3]["complete_days"], 1);
    close(
        cells(&rows[3], "retention", 2),
        &[zero, none],
        "hal's day 1",
    );
    assert_eq!(rows[4]["complete_days"], 0);
}

#[tokio::test]
async fn day_30_is_the_last_column_and_the_default_range_is_the_last_30_days() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let today = app.state.now().date_naive();
    // Forty days ago two players start; one is back on day 30 and again on day 31.
    play(
        &app,
        &key,
        today,
        &[("old", 40), ("gone", 40), ("old", 10), ("old", 9)],
    )
    .await;

    let day = today - Duration::days(40);
    let body = grid(&app, &token, &game_id, &format!("from={day}&to={day}")).await;
    let row = &body["cohorts"][0];
    assert_eq!(row["cohort_size"], 2);
    assert_eq!(row["complete_days"], 30);
    assert_eq!(row["retention"][29], 50.0, "{row}");
    assert_eq!(row["retention"][28], 0.0, "{row}");

    let body = grid(&app, &token, &game_id, "").await;
    let rows = body["cohorts"].as_array().unwrap();
    assert_eq!(rows.len(), 30);
    assert_eq!(body["to"], today.to_string());
    assert_eq!(body["from"], (today - Duration::days(29)).to_string());
    assert_eq!(body["environment"], Value::Null);
}

#[tokio::test]
async fn bad_ranges_and_strangers_are_refused() {
    let app = spawn_app().await;
    let (token, game_id, _key) = app.game_with_key().await;
    let path = |query: &str| format!("/v1/games/{game_id}/retention?{query}");
    for (query, error, what) in [
        (
            "from=2026-13-01",
            "from must be a date in YYYY-MM-DD format",
            "bad month",
        ),
        (
            "to=yesterday",
            "to must be a date in YYYY-MM-DD format",
            "not a date",
        ),
        (
            "from=2026-11-20&to=2026-11-10",
            "from must not be after to",
            "reversed",
        ),
        (
            "from=2025-01-01&to=2026-01-02",
            "the range from..to may cover at most 366 days",
            "367 days",
        ),
        (
            "environment=staging",
            "environment must be development or production",
            "environment",
        ),
    ] {
        let (status, body) = app.dashboard_call(Method::GET, &path(query), &token).await;
        assert_eq!(status, 400, "{what}: {body}");
        assert_eq!(body["error"], error, "{what}");
    }
    // 366 days is the most.
    let (status, _) = app
        .dashboard_call(Method::GET, &path("from=2025-01-01&to=2026-01-01"), &token)
        .await;
    assert_eq!(status, 200);

    // Another studio's account (the first account of the instance is its admin, who sees
    // every game; this one is not), an unknown game, no token.
    let stranger = app.new_user().await;
    let (status, body) = app.dashboard_call(Method::GET, &path(""), &stranger).await;
    assert_eq!(status, 403, "{body}");
    let (status, body) = app
        .dashboard_call(
            Method::GET,
            &format!("/v1/games/{}/retention", uuid::Uuid::new_v4()),
            &stranger,
        )
        .await;
    assert_eq!(status, 403, "{body}");
    let (status, body) = app.call(Method::GET, &path("")).await;
    assert_eq!(status, 401, "{body}");
    // A viewer reads it.
    let (viewer, _) = app.new_member(&token, &game_id, "viewer").await;
    let (status, _) = app.dashboard_call(Method::GET, &path(""), &viewer).await;
    assert_eq!(status, 200);
}
