//! `GET /metrics`: the operator's Prometheus scrape. The recorder is process-wide and every test
//! of this binary shares it, so the tests compare a scrape before and after their own traffic
//! and require the counters to have moved by at least what that traffic adds.
use crate::helpers::{spawn_app, spawn_app_with, Fetch, TestApp};
use reqwest::Method;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// One scrape: every sample by its name and sorted labels.
struct Scrape(BTreeMap<String, f64>);

impl Scrape {
    async fn take(app: &TestApp) -> Self {
        let response = app.request(Method::GET, "/metrics").send().await.unwrap();
        assert_eq!(response.status(), 200);
        let content_type = response.headers()["content-type"]
            .to_str()
            .unwrap()
            .to_owned();
        assert!(content_type.starts_with("text/plain"), "{content_type}");
        Self::parse(&response.text().await.unwrap())
    }

    /// Reads the Prometheus text format strictly: every line that is not a comment or blank
    /// must be `name value` or `name{label="value",...} value`.
    fn parse(text: &str) -> Self {
        let mut samples = BTreeMap::new();
        for line in text.lines() {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (series, value) = line
                .rsplit_once(' ')
                .unwrap_or_else(|| panic!("no value in {line:?}"));
            let value: f64 = match value {
                "+Inf" => f64::INFINITY,
                "-Inf" => f64::NEG_INFINITY,
                other => other
                    .parse()
                    .unwrap_or_else(|_| panic!("not a number in {line:?}")),
            };
            let (name, labels) = match series.split_once('{') {
                Some((name, rest)) => {
                    let inner = rest
                        .strip_suffix('}')
                        .unwrap_or_else(|| panic!("unclosed labels in {line:?}"));
                    (name, parse_labels(inner, line))
                }
                None => (series, Vec::new()),
            };
            assert!(
                !name.is_empty()
                    && name
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':'),
                "bad metric name in {line:?}"
            );
            samples.insert(key(name, &labels), value);
        }
        Self(samples)
    }

    /// The sample's value, 0 when the series is not there (yet).
    fn value(&self, name: &str, labels: &[(&str, &str)]) -> f64 {
        let labels: Vec<(String, String)> = labels
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        self.0.get(&key(name, &labels)).copied().unwrap_or(0.0)
    }
}

fn parse_labels(inner: &str, line: &str) -> Vec<(String, String)> {
    let mut labels = Vec::new();
    let mut rest = inner;
    while !rest.is_empty() {
        let (name, after) = rest
            .split_once("=\"")
            .unwrap_or_else(|| panic!("bad label in {line:?}"));
        let mut value = String::new();
        let mut chars = after.char_indices();
        let end = loop {
            match chars.next() {
                Some((_, '\\')) => {
                    if let Some((_, escaped)) = chars.next() {
                        value.push(escaped);
                    }
                }
                Some((at, '"')) => break at,
                Some((_, c)) => value.push(c),
                None => panic!("unterminated label value in {line:?}"),
            }
        };
        labels.push((name.to_string(), value));
        rest = after[end + 1..].trim_start_matches(',');
    }
    labels
}

fn key(name: &str, labels: &[(String, String)]) -> String {
    let mut labels = labels.to_vec();
    labels.sort();
    let labels: Vec<String> = labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("{name}{{{}}}", labels.join(","))
}

/// How much a sample grew between two scrapes.
fn grew(before: &Scrape, after: &Scrape, name: &str, labels: &[(&str, &str)]) -> f64 {
    after.value(name, labels) - before.value(name, labels)
}

async fn track(app: &TestApp, key: &str, body: Value) -> u16 {
    let (status, answer) = app.game_json(Method::POST, "/v1/track", key, body).await;
    assert!(status != 500, "{answer}");
    status
}

