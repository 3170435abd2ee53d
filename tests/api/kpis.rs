//! The game KPIs studios read first (issue 26), on a small data set whose answers are worked
//! out by hand: new users, day-1 and day-30 retention, paying users, ARPDAU, ARPPU and
//! conversion per day. (`analytics.rs` holds them equal to the raw events on generated data.)
use crate::helpers::{spawn_app, Fetch};
use chrono::Duration;
use reqwest::Method;
use serde_json::{json, Value};

#[tokio::test]
async fn each_kpi_per_day_is_what_the_players_did() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let today = app.state.now().date_naive();
    // Noon of the day `days` before today.
    let at = |days: i64| {
        (playtrace::query::midnight(today - Duration::days(days)) + Duration::hours(12))
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    };
    let event = |player: &str, name: &str, days: i64, amount: Option<f64>| {
        let mut event = json!({
            "event_name": name, "session_id": format!("{player}-{days}"), "player_id": player,
            "client_timestamp": at(days),
        });
        if let Some(amount) = amount {
            event["properties"] = json!({ "amount": amount });
        }
        event
    };
    // Three days ago ana (who pays 4.99) and bob start; two days ago ana comes back and cara
    // starts, paying twice (10 and 5.01); yesterday bob and cara come back.
    let events = json!([
        event("ana", "session_start", 3, None),
        event("ana", "purchase", 3, Some(4.99)),
        event("bob", "session_start", 3, None),
        event("ana", "session_start", 2, None),
        event("cara", "session_start", 2, None),
        event("cara", "purchase", 2, Some(10.0)),
        event("cara", "purchase", 2, Some(5.01)),
        event("bob", "session_start", 1, None),
        event("cara", "level_start", 1, None),
    ]);
    app.game(Method::POST, "/v1/track", &key)
        .json(&events)
        .expect_status(202)
        .await;

    let (from, to) = (today - Duration::days(3), today - Duration::days(1));
    let series = |metric| daily_values(&app, &token, &game_id, metric, from, to);
    let close = |got: Vec<Option<f64>>, want: [Option<f64>; 3], metric: &str| {
        let matches = got.len() == 3
            && got.iter().zip(want).all(|(got, want)| match (got, want) {
                (Some(got), Some(want)) => (got - want).abs() < 1e-9,
                (got, want) => *got == want,
            });
        assert!(matches, "{metric}: {got:?}, expected {want:?}");
    };
    close(
        series("new_users").await,
        [Some(2.0), Some(1.0), Some(0.0)],
        "new_users",
    );
    close(
        series("active_users").await,
        [Some(2.0), Some(2.0), Some(2.0)],
        "active_users",
    );
    close(
        series("paying_users").await,
        [Some(1.0), Some(1.0), Some(0.0)],
        "paying_users",
    );
    close(
        series("revenue").await,
        [Some(4.99), Some(15.01), Some(0.0)],
        "revenue",
    );
    close(
        series("arpdau").await,
        [Some(2.495), Some(7.505), Some(0.0)],
        "arpdau",
    );
    // No paying user yesterday: revenue per paying user is undefined, not 0.
    close(
        series("arppu").await,
        [Some(4.99), Some(15.01), None],
        "arppu",
    );
    close(
        series("conversion").await,
        [Some(50.0), Some(50.0), Some(0.0)],
        "conversion",
    );
    // Of ana and bob (3 days ago) ana came back the next day; cara (2 days ago) came back
    // yesterday; yesterday's cohort is empty and its next day has not ended.
    close(
        series("retention_d1").await,
        [Some(50.0), Some(100.0), None],
        "retention_d1",
    );
    // Day 30 of these cohorts is still ahead.
    close(
        series("retention_d30").await,
        [None, None, None],
        "retention_d30",
    );
    let body = app
        .dashboard(
            Method::GET,
            &format!("/v1/games/{game_id}/metrics?metric=retention_d30&from={from}&to={to}"),
            &token,
        )
        .expect_status(200)
        .await;
    let sizes: Vec<Option<u64>> = body["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|point| point["cohort_size"].as_u64())
        .collect();
    assert_eq!(sizes, [Some(2), Some(1), Some(0)], "{body}");
}

