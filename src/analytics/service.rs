//! Game metrics as time series: event and crash counts, log errors plus warnings, revenue,
//! active users and day-7 retention. The dashboard charts them and alert rules compare their
//! latest bucket with a baseline.
//!
//! They are read from the aggregates kept at ingest (`crate::aggregates`, read in
//! `aggregated`), so a read costs the buckets it shows. Raw events are read (`raw`) only where
//! the aggregates' whole hours cannot answer: the parts of a bucket that do not cover a whole
//! UTC hour (alert windows end at the current second), and active users of one event name.
use super::{aggregated, raw};
use chrono::{DateTime, Duration, Utc};
use sea_orm::{ConnectionTrait, DbErr, TransactionTrait};
use uuid::Uuid;

/// A metric a studio can chart and alert on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// Every event.
    Events,
    /// `crash` events.
    Crashes,
    /// `log` events whose `properties.level` is `error` or `warning`.
    LogErrors,
    /// Sum of `properties.amount` of `purchase` events.
    Revenue,
    /// Distinct active users (`player_id`, else `session_id`).
    ActiveUsers,
    /// Percent of a cohort (users first seen in a bucket) active again 7 buckets later.
    RetentionD7,
    /// The same 1 day later.
    RetentionD1,
    /// The same 30 days later.
    RetentionD30,
    /// Users first seen that day (the day's cohort).
    NewUsers,
    /// Distinct users with a `purchase` event that day.
    PayingUsers,
    /// Revenue per active user of the day.
    Arpdau,
    /// Revenue per paying user of the day.
    Arppu,
    /// Paying users as a percent of active users of the day.
    Conversion,
    /// Sessions (distinct `session_id`) that started that day.
    Sessions,
    /// Average length in seconds of the sessions that started that day: the time from a
    /// session's first to its last event, or its `session_end` event's `length` when sent.
    SessionLength,
}

impl Metric {
    pub const NAMES: &'static str = "events, crashes, log_errors, revenue, active_users, \
         retention_d7, retention_d1, retention_d30, new_users, paying_users, arpdau, arppu, \
         conversion, sessions, session_length";

    /// Counted per day only (`bucket=day`).
    pub fn daily_only(self) -> bool {
        !matches!(
            self,
            Self::Events | Self::Crashes | Self::LogErrors | Self::Revenue | Self::ActiveUsers
        )
    }

    /// The day a retention metric looks at after a cohort's first day.
    pub fn return_day(self) -> Option<i64> {
        match self {
            Self::RetentionD1 => Some(1),
            Self::RetentionD7 => Some(7),
            Self::RetentionD30 => Some(30),
            _ => None,
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        Some(match raw {
            "events" => Self::Events,
            "crashes" => Self::Crashes,
            "log_errors" => Self::LogErrors,
            "revenue" => Self::Revenue,
            "active_users" | "dau" => Self::ActiveUsers,
            "retention_d7" => Self::RetentionD7,
            "retention_d1" => Self::RetentionD1,
            "retention_d30" => Self::RetentionD30,
            "new_users" => Self::NewUsers,
            "paying_users" => Self::PayingUsers,
            "arpdau" => Self::Arpdau,
            "arppu" => Self::Arppu,
            "conversion" => Self::Conversion,
            "sessions" => Self::Sessions,
            "session_length" => Self::SessionLength,
            _ => return None,
        })
    }

    /// How people read it, e.g. in an alert's title.
    pub fn label(self) -> &'static str {
        match self {
            Self::Events => "Events",
            Self::Crashes => "Crashes",
            Self::LogErrors => "Log errors",
            Self::Revenue => "Revenue",
            Self::ActiveUsers => "Active users",
            Self::RetentionD7 => "Day-7 retention",
            Self::RetentionD1 => "Day-1 retention",
            Self::RetentionD30 => "Day-30 retention",
            Self::NewUsers => "New users",
            Self::PayingUsers => "Paying users",
            Self::Arpdau => "ARPDAU",
            Self::Arppu => "ARPPU",
            Self::Conversion => "Conversion",
            Self::Sessions => "Sessions",
            Self::SessionLength => "Session length",
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Events => "events",
            Self::Crashes => "crashes",
            Self::LogErrors => "log_errors",
            Self::Revenue => "revenue",
            Self::ActiveUsers => "active_users",
            Self::RetentionD7 => "retention_d7",
            Self::RetentionD1 => "retention_d1",
            Self::RetentionD30 => "retention_d30",
            Self::NewUsers => "new_users",
            Self::PayingUsers => "paying_users",
            Self::Arpdau => "arpdau",
            Self::Arppu => "arppu",
            Self::Conversion => "conversion",
            Self::Sessions => "sessions",
            Self::SessionLength => "session_length",
        }
    }
}

