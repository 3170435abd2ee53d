//! The aggregates kept at ingest answer exactly what the raw events say: every metric, event
//! counts and every alert kind, compared with the raw-SQL reference (`analytics/reference.rs`,
//! the queries these reads ran before) over the same generated events: two games, both
//! environments, players first seen on different days, anonymous sessions, late events that
//! move a player's first day earlier, retried events, events around midnight UTC and the
//! month's end, sent concurrently (to both nodes in the two-node pass).
mod alert_kinds;
mod bounds;
mod fold;
mod lifecycle;
mod reference;

use crate::helpers::{retried, services_backend, spawn_app, Fetch, TestApp};
use chrono::{DateTime, Datelike, Duration, DurationRound, NaiveDate, Utc};
use playtrace::analytics::{Buckets, Metric, Point, Scope};
use reqwest::Method;
use sea_orm::{ConnectionTrait, Statement};
use serde_json::{json, Value};
use uuid::Uuid;

/// A small deterministic generator (xorshift), so a failure can be replayed.
struct Dice(u64);

impl Dice {
    fn roll(&mut self, sides: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % sides
    }
}

struct Sent {
    environment: &'static str,
    body: Value,
}

fn event(
    environment: &'static str,
    name: &str,
    player: Option<&str>,
    at: DateTime<Utc>,
    properties: Value,
) -> Sent {
    let mut body = json!({
        "event_name": name,
        "session_id": format!("s-{}-{}", player.unwrap_or("anon"), at.date_naive()),
        "properties": properties,
        "client_timestamp": at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
    });
    if let Some(player) = player {
        body["player_id"] = json!(player);
    }
    Sent { environment, body }
}

/// A random event of a player at `at`: any of the names the metrics read, or a custom one.
fn some_event(
    dice: &mut Dice,
    environment: &'static str,
    player: Option<&str>,
    at: DateTime<Utc>,
) -> Sent {
    let (name, properties) = match dice.roll(8) {
        0 => ("crash", json!({})),
        1 => {
            let level = ["error", "warning", "debug"][dice.roll(3) as usize];
            ("log", json!({ "level": level }))
        }
        2 => {
            let amount = [0.99, 4.99, 19.99][dice.roll(3) as usize];
            ("purchase", json!({ "amount": amount }))
        }
        3 => ("purchase", json!({ "amount": "free" })),
        4 => ("level_up", json!({ "level": dice.roll(50) })),
        5 if dice.roll(3) == 0 => {
            // Some out of range (ignored), some over several batches (the longest counts).
            let length = [-5.0, 90.5, 1_800.0, 1e9][dice.roll(4) as usize];
            ("session_end", json!({ "length": length }))
        }
        _ => ("session_start", json!({})),
    };
    event(environment, name, player, at, properties)
}

/// Events of one game up to `now`: players over the last 35 days (some in both
/// environments), anonymous sessions, midnight and month-end edges, and recent activity.
fn generate(dice: &mut Dice, now: DateTime<Utc>) -> (Vec<Sent>, Vec<Sent>) {
    let today = now.date_naive();
    let mut first = Vec::new();
    let mut late = Vec::new();
    let at = |day: NaiveDate, seconds: u64| {
        day.and_hms_opt(0, 0, 0).unwrap().and_utc() + Duration::seconds(seconds as i64)
    };
    for player in 0..14 {
        let name = format!("player-{player}");
        let environment = if player % 3 == 0 {
            "production"
        } else {
            "development"
        };
        let first_day = today - Duration::days(5 + dice.roll(30) as i64);
        let mut day = first_day;
        while day < today {
            for _ in 0..1 + dice.roll(4) {
                let when = at(day, dice.roll(86_400));
                first.push(some_event(dice, environment, Some(&name), when));
                if player % 5 == 0 {
                    first.push(some_event(dice, "production", Some(&name), when));
                }
            }
            day += Duration::days(1 + dice.roll(4) as i64);
        }
        // Sent afterwards, days before the player was first seen: the cohort moves.
        if player % 4 == 1 {
            let earlier = first_day - Duration::days(1 + dice.roll(9) as i64);
            let when = at(earlier, dice.roll(86_400));
            late.push(some_event(dice, environment, Some(&name), when));
        }
    }
    for session in 0..4 {
        let day = today - Duration::days(dice.roll(20) as i64 + 1);
        let anonymous = event(
            "development",
            "session_start",
            None,
            at(day, dice.roll(86_400)),
            json!({}),
        );
        let mut anonymous = anonymous;
        anonymous.body["session_id"] = json!(format!("anon-{session}"));
        first.push(anonymous);
    }
    // Midnight: the last and the first second of a UTC day; the month's end likewise.
    let month_start = NaiveDate::from_ymd_opt(today.year(), today.month(), 1).unwrap();
    for day in [today - Duration::days(3), month_start] {
        let midnight = at(day, 0);
        if midnight <= now {
            first.push(event(
                "development",
                "crash",
                Some("player-1"),
                midnight - Duration::milliseconds(1),
                json!({}),
            ));
            first.push(event(
                "development",
                "crash",
                Some("player-2"),
                midnight,
                json!({}),
            ));
            first.push(event(
                "production",
                "purchase",
                Some("player-3"),
                midnight - Duration::seconds(1),
                json!({ "amount": 2.5 }),
            ));
        }
    }
    // Recent activity, in the partial hours an alert's window starts and ends in.
    for minutes in [3, 20, 59, 61, 95, 150, 24 * 60 + 10, 25 * 60 + 30, 47 * 60] {
        let when = now - Duration::minutes(minutes) - Duration::seconds(17);
        let player = format!("player-{}", dice.roll(14));
        first.push(some_event(dice, "development", Some(&player), when));
        first.push(event(
            "development",
            "crash",
            Some(&player),
            when,
            json!({}),
        ));
    }
    // Around the edges of the alerts' day windows (now minus whole days), in the minute they
    // split: the evaluation runs a few seconds after `now`, so some land on each side.
    for days in [1, 2, 3, 4] {
        for seconds in [-20, -1, 2, 5, 9, 30, 75] {
            let when = now - Duration::days(days) + Duration::seconds(seconds);
            let player = format!("edge-{}", dice.roll(6));
            first.push(some_event(dice, "development", Some(&player), when));
        }
    }
    (first, late)
}

