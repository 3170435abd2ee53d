//! Operational metrics in the Prometheus text format: the one process-wide recorder
//! (`metrics-exporter-prometheus`, installed once, rendered by `GET /metrics`), every metric's
//! name and help text, and the functions the rest of the node records through.
//!
//! Not to be confused with `crate::analytics`, the analytics figures games read about their
//! players. Labels are `&'static str` from small fixed sets (routes are operation ids, never raw
//! paths; no game or player ids), so the number of series stays bounded and recording on a hot
//! path allocates no label text.
use ::metrics::{counter, describe_counter, describe_gauge, describe_histogram, gauge, histogram};
use ::metrics::{Gauge, Unit};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use poem::http::Method;
use std::{sync::OnceLock, time::Duration};

pub mod route;

const HTTP_REQUESTS: &str = "playtrace_http_requests_total";
const HTTP_DURATION: &str = "playtrace_http_request_duration_seconds";
const EVENTS_ACCEPTED: &str = "playtrace_events_accepted_total";
const EVENTS_DEDUPLICATED: &str = "playtrace_events_deduplicated_total";
const EVENTS_REFUSED: &str = "playtrace_events_refused_total";
const GROUP_SIZE: &str = "playtrace_group_commit_size";
const GROUP_QUEUE_WAIT: &str = "playtrace_group_commit_queue_wait_seconds";
const GROUP_WRITE: &str = "playtrace_group_commit_write_seconds";
const GROUP_FAILURES: &str = "playtrace_group_commit_failures_total";
const STORE_ERRORS: &str = "playtrace_store_errors_total";
const WEBSOCKET_FEEDS: &str = "playtrace_websocket_feeds";
const ALERT_EVALUATIONS: &str = "playtrace_alert_evaluations_total";
const ALERT_DELIVERIES: &str = "playtrace_alert_deliveries_total";
const BUILD_INFO: &str = "playtrace_build_info";

/// Upper bounds of the latency histograms' buckets, in seconds: from half a millisecond (a
/// cached read) to 10 s (the drain limit at shutdown).
const SECONDS_BUCKETS: &[f64] = &[
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];
/// Upper bounds of the group-size buckets, in requests per group.
const GROUP_SIZE_BUCKETS: &[f64] = &[1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0];
/// How often recorded histogram samples are folded into their buckets. Without it samples
/// pile up in memory until the next scrape, or for ever on a node nobody scrapes.
const UPKEEP_EVERY: Duration = Duration::from_secs(5);

static RECORDER: OnceLock<Option<PrometheusHandle>> = OnceLock::new();

/// Installs the process-wide recorder on first call and returns its handle; later calls (more
/// nodes in one process, as in the test suite) share it. `None` when another recorder was
/// installed first: metrics are then not collected here, and `/metrics` says so.
pub fn install() -> Option<&'static PrometheusHandle> {
    RECORDER
        .get_or_init(|| {
            let handle = build().install_recorder();
            match handle {
                Ok(handle) => {
                    let upkeep = handle.clone();
                    // A plain thread, not a task: it must outlive any one runtime (each test
                    // runs its own).
                    let spawned = std::thread::Builder::new()
                        .name("metrics-upkeep".into())
                        .spawn(move || loop {
                            std::thread::sleep(UPKEEP_EVERY);
                            upkeep.run_upkeep();
                        });
                    if let Err(error) = spawned {
                        tracing::warn!(%error, "metrics upkeep thread not started");
                    }
                    describe();
                    gauge!(BUILD_INFO, "version" => env!("CARGO_PKG_VERSION")).set(1.0);
                    Some(handle)
                }
                Err(error) => {
                    tracing::warn!(%error, "metrics recorder not installed");
                    None
                }
            }
        })
        .as_ref()
}

fn build() -> PrometheusBuilder {
    let builder = PrometheusBuilder::new();
    // Both calls only refuse an empty list.
    let builder = builder
        .set_buckets(SECONDS_BUCKETS)
        .expect("latency buckets are not empty");
    builder
        .set_buckets_for_metric(Matcher::Full(GROUP_SIZE.into()), GROUP_SIZE_BUCKETS)
        .expect("group-size buckets are not empty")
}

fn describe() {
    describe_counter!(
        HTTP_REQUESTS,
        "HTTP requests answered, by route (operation id), method and status"
    );
    describe_histogram!(
        HTTP_DURATION,
        Unit::Seconds,
        "Time to answer an HTTP request, by route and method"
    );
    describe_counter!(
        EVENTS_ACCEPTED,
        "Events in /v1/track requests answered 202 (a retried event_id included)"
    );
    describe_counter!(
        EVENTS_DEDUPLICATED,
        "Accepted events not stored again because their game already held their event_id"
    );
    describe_counter!(
        EVENTS_REFUSED,
        "Events in refused /v1/track requests, by reason (quota, validation, size, forbidden, unavailable)"
    );
    describe_histogram!(
        GROUP_SIZE,
        "Requests written in one group-commit transaction, by kind (events, scores)"
    );
    describe_histogram!(
        GROUP_QUEUE_WAIT,
        Unit::Seconds,
        "Time a request waited in the group-commit queue until its group's write started, by kind"
    );
    describe_histogram!(
        GROUP_WRITE,
        Unit::Seconds,
        "Time to write and commit one group, by kind"
    );
    describe_counter!(
        GROUP_FAILURES,
        "Group writes that failed, by kind (each request is then retried alone unless the store is unreachable)"
    );
    describe_counter!(
        STORE_ERRORS,
        "Cold- and hot-store errors met by requests and writers, by store and kind"
    );
    describe_gauge!(
        WEBSOCKET_FEEDS,
        "Open WebSocket connections of the live presence feed on this node"
    );
    describe_counter!(
        ALERT_EVALUATIONS,
        "Alert rule evaluations, by alert type and result (triggered, quiet, error)"
    );
    describe_counter!(
        ALERT_DELIVERIES,
        "Deliveries of fired alerts, by alert type, channel (email, webhook) and outcome (sent, failed, skipped)"
    );
    describe_gauge!(BUILD_INFO, "Always 1; the version label names the build");
}

