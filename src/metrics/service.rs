//! Game metrics computed from the stored events, in the database, as time series: event and
//! crash counts,
//! log errors plus warnings, revenue, active users and day-7 retention. The dashboard charts
//! them and alert rules compare their latest bucket with a baseline.
//!
//! Every query is plain SQL over the `events` columns copied out at ingest (`actor_id`,
//! `revenue_amount`, `log_level`) and runs on SQLite and PostgreSQL alike; the only dialect
//! difference is turning a timestamp into epoch seconds, which `query::epoch_seconds` spells.
use crate::query::{epoch_seconds, Params};
use chrono::{DateTime, Duration, Utc};
use sea_orm::{ConnectionTrait, DbErr, Statement};
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
}

impl Metric {
    pub const NAMES: &'static str =
        "events, crashes, log_errors, revenue, active_users, retention_d7";

    pub fn parse(raw: &str) -> Option<Self> {
        Some(match raw {
            "events" => Self::Events,
            "crashes" => Self::Crashes,
            "log_errors" => Self::LogErrors,
            "revenue" => Self::Revenue,
            "active_users" | "dau" => Self::ActiveUsers,
            "retention_d7" => Self::RetentionD7,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Events => "events",
            Self::Crashes => "crashes",
            Self::LogErrors => "log_errors",
            Self::Revenue => "revenue",
            Self::ActiveUsers => "active_users",
            Self::RetentionD7 => "retention_d7",
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

/// The metric in every bucket, computed by one grouped query. Buckets must start on whole
/// seconds (callers truncate `now`), so integer epoch arithmetic places events exactly.
#[tracing::instrument(skip_all, fields(game_id = %scope.game_id, metric = metric.as_str()))]
pub async fn series(
    db: &impl ConnectionTrait,
    scope: &Scope,
    metric: Metric,
    buckets: Buckets,
    now: DateTime<Utc>,
) -> Result<Vec<Point>, DbErr> {
    if metric == Metric::RetentionD7 {
        return retention(db, scope, buckets, now).await;
    }
    let backend = db.get_database_backend();
    let mut p = Params::default();
    let game = p.bind(scope.game_id);
    let start_secs = p.bind(buckets.start.timestamp());
    let size = p.bind(buckets.seconds);
    let from = p.bind(buckets.start);
    let to = p.bind(buckets.end());
    let (filter, value) = match metric {
        Metric::Events => ("", "COUNT(*)"),
        Metric::Crashes => ("AND event_name = 'crash'", "COUNT(*)"),
        Metric::LogErrors => (
            "AND event_name = 'log' AND log_level IN ('error', 'warning')",
            "COUNT(*)",
        ),
        Metric::Revenue => (
            "AND event_name = 'purchase' AND revenue_amount IS NOT NULL",
            "SUM(revenue_amount)",
        ),
        Metric::ActiveUsers => ("", "COUNT(DISTINCT actor_id)"),
        Metric::RetentionD7 => unreachable!("handled above"),
    };
    let environment = scope_filter(scope, &mut p);
    let sql = format!(
        "SELECT bucket, CAST({value} AS DOUBLE PRECISION) AS value FROM (\
           SELECT ({epoch} - {start_secs}) / {size} AS bucket, actor_id, revenue_amount FROM events \
           WHERE game_id = {game} AND occurred_at >= {from} AND occurred_at < {to} {filter} {environment}\
         ) bucketed GROUP BY bucket",
        epoch = epoch_seconds(backend, "occurred_at"),
    );
    let rows = db
        .query_all_raw(Statement::from_sql_and_values(backend, sql, p.0))
        .await?;
    let mut points = vec![
        Point {
            value: Some(0.0),
            cohort_size: None
        };
        buckets.count
    ];
    for row in rows {
        let bucket: i64 = row.try_get("", "bucket")?;
        let value: Option<f64> = row.try_get("", "value")?;
        if let Some(point) = usize::try_from(bucket).ok().and_then(|b| points.get_mut(b)) {
            point.value = Some(value.unwrap_or(0.0));
        }
    }
    Ok(points)
}

fn scope_filter(scope: &Scope, p: &mut Params) -> String {
    let mut filter = String::new();
    if let Some(environment) = &scope.environment {
        filter.push_str(&format!(
            " AND environment = {}",
            p.bind(environment.clone())
        ));
    }
    if let Some(name) = &scope.event_name {
        filter.push_str(&format!(" AND event_name = {}", p.bind(name.clone())));
    }
    filter
}

/// Day-7 style retention per cohort bucket: of the users whose first event ever (in scope)
/// falls in bucket i, the percent with an event in bucket i + 7. One query: first-seen per
/// user, then a left join with the users active in the later buckets.
async fn retention(
    db: &impl ConnectionTrait,
    scope: &Scope,
    buckets: Buckets,
    now: DateTime<Utc>,
) -> Result<Vec<Point>, DbErr> {
    let backend = db.get_database_backend();
    let mut p = Params::default();
    let game = p.bind(scope.game_id);
    let start_secs = p.bind(buckets.start.timestamp());
    let size = p.bind(buckets.seconds);
    let cohort_from = p.bind(buckets.start);
    let cohort_to = p.bind(buckets.end());
    let later_from = p.bind(buckets.start_of(7));
    let later_to = p.bind(buckets.start_of(buckets.count + 7));
    let environment = scope_filter(scope, &mut p);
    let sql = format!(
        "WITH firsts AS (\
           SELECT actor_id, MIN(occurred_at) AS first_at FROM events \
           WHERE game_id = {game} {environment} GROUP BY actor_id\
         ), cohorts AS (\
           SELECT actor_id, ({first_epoch} - {start_secs}) / {size} AS bucket FROM firsts \
           WHERE first_at >= {cohort_from} AND first_at < {cohort_to}\
         ), returned AS (\
           SELECT DISTINCT actor_id, ({epoch} - {start_secs}) / {size} AS bucket FROM events \
           WHERE game_id = {game} {environment} AND occurred_at >= {later_from} AND occurred_at < {later_to}\
         ) \
         SELECT c.bucket AS bucket, CAST(COUNT(*) AS BIGINT) AS size, CAST(COUNT(r.actor_id) AS BIGINT) AS retained \
         FROM cohorts c LEFT JOIN returned r ON r.actor_id = c.actor_id AND r.bucket = c.bucket + 7 \
         GROUP BY c.bucket",
        first_epoch = epoch_seconds(backend, "first_at"),
        epoch = epoch_seconds(backend, "occurred_at"),
    );
    let rows = db
        .query_all_raw(Statement::from_sql_and_values(backend, sql, p.0))
        .await?;
    let mut points = vec![
        Point {
            value: None,
            cohort_size: Some(0)
        };
        buckets.count
    ];
    for row in rows {
        let bucket: i64 = row.try_get("", "bucket")?;
        let size: i64 = row.try_get("", "size")?;
        let retained: i64 = row.try_get("", "retained")?;
        let Some(index) = usize::try_from(bucket).ok().filter(|b| *b < buckets.count) else {
            continue;
        };
        let complete = buckets.start_of(index + 8) <= now;
        points[index] = Point {
            value: (complete && size > 0).then(|| retained as f64 * 100.0 / size as f64),
            cohort_size: Some(size.max(0) as u64),
        };
    }
    Ok(points)
}
