//! `GET /v1/games/{id}/metrics?metric=events&event_name=…`: any custom event counted per day
//! or hour (and its distinct players with `active_users`).
use super::metrics::{half_past, point_values};
use crate::{
    funnels::{ev, seed_events},
    helpers::{spawn_app, Fetch},
};
use chrono::Duration;
use reqwest::Method;

#[tokio::test]
async fn a_custom_event_is_counted_per_day_and_per_hour() {
    let app = spawn_app().await;
    let (token, game_id, _) = app.game_with_key().await;
    let today = app.state.now().date_naive();
    let at = |days_ago: i64, hour: u32| half_past(today, days_ago, hour);
    seed_events(
        &app,
        &game_id,
        &[
            ev("level_complete", "a", at(2, 1)),
            ev("level_complete", "a", at(2, 1)),
            ev("level_complete", "b", at(2, 4)),
            ev("level_complete", "a", at(0, 0)),
            ev("level_start", "a", at(1, 1)),
            ev("level_start", "c", at(2, 1)),
        ],
    )
    .await;
    let (from, to) = (today - Duration::days(2), today);
    let metric = |query: String| {
        let request = app.dashboard(
            Method::GET,
            &format!("/v1/games/{game_id}/metrics?from={from}&to={to}&{query}"),
            &token,
        );
        async move { request.fetch().await }
    };

    let (status, body) = metric("metric=events&event_name=level_complete".into()).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["event_name"], "level_complete");
    assert_eq!(point_values(&body), [Some(3.0), Some(0.0), Some(1.0)]);
    assert_eq!(body["total"], 4.0);

    let (_, players) = metric("metric=active_users&event_name=level_complete".into()).await;
    assert_eq!(point_values(&players), [Some(2.0), Some(0.0), Some(1.0)]);

    let (_, hourly) = metric("metric=events&event_name=level_complete&bucket=hour".into()).await;
    let hours = point_values(&hourly);
    assert_eq!(hours.len(), 72);
    assert_eq!(
        (hours[1], hours[4], hours[48]),
        (Some(2.0), Some(1.0), Some(1.0))
    );

    let (_, every) = metric("metric=events".into()).await;
    assert_eq!(every["total"], 6.0, "without event_name: every event");
    assert!(every.get("event_name").is_none());
}

#[tokio::test]
async fn event_name_with_another_metric_or_empty_is_refused() {
    let app = spawn_app().await;
    let (token, game_id, _) = app.game_with_key().await;

    for (query, message) in [
        (
            "metric=crashes&event_name=x",
            "event_name applies to metric=events and metric=active_users only",
        ),
        (
            "metric=revenue&event_name=x",
            "event_name applies to metric=events and metric=active_users only",
        ),
        (
            "metric=events&event_name=",
            "event_name must be 1 to 128 characters",
        ),
    ] {
        let (status, body) = app
            .dashboard_call(
                Method::GET,
                &format!("/v1/games/{game_id}/metrics?{query}"),
                &token,
            )
            .await;
        assert_eq!(status, 400, "{query}: {body}");
        assert_eq!(body["error"], message, "{query}");
    }
}