/// One answered HTTP request. `route` is the operation id or one of the fixed names of
/// `route::name`.
pub fn request(route: &'static str, method: &Method, status: u16, elapsed: Duration) {
    let method = method_label(method);
    counter!(HTTP_REQUESTS, "route" => route, "method" => method, "status" => status_label(status))
        .increment(1);
    histogram!(HTTP_DURATION, "route" => route, "method" => method).record(elapsed.as_secs_f64());
}

/// Events in a `/v1/track` request answered 202.
pub fn events_accepted(count: u64) {
    counter!(EVENTS_ACCEPTED).increment(count);
}

/// Accepted events whose `event_id` their game already held, so they were not stored again.
pub fn events_deduplicated(count: u64) {
    if count > 0 {
        counter!(EVENTS_DEDUPLICATED).increment(count);
    }
}

/// Why `/v1/track` refused a request's events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The monthly quota cannot hold them (429).
    Quota,
    /// An invalid event or one breaking its schema in `enforce` mode (400).
    Validation,
    /// More events than one request may carry (413).
    Size,
    /// An event names another player than the request's player token (403).
    Forbidden,
    /// The stores could not take them (503; the client retries).
    Unavailable,
}

impl Refusal {
    fn label(self) -> &'static str {
        match self {
            Self::Quota => "quota",
            Self::Validation => "validation",
            Self::Size => "size",
            Self::Forbidden => "forbidden",
            Self::Unavailable => "unavailable",
        }
    }
}

/// Events of a refused `/v1/track` request.
pub fn events_refused(reason: Refusal, count: u64) {
    counter!(EVENTS_REFUSED, "reason" => reason.label()).increment(count);
}

/// What one group-commit writer records: its kind's histograms, looked up once per writer.
pub struct GroupMetrics {
    kind: &'static str,
}

impl GroupMetrics {
    pub fn new(kind: &'static str) -> Self {
        Self { kind }
    }

    /// A group is about to be written: its size, and how long each of its requests waited
    /// since it was queued.
    pub fn started(&self, waits: impl Iterator<Item = Duration>) {
        let waited = histogram!(GROUP_QUEUE_WAIT, "kind" => self.kind);
        let mut size = 0;
        for wait in waits {
            waited.record(wait.as_secs_f64());
            size += 1;
        }
        histogram!(GROUP_SIZE, "kind" => self.kind).record(f64::from(size));
    }

    /// A group's write (store and commit) took `elapsed`.
    pub fn written(&self, elapsed: Duration, ok: bool) {
        histogram!(GROUP_WRITE, "kind" => self.kind).record(elapsed.as_secs_f64());
        if !ok {
            counter!(GROUP_FAILURES, "kind" => self.kind).increment(1);
        }
    }
}

/// A cold-store error met while answering or writing: `unavailable` when the store could not
/// be reached or used (answered 503), `other` otherwise (answered 500).
pub fn cold_store_error(unavailable: bool) {
    let kind = if unavailable { "unavailable" } else { "other" };
    counter!(STORE_ERRORS, "store" => "cold", "kind" => kind).increment(1);
}

/// A hot-store error met while answering or writing; `kind` from `HotError::kind`.
pub fn hot_store_error(kind: &'static str) {
    counter!(STORE_ERRORS, "store" => "hot", "kind" => kind).increment(1);
}

/// Counts one open WebSocket feed for as long as it lives (dropped when the connection ends,
/// however it ends).
pub struct OpenFeed(Gauge);

impl OpenFeed {
    pub fn open() -> Self {
        let gauge = gauge!(WEBSOCKET_FEEDS);
        gauge.increment(1.0);
        Self(gauge)
    }
}

impl Drop for OpenFeed {
    fn drop(&mut self) {
        self.0.decrement(1.0);
    }
}

/// One evaluation of an alert rule: `result` is `triggered`, `quiet` or `error`.
pub fn alert_evaluated(alert_type: &'static str, result: &'static str) {
    counter!(ALERT_EVALUATIONS, "type" => alert_type, "result" => result).increment(1);
}

/// One channel's delivery of a fired alert: `channel` `email` or `webhook`, `outcome` `sent`,
/// `failed` or `skipped`.
pub fn alert_delivered(alert_type: &'static str, channel: &'static str, outcome: &'static str) {
    counter!(ALERT_DELIVERIES, "type" => alert_type, "channel" => channel, "outcome" => outcome)
        .increment(1);
}

fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        _ => "other",
    }
}

/// The status as label text, without formatting it per request.
fn status_label(status: u16) -> &'static str {
    static LABELS: OnceLock<Vec<String>> = OnceLock::new();
    let labels = LABELS.get_or_init(|| (100..600).map(|code: u16| code.to_string()).collect());
    status
        .checked_sub(100)
        .and_then(|index| labels.get(usize::from(index)))
        .map_or("other", String::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_labels_are_the_codes() {
        assert_eq!(status_label(200), "200");
        assert_eq!(status_label(599), "599");
        assert_eq!(status_label(99), "other");
        assert_eq!(status_label(600), "other");
    }
}