/// Which events a metric reads: one game, optionally one environment and (for `events` and
/// `active_users`) one event name.
#[derive(Debug, Clone)]
pub struct Scope {
    pub game_id: Uuid,
    pub environment: Option<String>,
    pub event_name: Option<String>,
}

impl Point {
    /// A count or sum.
    pub fn count(value: f64) -> Self {
        Self {
            value: Some(value),
            cohort_size: None,
        }
    }
}

/// Consecutive equal buckets starting at `start`.
#[derive(Debug, Clone, Copy)]
pub struct Buckets {
    pub start: DateTime<Utc>,
    pub seconds: i64,
    pub count: usize,
}

impl Buckets {
    pub fn start_of(&self, index: usize) -> DateTime<Utc> {
        self.start + Duration::seconds(self.seconds * index as i64)
    }

    pub fn end(&self) -> DateTime<Utc> {
        self.start_of(self.count)
    }
}

/// One bucket of a series. `value` is `None` where the metric is undefined (a retention
/// cohort that is empty or whose day 7 has not ended yet).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub value: Option<f64>,
    /// Retention only: users in the cohort.
    pub cohort_size: Option<u64>,
}

/// The metric in every bucket. Buckets must start on whole seconds (callers truncate `now`).
#[tracing::instrument(skip_all, fields(game_id = %scope.game_id, metric = metric.as_str()))]
pub async fn series(
    db: &(impl ConnectionTrait + TransactionTrait),
    scope: &Scope,
    metric: Metric,
    buckets: Buckets,
    now: DateTime<Utc>,
) -> Result<Vec<Point>, DbErr> {
    if let Some(return_day) = metric.return_day() {
        return aggregated::retention(db, scope, buckets, now, return_day).await;
    }
    match metric {
        Metric::NewUsers => aggregated::new_users(db, scope, buckets).await,
        Metric::PayingUsers => aggregated::paying_users(db, scope, buckets).await,
        Metric::Sessions | Metric::SessionLength => {
            aggregated::sessions(db, scope, buckets, metric == Metric::SessionLength).await
        }
        Metric::Arpdau | Metric::Arppu | Metric::Conversion => {
            ratio(db, scope, metric, buckets, now).await
        }
        Metric::ActiveUsers if scope.event_name.is_some() => {
            raw::series(
                db,
                scope,
                metric,
                buckets,
                &[(buckets.start, buckets.end())],
            )
            .await
        }
        Metric::ActiveUsers => match aggregated::span_of(buckets) {
            Some(span) => aggregated::active_users(db, scope, buckets, span).await,
            None => aggregated::active_users_unaligned(db, scope, buckets).await,
        },
        _ => {
            let pieces = Pieces::of(buckets);
            let mut points = aggregated::counts(db, scope, metric, buckets, &pieces.hours).await?;
            if !pieces.partial.is_empty() {
                let edges = raw::series(db, scope, metric, buckets, &pieces.partial).await?;
                for (point, edge) in points.iter_mut().zip(edges) {
                    point.value = Some(point.value.unwrap_or(0.0) + edge.value.unwrap_or(0.0));
                }
            }
            Ok(points)
        }
    }
}

/// A ratio of two daily series: revenue per active or paying user, or paying users as a
/// percent of active users; undefined (null) for a day without any of the users divided by.
async fn ratio(
    db: &(impl ConnectionTrait + TransactionTrait),
    scope: &Scope,
    metric: Metric,
    buckets: Buckets,
    now: DateTime<Utc>,
) -> Result<Vec<Point>, DbErr> {
    let (numerator, denominator, scale) = match metric {
        Metric::Arpdau => (Metric::Revenue, Metric::ActiveUsers, 1.0),
        Metric::Arppu => (Metric::Revenue, Metric::PayingUsers, 1.0),
        _ => (Metric::PayingUsers, Metric::ActiveUsers, 100.0),
    };
    let above = Box::pin(series(db, scope, numerator, buckets, now)).await?;
    let below = Box::pin(series(db, scope, denominator, buckets, now)).await?;
    Ok(above
        .iter()
        .zip(&below)
        .map(|(above, below)| {
            let below = below.value.unwrap_or(0.0);
            Point {
                value: (below > 0.0).then(|| above.value.unwrap_or(0.0) * scale / below),
                cohort_size: None,
            }
        })
        .collect())
}

