//! What the dashboard reads of the stored events: `GET /v1/games/{id}/events` (recent events,
//! newest first, by cursor) and `GET /v1/games/{id}/events/counts` (events per name over days).
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

#[tokio::test]
async fn recent_events_come_newest_first_in_pages_without_repeats() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    // 20 events at distinct times, sent out of order in two batches, and 5 more sharing one
    // receive time: pages must cut through a tie as well.
    let minutes: Vec<i64> = (1..=20).map(|i| (i * 7) % 20 + 1).collect();
    for half in minutes.chunks(10) {
        let batch: Vec<Value> = half
            .iter()
            .map(|m| json!({ "event_name": "level_start", "session_id": "s", "player_id": format!("p{m}"), "client_timestamp": ago(&app, *m), "event_id": format!("m{m}") }))
            .collect();
        let (status, body) = track(&app, &key, Value::Array(batch)).await;
        assert_eq!(status, 202, "{body}");
    }
    let tied: Vec<Value> = (0..5)
        .map(|i| json!({ "event_name": "tick", "session_id": "s", "properties": { "i": i } }))
        .collect();
    assert_eq!(track(&app, &key, Value::Array(tied)).await.0, 202);

    let pages = all_pages(&app, &token, &game_id, "", 4).await;
    assert_eq!(
        pages.iter().map(Vec::len).collect::<Vec<_>>(),
        [4, 4, 4, 4, 4, 4, 1],
        "25 events in pages of 4"
    );
    let events: Vec<Value> = pages.concat();
    let ids: HashSet<&str> = field(&events, "id").into_iter().collect();
    assert_eq!(ids.len(), 25, "no event twice");
    let stored_ids: Vec<String> = stored(&app, &game_id)
        .await
        .iter()
        .map(|row| row.id.to_string())
        .collect();
    let stored_ids: HashSet<&str> = stored_ids.iter().map(String::as_str).collect();
    assert_eq!(ids, stored_ids, "every stored event once");
    let occurred = times(&events);
    assert!(
        occurred.windows(2).all(|pair| pair[0] >= pair[1]),
        "newest first: {occurred:?}"
    );
    assert_eq!(
        field(&events, "event_name")[..5],
        ["tick"; 5],
        "the events without a client time happened now"
    );
    let expected: Vec<String> = (1..=20).map(|m| format!("m{m}")).collect();
    assert_eq!(
        field(&events[5..], "event_id"),
        expected.iter().map(String::as_str).collect::<Vec<_>>(),
        "then by client time, a minute older each"
    );

    let (status, one_page) = recent(&app, &token, &game_id, "?limit=200").await;
    assert_eq!(status, 200);
    assert_eq!(
        one_page["events"].as_array().unwrap(),
        &events,
        "the pages join into the one-page answer"
    );
    assert_eq!(one_page["next_before"], Value::Null);
    let (_, default_page) = recent(&app, &token, &game_id, "").await;
    assert_eq!(
        default_page["events"].as_array().unwrap().len(),
        25,
        "up to 50 by default"
    );
}

#[tokio::test]
async fn a_stored_event_is_shown_with_what_the_client_sent() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let (status, body) = track(
        &app,
        &key,
        json!({
            "event_name": "level_complete",
            "session_id": "sess-42",
            "player_id": "player-7",
            "properties": { "level": 3, "time": 61.5, "tags": ["a"] },
            "client_timestamp": "2026-01-02T03:04:05Z",
            "event_id": "evt-1"
        }),
    )
    .await;
    assert_eq!(status, 202, "{body}");
    track(
        &app,
        &key,
        json!({ "event_name": "anonymous", "session_id": "s-9" }),
    )
    .await;

    let (status, page) = recent(&app, &token, &game_id, "").await;
    assert_eq!(status, 200, "{page}");
    let row = stored(&app, &game_id)
        .await
        .into_iter()
        .find(|r| r.event_name == "level_complete")
        .unwrap();
    assert_eq!(
        page["events"][1],
        json!({
            "id": row.id.to_string(),
            "event_id": "evt-1",
            "event_name": "level_complete",
            "player_id": "player-7",
            "session_id": "sess-42",
            "environment": "development",
            "properties": { "level": 3, "time": 61.5, "tags": ["a"] },
            "occurred_at": "2026-01-02T03:04:05Z",
            "received_at": playtrace::http::timestamp(row.received_at),
        })
    );
    let anonymous = &page["events"][0];
    assert_eq!(anonymous["event_name"], "anonymous");
    assert_eq!(anonymous["player_id"], Value::Null);
    assert_eq!(anonymous["event_id"], Value::Null);
    assert_eq!(anonymous["properties"], json!({}));
    assert_eq!(anonymous["occurred_at"], anonymous["received_at"]);
}

