//! The metrics as they were computed before the aggregates: one SQL query over the raw
//! events per read. Kept as the reference the aggregate answers must equal.
use chrono::{DateTime, Utc};
use playtrace::{
    analytics::{Buckets, Metric, Point, Scope},
    query::{epoch_seconds, Params},
};
use sea_orm::{ConnectionTrait, DbErr, Statement};

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

pub async fn series(
    db: &impl ConnectionTrait,
    scope: &Scope,
    metric: Metric,
    buckets: Buckets,
    now: DateTime<Utc>,
) -> Result<Vec<Point>, DbErr> {
    if let Some(return_day) = metric.return_day() {
        return retention(db, scope, buckets, now, return_day as usize).await;
    }
    match metric {
        Metric::NewUsers => {
            // The cohorts' sizes: users whose first event fell on the day.
            let cohorts = retention(db, scope, buckets, now, 1).await?;
            return Ok(cohorts
                .iter()
                .map(|cohort| Point::count(cohort.cohort_size.unwrap_or(0) as f64))
                .collect());
        }
        Metric::Arpdau | Metric::Arppu | Metric::Conversion => {
            let (numerator, denominator, scale) = match metric {
                Metric::Arpdau => (Metric::Revenue, Metric::ActiveUsers, 1.0),
                Metric::Arppu => (Metric::Revenue, Metric::PayingUsers, 1.0),
                _ => (Metric::PayingUsers, Metric::ActiveUsers, 100.0),
            };
            let above = Box::pin(series(db, scope, numerator, buckets, now)).await?;
            let below = Box::pin(series(db, scope, denominator, buckets, now)).await?;
            return Ok(above
                .iter()
                .zip(&below)
                .map(|(above, below)| Point {
                    value: below
                        .value
                        .filter(|users| *users > 0.0)
                        .map(|users| above.value.unwrap_or(0.0) * scale / users),
                    cohort_size: None,
                })
                .collect());
        }
        Metric::Sessions | Metric::SessionLength => {
            return sessions(db, scope, buckets, metric == Metric::SessionLength).await;
        }
        _ => {}
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
        Metric::PayingUsers => ("AND event_name = 'purchase'", "COUNT(DISTINCT actor_id)"),
        _ => unreachable!("handled above"),
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

/// Sessions per day of their first event, or their average length in seconds: from the
/// first to the last event, or the longest `length` (0 to a week) of their `session_end`s.
async fn sessions(
    db: &impl ConnectionTrait,
    scope: &Scope,
    buckets: Buckets,
    average_length: bool,
) -> Result<Vec<Point>, DbErr> {
    use entity::events;
    use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
    let mut found = events::Entity::find().filter(events::Column::GameId.eq(scope.game_id));
    if let Some(environment) = &scope.environment {
        found = found.filter(events::Column::Environment.eq(environment.clone()));
    }
    let mut sessions: std::collections::HashMap<String, (i64, i64, Option<i64>)> =
        Default::default();
    for event in found.all(db).await? {
        let at = event.occurred_at.timestamp_millis();
        let reported = (event.event_name == "session_end")
            .then(|| event.properties.get("length").and_then(|l| l.as_f64()))
            .flatten()
            .filter(|seconds| (0.0..=7.0 * 86_400.0).contains(seconds))
            .map(|seconds| (seconds * 1_000.0).round() as i64);
        let session = sessions.entry(event.session_id).or_insert((at, at, None));
        session.0 = session.0.min(at);
        session.1 = session.1.max(at);
        session.2 = session.2.max(reported);
    }
    let mut days = vec![(0i64, 0i64); buckets.count];
    let start_ms = buckets.start.timestamp_millis();
    for (first, last, reported) in sessions.into_values() {
        let Some(day) = usize::try_from((first - start_ms).div_euclid(86_400_000))
            .ok()
            .filter(|_| first >= start_ms)
            .and_then(|index| days.get_mut(index))
        else {
            continue;
        };
        day.0 += 1;
        day.1 += reported.unwrap_or(last - first);
    }
    Ok(days
        .into_iter()
        .map(|(count, length_ms)| Point {
            value: if !average_length {
                Some(count as f64)
            } else {
                (count > 0).then(|| length_ms as f64 / 1_000.0 / count as f64)
            },
            cohort_size: None,
        })
        .collect())
}

async fn retention(
    db: &impl ConnectionTrait,
    scope: &Scope,
    buckets: Buckets,
    now: DateTime<Utc>,
    return_day: usize,
) -> Result<Vec<Point>, DbErr> {
    let backend = db.get_database_backend();
    let mut p = Params::default();
    let game = p.bind(scope.game_id);
    let start_secs = p.bind(buckets.start.timestamp());
    let size = p.bind(buckets.seconds);
    let cohort_from = p.bind(buckets.start);
    let cohort_to = p.bind(buckets.end());
    let later_from = p.bind(buckets.start_of(return_day));
    let later_to = p.bind(buckets.start_of(buckets.count + return_day));
    let offset = p.bind(return_day as i64);
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
         FROM cohorts c LEFT JOIN returned r ON r.actor_id = c.actor_id AND r.bucket = c.bucket + {offset} \
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
        let complete = buckets.start_of(index + return_day + 1) <= now;
        points[index] = Point {
            value: (complete && size > 0).then(|| retained as f64 * 100.0 / size as f64),
            cohort_size: Some(size.max(0) as u64),
        };
    }
    Ok(points)
}

/// Events per name in `from..to`, optionally of one environment.
pub async fn counts(
    db: &impl ConnectionTrait,
    game_id: uuid::Uuid,
    environment: Option<&str>,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> Result<Vec<(String, i64)>, DbErr> {
    let mut p = Params::default();
    let game = p.bind(game_id);
    let (from, to) = (p.bind(from), p.bind(to));
    let environment = environment
        .map(|e| format!(" AND environment = {}", p.bind(e.to_string())))
        .unwrap_or_default();
    let sql = format!(
        "SELECT event_name, CAST(COUNT(*) AS BIGINT) AS count FROM events WHERE game_id = {game} \
         AND occurred_at >= {from} AND occurred_at < {to}{environment} GROUP BY event_name \
         ORDER BY 2 DESC, 1"
    );
    let rows = db
        .query_all_raw(Statement::from_sql_and_values(
            db.get_database_backend(),
            sql,
            p.0,
        ))
        .await?;
    rows.iter()
        .map(|row| Ok((row.try_get("", "event_name")?, row.try_get("", "count")?)))
        .collect()
}
