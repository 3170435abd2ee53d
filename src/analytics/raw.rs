//! Metrics read from the raw events, for what the aggregates' whole hours cannot answer: the
//! parts of an hour at the edges of an alert's window, and active users of one event name.
//! Each read covers only the given time ranges, through the events' (game, time) and
//! (game, name, time) indexes.
use super::service::{Buckets, Metric, Point, Scope};
use crate::query::{epoch_seconds, Params};
use chrono::{DateTime, Utc};
use sea_orm::{ConnectionTrait, DbErr, Statement};

/// A count, revenue or active-users metric per bucket, over the events that occurred in
/// `ranges` (each inside one bucket) only.
pub async fn series(
    db: &impl ConnectionTrait,
    scope: &Scope,
    metric: Metric,
    buckets: Buckets,
    ranges: &[(DateTime<Utc>, DateTime<Utc>)],
) -> Result<Vec<Point>, DbErr> {
    let backend = db.get_database_backend();
    let mut p = Params::default();
    let game = p.bind(scope.game_id);
    let start_secs = p.bind(buckets.start.timestamp());
    let size = p.bind(buckets.seconds);
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
        _ => unreachable!("daily metrics are read from the aggregates"),
    };
    let within = ranges_filter(ranges, &mut p);
    let scope_filter = scope_filter(scope, &mut p);
    let sql = format!(
        "SELECT bucket, CAST({value} AS DOUBLE PRECISION) AS value FROM (\
           SELECT ({epoch} - {start_secs}) / {size} AS bucket, actor_id, revenue_amount FROM events \
           WHERE game_id = {game} AND ({within}) {filter} {scope_filter}\
         ) bucketed GROUP BY bucket",
        epoch = epoch_seconds(backend, "occurred_at"),
    );
    let rows = db
        .query_all_raw(Statement::from_sql_and_values(backend, sql, p.0))
        .await?;
    let mut points = vec![Point::count(0.0); buckets.count];
    for row in rows {
        let bucket: i64 = row.try_get("", "bucket")?;
        let value: Option<f64> = row.try_get("", "value")?;
        if let Some(point) = usize::try_from(bucket).ok().and_then(|b| points.get_mut(b)) {
            point.value = Some(value.unwrap_or(0.0));
        }
    }
    Ok(points)
}

/// `occurred_at` inside one of `ranges`, as SQL.
pub fn ranges_filter(ranges: &[(DateTime<Utc>, DateTime<Utc>)], p: &mut Params) -> String {
    if ranges.is_empty() {
        return "1 = 0".into();
    }
    ranges
        .iter()
        .map(|(from, to)| {
            format!(
                "(occurred_at >= {} AND occurred_at < {})",
                p.bind(*from),
                p.bind(*to)
            )
        })
        .collect::<Vec<_>>()
        .join(" OR ")
}

/// The scope's environment and event name, as SQL on `events`.
pub fn scope_filter(scope: &Scope, p: &mut Params) -> String {
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