/// The metric summed over `from..to` (a count or revenue metric): whole hours from the
/// aggregates, the parts of an hour at either end from the events.
pub async fn total(
    db: &(impl ConnectionTrait + TransactionTrait),
    scope: &Scope,
    metric: Metric,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> Result<f64, DbErr> {
    let seconds = (to - from).num_seconds();
    if seconds <= 0 {
        return Ok(0.0);
    }
    let whole = Buckets {
        start: from,
        seconds,
        count: 1,
    };
    let points = series(db, scope, metric, whole, to).await?;
    Ok(points.first().and_then(|p| p.value).unwrap_or(0.0))
}

/// How a range of buckets splits into whole UTC hours (each inside one bucket), which the
/// aggregates answer, and the rest.
#[derive(Debug, PartialEq)]
pub struct Pieces {
    /// Ranges of whole hours `[first, end)`, in hours since the epoch.
    pub hours: Vec<(i64, i64)>,
    /// Time ranges that are parts of an hour, each inside one bucket.
    pub partial: Vec<(DateTime<Utc>, DateTime<Utc>)>,
}

impl Pieces {
    pub fn of(buckets: Buckets) -> Self {
        const HOUR: i64 = crate::aggregates::SECONDS_PER_HOUR;
        let mut pieces = Pieces {
            hours: Vec::new(),
            partial: Vec::new(),
        };
        for index in 0..buckets.count {
            let start = buckets.start_of(index).timestamp();
            let end = start + buckets.seconds;
            let first_hour = (start + HOUR - 1).div_euclid(HOUR);
            let end_hour = end.div_euclid(HOUR);
            if first_hour >= end_hour {
                pieces.partial.push((at(start), at(end)));
                continue;
            }
            match pieces.hours.last_mut() {
                Some((_, last_end)) if *last_end == first_hour => *last_end = end_hour,
                _ => pieces.hours.push((first_hour, end_hour)),
            }
            if start < first_hour * HOUR {
                pieces.partial.push((at(start), at(first_hour * HOUR)));
            }
            if end_hour * HOUR < end {
                pieces.partial.push((at(end_hour * HOUR), at(end)));
            }
        }
        pieces
    }
}

pub(super) fn at(epoch_seconds: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(epoch_seconds, 0).expect("a bucket edge is a valid time")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buckets(start: &str, seconds: i64, count: usize) -> Buckets {
        Buckets {
            start: start.parse().unwrap(),
            seconds,
            count,
        }
    }

    #[test]
    fn day_buckets_from_midnight_are_whole_hours() {
        let pieces = Pieces::of(buckets("2026-11-01T00:00:00Z", 86_400, 3));
        let first = "2026-11-01T00:00:00Z"
            .parse::<DateTime<Utc>>()
            .unwrap()
            .timestamp()
            / 3600;
        assert_eq!(pieces.hours, vec![(first, first + 72)]);
        assert!(pieces.partial.is_empty());
    }

    #[test]
    fn an_alert_window_ending_mid_hour_reads_its_edges_from_the_events() {
        let pieces = Pieces::of(buckets("2026-11-01T10:30:00Z", 86_400, 2));
        let ten = "2026-11-01T10:00:00Z"
            .parse::<DateTime<Utc>>()
            .unwrap()
            .timestamp()
            / 3600;
        // Each day bucket has 23 whole hours; the hour holding a bucket edge is split.
        assert_eq!(
            pieces.hours,
            vec![(ten + 1, ten + 24), (ten + 25, ten + 48)]
        );
        assert_eq!(pieces.partial.len(), 4);
        assert_eq!(
            pieces.partial[0].0,
            "2026-11-01T10:30:00Z".parse::<DateTime<Utc>>().unwrap()
        );
        assert_eq!(
            pieces.partial[0].1,
            "2026-11-01T11:00:00Z".parse::<DateTime<Utc>>().unwrap()
        );
        assert_eq!(
            pieces.partial[3].1,
            "2026-11-03T10:30:00Z".parse::<DateTime<Utc>>().unwrap()
        );
    }

    #[test]
    fn an_hour_bucket_off_the_hour_is_all_edges() {
        let pieces = Pieces::of(buckets("2026-11-01T10:30:00Z", 3_600, 2));
        assert!(pieces.hours.is_empty());
        assert_eq!(pieces.partial.len(), 2);
    }
}
