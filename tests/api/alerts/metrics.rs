//! `GET /v1/games/{id}/metrics`: the series alerts watch, charted over UTC days or hours.
use super::scenario;
use crate::{
    funnels::{ev, seed_events},
    helpers::{spawn_app, Fetch},
};
use chrono::{DateTime, Duration, NaiveDate, Utc};
use reqwest::Method;
use serde_json::{json, Value};

/// The value of each point of a metrics answer, in order.
pub(super) fn point_values(body: &Value) -> Vec<Option<f64>> {
    body["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["value"].as_f64())
        .collect()
}

/// `hour`:30 UTC on the day `days_ago` days before `today`.
pub(super) fn half_past(today: NaiveDate, days_ago: i64, hour: u32) -> DateTime<Utc> {
    (today - Duration::days(days_ago))
        .and_hms_opt(hour, 30, 0)
        .unwrap()
        .and_utc()
}

#[tokio::test]
async fn metrics_chart_each_series_over_utc_days_or_hours() {
    let app = spawn_app().await;
    let (token, game_id, _) = app.game_with_key().await;
    let today = app.state.now().date_naive();
    let at = |days_ago: i64, hour: u32| half_past(today, days_ago, hour);
    seed_events(
        &app,
        &game_id,
        &[
            ev("crash", "a", at(2, 1)),
            ev("crash", "b", at(2, 1)),
            ev("crash", "a", at(1, 5)),
            ev("log", "a", at(1, 5)).props(json!({ "level": "error" })),
            ev("log", "a", at(1, 6)).props(json!({ "level": "warning" })),
            ev("log", "a", at(1, 6)).props(json!({ "level": "debug" })),
            ev("purchase", "a", at(2, 3)).props(json!({ "amount": 4.99 })),
            ev("purchase", "b", at(1, 3)).props(json!({ "amount": 10 })),
            ev("session_start", "c", at(1, 3)).anonymous(),
        ],
    )
    .await;
    let metric = |query: String| {
        let request = app.dashboard(
            Method::GET,
            &format!("/v1/games/{game_id}/metrics?{query}"),
            &token,
        );
        async move { request.fetch().await }
    };
    let (from, to) = (today - Duration::days(2), today);

    let (status, body) = metric(format!("metric=crashes&from={from}&to={to}")).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["bucket"], "day");
    assert_eq!(point_values(&body), vec![Some(2.0), Some(1.0), Some(0.0)]);
    assert_eq!(body["total"], 3.0);
    assert_eq!(body["points"][0]["start"], format!("{from}T00:00:00Z"));

    let (_, body) = metric(format!("metric=events&from={from}&to={to}")).await;
    assert_eq!(
        point_values(&body),
        vec![Some(3.0), Some(6.0), Some(0.0)],
        "every event counts"
    );
    assert_eq!(body["total"], 9.0);
    let (_, body) = metric(format!("metric=log_errors&from={from}&to={to}")).await;
    assert_eq!(point_values(&body), vec![Some(0.0), Some(2.0), Some(0.0)]);
    let (_, body) = metric(format!("metric=revenue&from={from}&to={to}")).await;
    assert_eq!(point_values(&body), vec![Some(4.99), Some(10.0), Some(0.0)]);
    let (_, body) = metric(format!("metric=dau&from={from}&to={to}")).await;
    assert_eq!(body["metric"], "active_users");
    assert_eq!(
        point_values(&body),
        vec![Some(2.0), Some(3.0), Some(0.0)],
        "a, b; a, b and the anonymous session"
    );
    assert!(body.get("total").is_none());

    let day = today - Duration::days(1);
    let (_, body) = metric(format!("metric=crashes&bucket=hour&from={day}&to={day}")).await;
    let hourly = point_values(&body);
    assert_eq!(hourly.len(), 24);
    assert_eq!(hourly[5], Some(1.0));
    assert_eq!(hourly.iter().flatten().sum::<f64>(), 1.0);

    let (_, body) = metric("metric=crashes&environment=production".into()).await;
    assert_eq!(
        body["total"], 0.0,
        "the events came through a development key"
    );
    let (_, body) = metric("metric=crashes".into()).await;
    assert_eq!(
        body["points"].as_array().unwrap().len(),
        30,
        "default: the 30 days up to today"
    );
    assert_eq!(body["total"], 3.0);

    for (query, why) in [
        ("metric=fps".to_string(), "unknown metric"),
        ("".to_string(), "metric missing"),
        ("metric=crashes&bucket=week".to_string(), "unknown bucket"),
        (
            "metric=retention_d7&bucket=hour".to_string(),
            "retention by hour",
        ),
        ("metric=crashes&from=2026-02-31".to_string(), "bad date"),
        (
            format!("metric=crashes&from={to}&to={from}"),
            "from after to",
        ),
        (
            format!(
                "metric=crashes&bucket=hour&from={}&to={to}",
                today - Duration::days(40)
            ),
            "too many hours",
        ),
        (
            "metric=crashes&environment=staging".to_string(),
            "unknown environment",
        ),
    ] {
        let (status, body) = metric(query).await;
        assert_eq!(status, 400, "{why}: {body}");
    }
    let outsider = app.new_user().await;
    app.dashboard(
        Method::GET,
        &format!("/v1/games/{game_id}/metrics?metric=crashes"),
        &outsider,
    )
    .expect_status(403)
    .await;
}

#[tokio::test]
async fn retention_metric_follows_daily_cohorts() {
    let app = spawn_app().await;
    let (token, game_id, _) = app.game_with_key().await;
    let (_, _, events) = scenario("retention_drop", true);
    seed_events(&app, &game_id, &events).await;
    let today = app.state.now().date_naive();
    let (from, to) = (today - Duration::days(11), today - Duration::days(6));
    let body = app
        .dashboard(
            Method::GET,
            &format!("/v1/games/{game_id}/metrics?metric=retention_d7&from={from}&to={to}"),
            &token,
        )
        .expect_status(200)
        .await;
    let points = body["points"].as_array().unwrap();
    let values: Vec<Option<f64>> = points.iter().map(|p| p["value"].as_f64()).collect();
    assert_eq!(
        values,
        vec![Some(50.0), Some(50.0), Some(50.0), Some(25.0), None, None],
        "the last two cohorts are empty"
    );
    assert_eq!(points[0]["cohort_size"], 4);
    assert_eq!(points[4]["cohort_size"], 0);
}