#[tokio::test]
async fn counts_requests_events_and_group_writes() {
    // Arrange
    let app = spawn_app().await;
    let (_, _, key) = app.game_with_key().await;
    let before = Scrape::take(&app).await;

    // Act
    let batch: Vec<Value> = (0..3)
        .map(|i| json!({ "event_name": "level_start", "session_id": "s", "event_id": format!("m-{i}") }))
        .collect();
    assert_eq!(track(&app, &key, Value::Array(batch)).await, 202);
    // The client retries one of them: accepted again, stored once.
    let retried = json!({ "event_name": "level_start", "session_id": "s", "event_id": "m-1" });
    assert_eq!(track(&app, &key, retried).await, 202);
    let oversized: Vec<Value> = (0..150)
        .map(|_| json!({ "event_name": "tick", "session_id": "s" }))
        .collect();
    assert_eq!(track(&app, &key, Value::Array(oversized)).await, 413);
    let invalid = json!({ "event_name": "", "session_id": "s" });
    assert_eq!(track(&app, &key, invalid).await, 400);
    app.game(Method::POST, "/v1/leaderboards", &key)
        .json(&json!({ "board_name": "metrics", "player_id": "ana", "score": 10 }))
        .expect_status(200)
        .await;
    let (status, body) = app.call(Method::GET, "/v1/no-such-route").await;
    assert_eq!(status, 404);
    assert!(body["error"].is_string());
    let (status, _) = app.call(Method::GET, "/healthz").await;
    assert_eq!(status, 200);
    let after = Scrape::take(&app).await;

    // Assert
    let requests = "playtrace_http_requests_total";
    let moved = |name: &str, labels: &[(&str, &str)]| grew(&before, &after, name, labels);
    for (labels, at_least, what) in [
        (
            [("route", "track"), ("method", "POST"), ("status", "202")],
            2.0,
            "accepted tracks",
        ),
        (
            [("route", "track"), ("method", "POST"), ("status", "413")],
            1.0,
            "the oversized batch",
        ),
        (
            [("route", "track"), ("method", "POST"), ("status", "400")],
            1.0,
            "the invalid event",
        ),
        (
            [
                ("route", "submitScore"),
                ("method", "POST"),
                ("status", "200"),
            ],
            1.0,
            "the score",
        ),
        (
            [("route", "not_found"), ("method", "GET"), ("status", "404")],
            1.0,
            "the unknown path, under a fixed name",
        ),
        (
            [("route", "healthz"), ("method", "GET"), ("status", "200")],
            1.0,
            "the probe",
        ),
    ] {
        assert!(
            moved(requests, &labels) >= at_least,
            "{what}: {requests}{labels:?} moved by {}",
            moved(requests, &labels)
        );
    }
    assert!(
        !after
            .0
            .keys()
            .any(|series| series.contains("no-such-route")),
        "a raw path became a label"
    );
    let latency = "playtrace_http_request_duration_seconds_count";
    assert!(moved(latency, &[("route", "track"), ("method", "POST")]) >= 4.0);
    assert!(
        after.value(
            "playtrace_http_request_duration_seconds_bucket",
            &[("route", "track"), ("method", "POST"), ("le", "+Inf")]
        ) >= 4.0
    );

    assert!(moved("playtrace_events_accepted_total", &[]) >= 4.0);
    assert!(moved("playtrace_events_deduplicated_total", &[]) >= 1.0);
    let refused = "playtrace_events_refused_total";
    assert!(moved(refused, &[("reason", "size")]) >= 150.0);
    assert!(moved(refused, &[("reason", "validation")]) >= 1.0);

    for kind in ["events", "scores"] {
        let labels = [("kind", kind)];
        assert!(
            moved("playtrace_group_commit_size_count", &labels) >= 1.0,
            "{kind}"
        );
        assert!(
            moved("playtrace_group_commit_size_sum", &labels) >= 1.0,
            "{kind}"
        );
        assert!(
            moved("playtrace_group_commit_queue_wait_seconds_count", &labels) >= 1.0,
            "{kind}"
        );
        assert!(
            moved("playtrace_group_commit_write_seconds_count", &labels) >= 1.0,
            "{kind}"
        );
    }

    assert_eq!(
        after.value(
            "playtrace_build_info",
            &[("version", env!("CARGO_PKG_VERSION"))]
        ),
        1.0
    );
}

#[tokio::test]
async fn a_token_guards_the_scrape() {
    let app =
        spawn_app_with(|settings| settings.metrics_token = Some("scrape-secret".into())).await;

    for (header, what) in [
        (None, "no token"),
        (Some("Bearer wrong-secret"), "a wrong token"),
        (Some("Basic scrape-secret"), "another scheme"),
    ] {
        let mut request = app.request(Method::GET, "/metrics");
        if let Some(header) = header {
            request = request.header("authorization", header);
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), 401, "{what}");
        let body: Value = response.json().await.unwrap();
        assert!(body["error"].is_string(), "{what}: {body}");
    }

    let response = app
        .request(Method::GET, "/metrics")
        .bearer_auth("scrape-secret")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let text = response.text().await.unwrap();
    assert!(text.contains("playtrace_build_info"), "{text}");
}

#[tokio::test]
async fn the_scrape_is_not_rate_limited_and_not_in_the_spec() {
    let app = spawn_app_with(|settings| settings.rate_limit_per_minute = 2).await;

    for _ in 0..5 {
        Scrape::take(&app).await;
    }

    let (_, spec) = app.call(Method::GET, "/openapi.json").await;
    assert!(spec["paths"].get("/metrics").is_none());
}

#[tokio::test]
async fn open_websocket_feeds_are_counted() {
    use tokio_tungstenite::{connect_async, tungstenite::client::IntoClientRequest};

    let app = spawn_app().await;
    let (token, game_id, _) = app.game_with_key().await;
    let mut request = format!(
        "{}/v1/activity/stream?game_id={game_id}",
        app.address.replace("http://", "ws://")
    )
    .into_client_request()
    .unwrap();
    request
        .headers_mut()
        .insert("authorization", format!("Bearer {token}").parse().unwrap());

    let (socket, _) = connect_async(request).await.expect("the feed opens");

    // The server counts the feed once its task runs, just after the upgrade is answered.
    let mut open = 0.0;
    for _ in 0..50 {
        open = Scrape::take(&app)
            .await
            .value("playtrace_websocket_feeds", &[]);
        if open >= 1.0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(open >= 1.0, "open feeds: {open}");
    drop(socket);
}