/// Sends `events` in batches of up to 100, all at once, with the environment's key. A batch
/// answered 503 (nothing stored: a loaded machine can answer part of a burst so) is sent again,
/// as a client does (`retried`); the tests' exact totals then also hold that it stored nothing.
async fn send(app: &TestApp, keys: &[(&str, String)], events: Vec<Sent>) {
    send_in(app, keys, events, 37).await;
}

/// `send` with `per_request` events in each request.
async fn send_in(app: &TestApp, keys: &[(&str, String)], events: Vec<Sent>, per_request: usize) {
    let mut requests = Vec::new();
    for environment in ["development", "production"] {
        let key = &keys.iter().find(|(e, _)| *e == environment).unwrap().1;
        let bodies: Vec<Value> = events
            .iter()
            .filter(|e| e.environment == environment)
            .map(|e| e.body.clone())
            .collect();
        for batch in bodies.chunks(per_request) {
            let body = json!(batch);
            requests.push(async move {
                let (status, answer) =
                    retried(|| app.game(Method::POST, "/v1/track", key).json(&body).fetch()).await;
                assert_eq!(status, 202, "POST /v1/track: {answer}");
            });
        }
    }
    futures_util::future::join_all(requests).await;
}

/// A game with a key per environment.
async fn game_with_keys(app: &TestApp, token: &str) -> (Uuid, [(&'static str, String); 2]) {
    let game_id = app.create_game(token).await;
    let keys = [
        (
            "development",
            app.create_key(token, &game_id, "development").await,
        ),
        (
            "production",
            app.create_key(token, &game_id, "production").await,
        ),
    ];
    (game_id.parse().unwrap(), keys)
}

/// A game with a key per environment and its events sent (some twice, with an `event_id`).
async fn game_with_events(app: &TestApp, token: &str, dice: &mut Dice) -> Uuid {
    let (game_id, keys) = game_with_keys(app, token).await;
    let now = app.state.now();
    let (mut first, late) = generate(dice, now);
    // Retried events: the same event_id again, counted once.
    for (index, sent) in first.iter_mut().enumerate().filter(|(i, _)| i % 7 == 0) {
        sent.body["event_id"] = json!(format!("retry-{index}"));
    }
    let retried: Vec<Sent> = first
        .iter()
        .filter(|sent| sent.body.get("event_id").is_some())
        .map(|sent| Sent {
            environment: sent.environment,
            body: sent.body.clone(),
        })
        .collect();
    send(app, &keys, first).await;
    send(app, &keys, late).await;
    send(app, &keys, retried).await;
    game_id
}

fn same(a: Option<f64>, b: Option<f64>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => (a - b).abs() < 1e-6,
        (a, b) => a == b,
    }
}

async fn compare_metric(
    app: &TestApp,
    token: &str,
    game_id: Uuid,
    query: &str,
    scope: &Scope,
    metric: Metric,
    buckets: Buckets,
) {
    let body = app
        .dashboard(
            Method::GET,
            &format!("/v1/games/{game_id}/metrics?{query}"),
            token,
        )
        .expect_status(200)
        .await;
    let expected = reference::series(&app.state.db, scope, metric, buckets, app.state.now())
        .await
        .unwrap();
    let points = body["points"].as_array().unwrap();
    assert_eq!(points.len(), expected.len(), "{query}");
    for (index, (point, want)) in points.iter().zip(&expected).enumerate() {
        assert!(
            same(point["value"].as_f64(), want.value),
            "{query}: bucket {index} ({}) is {} where the events say {:?}",
            point["start"],
            point["value"],
            want.value
        );
        if metric.return_day().is_some() {
            assert_eq!(
                point["cohort_size"].as_u64(),
                want.cohort_size,
                "{query}: bucket {index}"
            );
        }
    }
}

const ALL_METRICS: [Metric; 15] = [
    Metric::Events,
    Metric::Crashes,
    Metric::LogErrors,
    Metric::Revenue,
    Metric::ActiveUsers,
    Metric::RetentionD7,
    Metric::RetentionD1,
    Metric::RetentionD30,
    Metric::NewUsers,
    Metric::PayingUsers,
    Metric::Arpdau,
    Metric::Arppu,
    Metric::Conversion,
    Metric::Sessions,
    Metric::SessionLength,
];

/// Asserts that `metrics` of the game (by day over 45 days, by hour over the last 9 days and
/// around the month's start; with each environment and both), events and active users of
/// one name, and event counts all equal what the raw events say.
async fn assert_reads_match_the_events(
    app: &TestApp,
    token: &str,
    game_id: Uuid,
    metrics: &[Metric],
) {
    let today = app.state.now().date_naive();
    let month_start = NaiveDate::from_ymd_opt(today.year(), today.month(), 1).unwrap();
    let day_range = (today - Duration::days(45), today);
    let hour_ranges = [
        (today - Duration::days(9), today),
        (
            month_start - Duration::days(1),
            month_start + Duration::days(1),
        ),
    ];
    let buckets = |(from, to): (NaiveDate, NaiveDate), seconds: i64| Buckets {
        start: playtrace::query::midnight(from),
        seconds,
        count: (((to - from).num_days() + 1) * 86_400 / seconds) as usize,
    };
    for environment in [None, Some("development"), Some("production")] {
        let scope = Scope {
            game_id,
            environment: environment.map(str::to_string),
            event_name: None,
        };
        let env_query = environment
            .map(|e| format!("&environment={e}"))
            .unwrap_or_default();
        for &metric in metrics {
            let (from, to) = day_range;
            let query = format!("metric={}&from={from}&to={to}{env_query}", metric.as_str());
            compare_metric(
                app,
                token,
                game_id,
                &query,
                &scope,
                metric,
                buckets(day_range, 86_400),
            )
            .await;
            if metric.daily_only() {
                continue;
            }
            for (from, to) in hour_ranges {
                let query = format!(
                    "metric={}&from={from}&to={to}&bucket=hour{env_query}",
                    metric.as_str()
                );
                compare_metric(
                    app,
                    token,
                    game_id,
                    &query,
                    &scope,
                    metric,
                    buckets((from, to), 3_600),
                )
                .await;
            }
        }
        // One event name: events and active users of `crash` only.
        for metric in [Metric::Events, Metric::ActiveUsers] {
            let (from, to) = day_range;
            let query = format!(
                "metric={}&from={from}&to={to}&event_name=crash{env_query}",
                metric.as_str()
            );
            let scope = Scope {
                event_name: Some("crash".into()),
                ..scope.clone()
            };
            compare_metric(
                app,
                token,
                game_id,
                &query,
                &scope,
                metric,
                buckets(day_range, 86_400),
            )
            .await;
        }
        // Event counts per name.
        let (from, to) = day_range;
        let body = app
            .dashboard(
                Method::GET,
                &format!("/v1/games/{game_id}/events/counts?from={from}&to={to}{env_query}"),
                token,
            )
            .expect_status(200)
            .await;
        let expected = reference::counts(
            &app.state.db,
            game_id,
            environment,
            playtrace::query::midnight(from),
            playtrace::query::midnight(to) + Duration::days(1),
        )
        .await
        .unwrap();
        let got: Vec<(String, i64)> = body["counts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["event_name"].as_str().unwrap().to_string(),
                    c["count"].as_i64().unwrap(),
                )
            })
            .collect();
        assert_eq!(got, expected, "event counts of {environment:?}");
        assert_eq!(
            body["total"].as_i64().unwrap(),
            expected.iter().map(|(_, c)| c).sum::<i64>()
        );
    }
}

#[tokio::test]
async fn every_metric_read_from_the_aggregates_equals_the_raw_events() {
    let app = spawn_app().await;
    let token = app.new_user().await;
    let mut dice = Dice(0x5eed_cafe);
    let games = [
        game_with_events(&app, &token, &mut dice).await,
        game_with_events(&app, &token, &mut dice).await,
    ];
    for game_id in games {
        assert_reads_match_the_events(&app, &token, game_id, &ALL_METRICS).await;
    }
}