#[tokio::test]
async fn the_daily_kpis_refuse_hour_buckets_and_unknown_names_list_them() {
    let app = spawn_app().await;
    let (token, game_id, _key) = app.game_with_key().await;
    for metric in [
        "new_users",
        "retention_d1",
        "retention_d30",
        "paying_users",
        "arpdau",
        "arppu",
        "conversion",
        "sessions",
        "session_length",
    ] {
        let (status, body) = app
            .dashboard_call(
                Method::GET,
                &format!("/v1/games/{game_id}/metrics?metric={metric}&bucket=hour"),
                &token,
            )
            .await;
        assert_eq!(status, 400, "{metric}: {body}");
        assert_eq!(
            body["error"],
            format!("{metric} is computed per day; use bucket=day"),
            "{body}"
        );
    }
    let (status, body): (u16, Value) = app
        .dashboard_call(
            Method::GET,
            &format!("/v1/games/{game_id}/metrics?metric=ltv"),
            &token,
        )
        .await;
    assert_eq!(status, 400);
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("new_users, paying_users, arpdau"),
        "{body}"
    );
}

#[tokio::test]
async fn sessions_and_their_length_per_day_follow_late_events_and_session_end() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let today = app.state.now().date_naive();
    // `clock` on the day `days` before today.
    let at = |days: i64, clock: &str| {
        let time = chrono::NaiveTime::parse_from_str(clock, "%H:%M:%S").unwrap();
        (today - Duration::days(days))
            .and_time(time)
            .and_utc()
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    };
    let event = |session: &str, name: &str, days: i64, clock: &str, length: Option<f64>| {
        let mut event = json!({
            "event_name": name, "session_id": session, "client_timestamp": at(days, clock),
        });
        if let Some(length) = length {
            event["properties"] = json!({ "length": length });
        }
        event
    };
    let send = |events: Value| {
        let app = &app;
        let key = &key;
        async move {
            app.game(Method::POST, "/v1/track", key)
                .json(&events)
                .expect_status(202)
                .await;
        }
    };
    // Three days ago: "long" runs 12:00 to 12:20 (its last event comes in a later batch);
    // "ended" has one event and a session_end that says it lasted 300 s.
    // Two days ago: "moved" starts at 00:10, and a late event at 23:50 the day before moves
    // it (and its 20 minutes) to three days ago; "short" lasts 120 s, its session_end's
    // negative length ignored.
    send(json!([
        event("long", "session_start", 3, "12:00:00", None),
        event("long", "level_up", 3, "12:05:00", None),
        event("ended", "session_start", 3, "18:00:00", None),
        event("ended", "session_end", 3, "18:00:00", Some(300.0)),
        event("moved", "session_start", 2, "00:10:00", None),
        event("short", "session_start", 2, "08:00:00", None),
        event("short", "level_up", 2, "08:01:30", None),
    ]))
    .await;
    let (from, to) = (today - Duration::days(3), today - Duration::days(1));
    let series = |metric| daily_values(&app, &token, &game_id, metric, from, to);
    assert_eq!(series("sessions").await, [Some(2.0), Some(2.0), Some(0.0)]);
    // 300 s for "ended", 5 minutes so far for "long"; 0 s so far for "moved" and 90 s for
    // "short"; no session yesterday: undefined, not 0.
    assert_eq!(
        series("session_length").await,
        [Some(300.0), Some(45.0), None]
    );

    send(json!([
        event("long", "level_up", 3, "12:20:00", None),
        event("moved", "session_start", 3, "23:50:00", None),
        event("short", "session_end", 2, "08:02:00", Some(-5.0)),
        // A second, shorter report: the longest counts, whatever order they come in.
        event("ended", "session_end", 3, "18:00:10", Some(200.0)),
    ]))
    .await;
    assert_eq!(series("sessions").await, [Some(3.0), Some(1.0), Some(0.0)]);
    // (1200 + 300 + 1200) / 3 three days ago; "short" ran 08:00 to 08:02.
    assert_eq!(
        series("session_length").await,
        [Some(900.0), Some(120.0), None]
    );

    // The same batch again (a client resending it) changes nothing.
    send(json!([event("long", "level_up", 3, "12:20:00", None)])).await;
    assert_eq!(
        series("session_length").await,
        [Some(900.0), Some(120.0), None]
    );
}

/// The `value`s of a metric's daily points from `from` to `to`, read as the dashboard does.
async fn daily_values(
    app: &crate::helpers::TestApp,
    token: &str,
    game_id: &str,
    metric: &str,
    from: chrono::NaiveDate,
    to: chrono::NaiveDate,
) -> Vec<Option<f64>> {
    let body = app
        .dashboard(
            Method::GET,
            &format!("/v1/games/{game_id}/metrics?metric={metric}&from={from}&to={to}"),
            token,
        )
        .expect_status(200)
        .await;
    body["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|point| point["value"].as_f64())
        .collect()
}