/// An event the filter test sent, with what the filters look at.
struct Sent {
    event_id: String,
    name: &'static str,
    player: &'static str,
    production: bool,
}

#[tokio::test]
async fn recent_events_filter_by_name_player_and_environment() {
    let app = spawn_app().await;
    let (token, game_id, development) = app.game_with_key().await;
    let production = app.create_key(&token, &game_id, "production").await;
    let mut sent = Vec::new();
    for i in 0..12 {
        let name = ["purchase", "level_start", "crash"][i % 3];
        let player = ["ana", "bob"][i % 2];
        let in_production = matches!(i, 0 | 3 | 5 | 10);
        let key = if in_production {
            &production
        } else {
            &development
        };
        let (status, body) = track(
            &app,
            key,
            json!({ "event_name": name, "session_id": "s", "player_id": player, "client_timestamp": ago(&app, 60 - i as i64), "event_id": format!("e{i}") }),
        )
        .await;
        assert_eq!(status, 202, "{body}");
        sent.push(Sent {
            event_id: format!("e{i}"),
            name,
            player,
            production: in_production,
        });
    }
    let expect = |keep: &dyn Fn(&Sent) -> bool| -> Vec<String> {
        sent.iter()
            .rev()
            .filter(|e| keep(e))
            .map(|e| e.event_id.clone())
            .collect()
    };

    let cases: Vec<(&str, Vec<String>)> = vec![
        ("&event_name=purchase", expect(&|e| e.name == "purchase")),
        ("&player_id=ana", expect(&|e| e.player == "ana")),
        ("&environment=production", expect(&|e| e.production)),
        ("&environment=development", expect(&|e| !e.production)),
        (
            "&event_name=level_start&player_id=bob",
            expect(&|e| e.name == "level_start" && e.player == "bob"),
        ),
        (
            "&player_id=ana&environment=production",
            expect(&|e| e.player == "ana" && e.production),
        ),
        ("&event_name=nothing_like_it", vec![]),
        ("&player_id=carol", vec![]),
    ];
    for (query, expected) in cases {
        let pages = all_pages(&app, &token, &game_id, query, 2).await;
        let events = pages.concat();
        assert_eq!(
            field(&events, "event_id"),
            expected.iter().map(String::as_str).collect::<Vec<_>>(),
            "{query}, in pages of 2"
        );
    }
    let (_, page) = recent(&app, &token, &game_id, "?environment=production&limit=1").await;
    assert_eq!(page["events"][0]["environment"], "production");
}

#[tokio::test]
async fn events_stored_between_pages_neither_repeat_nor_shift_them() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    for m in 1..=6 {
        track(&app, &key, json!({ "event_name": "a", "session_id": "s", "client_timestamp": ago(&app, m), "event_id": format!("m{m}") })).await;
    }
    let (_, first) = recent(&app, &token, &game_id, "?limit=3").await;
    assert_eq!(
        field(first["events"].as_array().unwrap(), "event_id"),
        ["m1", "m2", "m3"]
    );

    // a newer event and one from between the pages arrive meanwhile
    track(&app, &key, json!([
        { "event_name": "a", "session_id": "s", "event_id": "new" },
        { "event_name": "a", "session_id": "s", "client_timestamp": ago(&app, 30), "event_id": "old" },
    ]))
    .await;
    let before = first["next_before"].as_str().unwrap();
    let (status, second) =
        recent(&app, &token, &game_id, &format!("?limit=3&before={before}")).await;
    assert_eq!(status, 200, "{second}");
    assert_eq!(
        field(second["events"].as_array().unwrap(), "event_id"),
        ["m4", "m5", "m6"],
        "the page goes on where the first one ended"
    );
    let before = second["next_before"].as_str().unwrap();
    let (_, third) = recent(&app, &token, &game_id, &format!("?limit=3&before={before}")).await;
    assert_eq!(
        field(third["events"].as_array().unwrap(), "event_id"),
        ["old"]
    );
    assert_eq!(third["next_before"], Value::Null);
}

