//! Funnel reports: loose and strict counts, the conversion window, the requested UTC days,
//! and tracked events end to end.
use super::*;

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
