//! `GET /v1/games/{id}/events/counts`: events per name over UTC days, as the metrics count them.
use super::*;

/// `GET /v1/games/{game_id}/events/counts{query}`.
async fn counts(app: &TestApp, token: &str, game_id: &str, query: &str) -> (u16, Value) {
    app.dashboard(
        Method::GET,
        &format!("/v1/games/{game_id}/events/counts{query}"),
        token,
    )
    .fetch()
    .await
}

#[tokio::test]
async fn counts_by_name_cover_utc_days_like_the_metrics() {
    let app = spawn_app().await;
    let (token, game_id, development) = app.game_with_key().await;
    let production = app.create_key(&token, &game_id, "production").await;
    let today = app.state.now().date_naive();
    let at = |days_ago: i64| {
        (today - Duration::days(days_ago))
            .and_hms_opt(12, 0, 0)
            .unwrap()
            .and_utc()
            .to_rfc3339()
    };
    let send = |key: &str, name: &str, days_ago: i64, n: usize| {
        let events: Vec<Value> = (0..n)
            .map(|_| json!({ "event_name": name, "session_id": "s", "client_timestamp": at(days_ago) }))
            .collect();
        let request = app.game(Method::POST, "/v1/track", key).json(&events);
        async move {
            let (status, body) = request.fetch().await;
            assert_eq!(status, 202, "{body}");
        }
    };
    send(&development, "level_start", 0, 4).await;
    send(&development, "level_start", 3, 2).await;
    send(&production, "purchase", 1, 3).await;
    send(&development, "crash", 2, 3).await;
    send(&development, "achievement", 5, 1).await;
    send(&development, "ancient", 40, 7).await;

    let (status, body) = counts(&app, &token, &game_id, "").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body,
        json!({
            "from": (today - Duration::days(29)).to_string(),
            "to": today.to_string(),
            "environment": null,
            "total": 13,
            "counts": [
                { "event_name": "level_start", "count": 6 },
                { "event_name": "crash", "count": 3 },
                { "event_name": "purchase", "count": 3 },
                { "event_name": "achievement", "count": 1 },
            ],
        }),
        "the 30 days up to today; the most frequent first, then by name"
    );

    let (from, to) = (today - Duration::days(3), today - Duration::days(1));
    let (_, body) = counts(&app, &token, &game_id, &format!("?from={from}&to={to}")).await;
    assert_eq!(body["total"], 8);
    assert_eq!(
        body["counts"],
        json!([
            { "event_name": "crash", "count": 3 },
            { "event_name": "purchase", "count": 3 },
            { "event_name": "level_start", "count": 2 },
        ]),
        "both days included"
    );
    let (_, body) = counts(&app, &token, &game_id, "?environment=production").await;
    assert_eq!(body["environment"], "production");
    assert_eq!(body["total"], 3);
    assert_eq!(
        body["counts"],
        json!([{ "event_name": "purchase", "count": 3 }])
    );
    let old = today - Duration::days(40);
    let (_, body) = counts(&app, &token, &game_id, &format!("?from={old}&to={old}")).await;
    assert_eq!(
        body["counts"],
        json!([{ "event_name": "ancient", "count": 7 }])
    );
    let (_, body) = counts(
        &app,
        &token,
        &game_id,
        &format!("?to={}", today - Duration::days(60)),
    )
    .await;
    assert_eq!((&body["total"], &body["counts"]), (&json!(0), &json!([])));

    // the same refusals as GET /v1/games/{id}/metrics
    for (query, why) in [
        ("?from=2026-02-31".to_string(), "bad date"),
        ("?to=yesterday".to_string(), "bad date"),
        (format!("?from={to}&to={from}"), "from after to"),
        (
            format!("?from={}&to={today}", today - Duration::days(366)),
            "367 days",
        ),
        ("?environment=staging".to_string(), "unknown environment"),
    ] {
        let (status, body) = counts(&app, &token, &game_id, &query).await;
        assert_eq!(status, 400, "{why}: {body}");
        let (metric_status, metric_body) = app
            .dashboard_call(
                Method::GET,
                &format!("/v1/games/{game_id}/metrics?metric=crashes&{}", &query[1..]),
                &token,
            )
            .await;
        assert_eq!(
            (metric_status, &metric_body["error"]),
            (400, &body["error"]),
            "{why}"
        );
    }
    let (status, _) = counts(
        &app,
        &token,
        &game_id,
        &format!("?from={}&to={today}", today - Duration::days(365)),
    )
    .await;
    assert_eq!(status, 200, "366 days are allowed");
}