#[tokio::test]
async fn recent_events_refuse_bad_queries_and_other_tenants() {
    let app = spawn_app().await;
    let _admin = app.new_user().await;
    let (token, game_id, key) = app.game_with_key().await;
    for m in 1..=3 {
        track(
            &app,
            &key,
            json!({ "event_name": "a", "session_id": "s", "client_timestamp": ago(&app, m) }),
        )
        .await;
    }
    let (_, page) = recent(&app, &token, &game_id, "?limit=1").await;
    let cursor = page["next_before"].as_str().unwrap().to_string();
    let (status, _) = recent(&app, &token, &game_id, &format!("?before={cursor}")).await;
    assert_eq!(status, 200, "a cursor works");

    let cases: Vec<(String, &str, &str)> = vec![
        (
            "?limit=0".into(),
            "limit must be an integer from 1 to 200",
            "limit 0",
        ),
        (
            "?limit=201".into(),
            "limit must be an integer from 1 to 200",
            "limit 201",
        ),
        (
            "?limit=-5".into(),
            "limit must be an integer from 1 to 200",
            "negative limit",
        ),
        ("?limit=ten".into(), "", "limit not a number"),
        (
            "?before=nonsense".into(),
            "before must be the next_before of a previous page",
            "not hex",
        ),
        (
            format!("?before={}", &cursor[..20]),
            "before must be the next_before",
            "cut short",
        ),
        (
            format!("?before={cursor}ab"),
            "before must be the next_before",
            "too long",
        ),
        (
            "?before=".into(),
            "before must be the next_before",
            "empty cursor",
        ),
        (
            "?environment=staging".into(),
            "environment must be development or production",
            "unknown environment",
        ),
        (
            format!("?event_name={}", "n".repeat(129)),
            "event_name must be 1 to 128 characters",
            "long event name",
        ),
        (
            "?event_name=".into(),
            "event_name must be 1 to 128 characters",
            "empty event name",
        ),
        (
            "?player_id=".into(),
            "player_id must be 1 to 128 characters",
            "empty player id",
        ),
        ("?player_id=a%00b".into(), "NUL", "NUL in the player id"),
    ];
    for (query, expected, case) in cases {
        let (status, body) = recent(&app, &token, &game_id, &query).await;
        assert_eq!(status, 400, "{case}: {body}");
        let error = body["error"].as_str().unwrap_or_default();
        assert!(
            error.contains(expected),
            "{case}: {expected:?} in {error:?}"
        );
    }

    let (viewer, _) = app.new_member(&token, &game_id, "viewer").await;
    let (status, page) = recent(&app, &viewer, &game_id, "").await;
    assert_eq!(status, 200, "any member reads them: {page}");
    assert_eq!(page["events"].as_array().unwrap().len(), 3);

    let (other, other_game, _) = app.game_with_key().await;
    for (bearer, game, case) in [
        (&other, &game_id, "another tenant's game"),
        (&token, &other_game, "the other way round"),
        (&other, &Uuid::new_v4().to_string(), "an unknown game"),
    ] {
        for path in ["events", "events/counts", "usage"] {
            let (status, body) = app
                .dashboard_call(Method::GET, &format!("/v1/games/{game}/{path}"), bearer)
                .await;
            assert_eq!(status, 403, "{path}, {case}: {body}");
            assert_eq!(
                body["error"], "You do not have access to this game",
                "{path}, {case}"
            );
        }
    }
    app.request(Method::GET, &format!("/v1/games/{game_id}/events"))
        .expect_status(401)
        .await;
    let body = app
        .dashboard(Method::GET, "/v1/games/not-a-uuid/events", &token)
        .expect_status(400)
        .await;
    assert!(body["error"].is_string());
}

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
