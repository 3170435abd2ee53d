//! What the dashboard reads of the stored events: `GET /v1/games/{id}/events` (recent events,
//! newest first, by cursor) and `GET /v1/games/{id}/events/counts` (events per name over days).
mod counts;
mod pages;
mod queries;

use super::{stored, track};
use crate::helpers::{spawn_app, Fetch, TestApp};
use chrono::{DateTime, Duration, Utc};
use reqwest::Method;
use serde_json::{json, Value};
use std::collections::HashSet;
use uuid::Uuid;

/// `GET /v1/games/{game_id}/events{query}` as the dashboard sends it.
async fn recent(app: &TestApp, token: &str, game_id: &str, query: &str) -> (u16, Value) {
    app.dashboard(
        Method::GET,
        &format!("/v1/games/{game_id}/events{query}"),
        token,
    )
    .fetch()
    .await
}

/// Every page of `query` (which must not end in `?`), following `next_before`: the pages' events.
async fn all_pages(
    app: &TestApp,
    token: &str,
    game_id: &str,
    query: &str,
    limit: usize,
) -> Vec<Vec<Value>> {
    let mut pages = Vec::new();
    let mut before: Option<String> = None;
    loop {
        let cursor = before
            .as_ref()
            .map(|b| format!("&before={b}"))
            .unwrap_or_default();
        let (status, page) = recent(
            app,
            token,
            game_id,
            &format!("?limit={limit}{query}{cursor}"),
        )
        .await;
        assert_eq!(status, 200, "{page}");
        let events = page["events"].as_array().unwrap().clone();
        assert!(events.len() <= limit, "{page}");
        pages.push(events);
        match &page["next_before"] {
            Value::Null => return pages,
            Value::String(next) => before = Some(next.clone()),
            other => panic!("next_before is a string or null: {other}"),
        }
        assert!(pages.len() < 100, "paging ends");
    }
}

fn times(events: &[Value]) -> Vec<DateTime<Utc>> {
    events
        .iter()
        .map(|e| e["occurred_at"].as_str().unwrap().parse().unwrap())
        .collect()
}

fn field<'a>(events: &'a [Value], name: &str) -> Vec<&'a str> {
    events
        .iter()
        .map(|e| e[name].as_str().unwrap_or("<null>"))
        .collect()
}

/// A whole second a few minutes to days ago, so that every backend stores it exactly.
fn ago(app: &TestApp, minutes: i64) -> String {
    let at = app.state.now() - Duration::minutes(minutes);
    (at - Duration::nanoseconds(at.timestamp_subsec_nanos() as i64))
        .format("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}
