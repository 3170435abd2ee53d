//! What the report features (metrics, funnels, alerts) share when they read the events: bound
//! SQL parameters, the one dialect difference (epoch seconds), ranges of UTC days from query
//! strings, the environment filter and two-decimal rounding. It imports no feature, so any
//! feature can use it.
use crate::words::Environment;
use chrono::{DateTime, Duration, NaiveDate, Utc};
use sea_orm::{DatabaseBackend, Value};

/// What a query parameter of a report can get wrong; every case is a 400.
#[derive(Debug, Clone, thiserror::Error)]
pub enum QueryError {
    #[error("{field} must be a date in YYYY-MM-DD format")]
    BadDate { field: &'static str },
    #[error("from must not be after to")]
    FromAfterTo,
    #[error("the range from..to may cover at most {max_days} days")]
    RangeTooLong { max_days: i64 },
    #[error("environment must be development or production")]
    BadEnvironment,
    #[error(
        "{field} must be an RFC 3339 time (2026-11-21T10:00:00Z) or a date in YYYY-MM-DD format"
    )]
    BadInstant { field: &'static str },
}

crate::error::answers!(QueryError => 400);

/// Collects bound values and hands out their `$n` placeholders.
#[derive(Default)]
pub struct Params(pub Vec<Value>);

impl Params {
    pub fn bind(&mut self, value: impl Into<Value>) -> String {
        self.0.push(value.into());
        format!("${}", self.0.len())
    }
}

/// SQL turning a timestamp column into whole epoch seconds, per backend.
pub fn epoch_seconds(backend: DatabaseBackend, column: &str) -> String {
    match backend {
        DatabaseBackend::Postgres => format!("CAST(FLOOR(EXTRACT(EPOCH FROM {column})) AS BIGINT)"),
        _ => format!("CAST(strftime('%s', {column}) AS INTEGER)"),
    }
}

/// Days a report of whole UTC days covers when `from` is not given, and the most it may cover
/// (metrics by day, event counts).
pub const DEFAULT_DAYS: i64 = 30;
pub const MAX_DAYS: i64 = 366;

/// An environment to filter events by: `development` or `production`.
pub fn parse_environment(raw: &str) -> Result<Environment, QueryError> {
    Environment::parse(raw).map_err(|_| QueryError::BadEnvironment)
}

/// An optional `environment` query value, parsed.
pub fn parse_optional_environment(raw: Option<&str>) -> Result<Option<Environment>, QueryError> {
    raw.map(parse_environment).transpose()
}

/// A range of whole UTC days, both ends included, from `from`/`to` query values
/// (`YYYY-MM-DD`). Without `to` it ends today; without `from` it covers `default_days` up to
/// `to`. Bad dates, `from` after `to` and ranges over `max_days` are refused.
pub fn day_range(
    from: Option<&str>,
    to: Option<&str>,
    today: NaiveDate,
    default_days: i64,
    max_days: i64,
) -> Result<(NaiveDate, NaiveDate), QueryError> {
    let parse = |raw: &str, field: &'static str| {
        NaiveDate::parse_from_str(raw.trim(), "%Y-%m-%d").map_err(|_| QueryError::BadDate { field })
    };
    let to = match to {
        Some(raw) => parse(raw, "to")?,
        None => today,
    };
    let from = match from {
        Some(raw) => parse(raw, "from")?,
        None => to - Duration::days(default_days - 1),
    };
    if from > to {
        return Err(QueryError::FromAfterTo);
    }
    if (to - from).num_days() + 1 > max_days {
        return Err(QueryError::RangeTooLong { max_days });
    }
    Ok((from, to))
}

/// A bound of a time range from a query value: an RFC 3339 time as it is, or a `YYYY-MM-DD`
/// day as its midnight (UTC); with `whole_day`, a day means the midnight after it, so a range
/// ending on a day includes that day.
pub fn instant(
    raw: &str,
    field: &'static str,
    whole_day: bool,
) -> Result<DateTime<Utc>, QueryError> {
    let raw = raw.trim();
    if let Ok(at) = DateTime::parse_from_rfc3339(raw) {
        return Ok(at.with_timezone(&Utc));
    }
    let day =
        NaiveDate::parse_from_str(raw, "%Y-%m-%d").map_err(|_| QueryError::BadInstant { field })?;
    Ok(midnight(day) + Duration::days(i64::from(whole_day)))
}

/// Midnight UTC at the start of `day`.
pub fn midnight(day: NaiveDate) -> DateTime<Utc> {
    day.and_hms_opt(0, 0, 0).expect("midnight exists").and_utc()
}

/// Percentages are answered with two decimals.
pub fn round2(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

/// The rows of `SELECT {columns} FROM {table} WHERE ... GROUP BY {group_by}` over a game's
/// per-day aggregate rows (a `day` column of whole days since the epoch and an `environment`
/// column) in the days `from..=to`, of one environment or all. `columns`, `table` and
/// `group_by` are the caller's constants, never outside text.
pub async fn day_rows(
    db: &impl sea_orm::ConnectionTrait,
    (columns, table, group_by): (&str, &str, &str),
    game_id: uuid::Uuid,
    environment: Option<&str>,
    (from, to): (NaiveDate, NaiveDate),
) -> Result<Vec<sea_orm::QueryResult>, sea_orm::DbErr> {
    let mut p = Params::default();
    let day = |date: NaiveDate| midnight(date).timestamp().div_euclid(86_400);
    let mut filter = format!(
        "game_id = {} AND day >= {} AND day <= {}",
        p.bind(game_id),
        p.bind(day(from)),
        p.bind(day(to))
    );
    if let Some(environment) = environment {
        filter.push_str(&format!(
            " AND environment = {}",
            p.bind(environment.to_string())
        ));
    }
    let sql = format!("SELECT {columns} FROM {table} WHERE {filter} GROUP BY {group_by}");
    db.query_all_raw(sea_orm::Statement::from_sql_and_values(
        db.get_database_backend(),
        sql,
        p.0,
    ))
    .await
}

/// The days and environment of a report over whole UTC days from its `from`, `to` and
/// `environment` query values: the 30 days up to today by default, at most 366.
pub fn report_days(
    from: &Option<String>,
    to: &Option<String>,
    environment: &Option<String>,
    now: DateTime<Utc>,
) -> Result<(NaiveDate, NaiveDate, Option<Environment>), QueryError> {
    let environment = parse_optional_environment(environment.as_deref())?;
    let (from, to) = day_range(
        from.as_deref(),
        to.as_deref(),
        now.date_naive(),
        DEFAULT_DAYS,
        MAX_DAYS,
    )?;
    Ok((from, to, environment))
}
