//! `GET /v1/games/{game_id}/metrics`: one metric as a chartable series (dashboard, members).
use super::{
    service::{self, Buckets, Metric, Scope},
    MetricError,
};
use crate::words::Environment;
use crate::{
    auth::BearerAuth,
    games::{access::Role, require_role},
    http::{timestamp, ApiTags},
    query,
    state::AppState,
};
use chrono::Duration;
use poem_openapi::{
    param::{Path, Query},
    payload::Json,
    Object, OpenApi,
};
use uuid::Uuid;

pub struct MetricsApi {
    pub state: AppState,
}

/// One bucket of a series.
#[derive(Object)]
pub struct MetricPoint {
    /// Start of the bucket (UTC).
    pub start: String,
    /// The metric in this bucket; null for a retention cohort that is empty or whose day 7
    /// has not ended yet.
    #[oai(nullable)]
    pub value: Option<f64>,
    /// Retention only: users first seen in this bucket.
    #[oai(skip_serializing_if_is_none)]
    #[oai(nullable)]
    pub cohort_size: Option<u64>,
}

/// A metric over a range of UTC days, bucketed for a chart.
#[derive(Object)]
pub struct MetricSeries {
    pub metric: String,
    /// `hour` or `day`.
    pub bucket: String,
    pub from: String,
    pub to: String,
    #[oai(nullable)]
    pub environment: Option<Environment>,
    /// Every bucket of the range, oldest first, including empty ones.
    pub points: Vec<MetricPoint>,
    /// The one event name counted (`event_name` of the request); absent: every name.
    #[oai(skip_serializing_if_is_none)]
    pub event_name: Option<String>,
    /// Sum over the range for events, crashes, log_errors and revenue; absent for the others.
    #[oai(skip_serializing_if_is_none)]
    #[oai(nullable)]
    pub total: Option<f64>,
}

const MAX_DAYS_BY_DAY: i64 = query::MAX_DAYS;
const MAX_DAYS_BY_HOUR: i64 = 31;

/// What each operation here answers beyond the universal statuses (`http::error_responses`):
/// 403: not a member of the game.
pub const STATUSES: crate::http::Statuses = crate::http::statuses! {
    getGameMetric: [403],
};

#[OpenApi(prefix_path = "/v1/games", tag = "ApiTags::Analytics")]
impl MetricsApi {
    /// A game metric as a time series (any member). `metric`: `events` (every event), `crashes`
    /// (`crash` events), `log_errors` (`log` events with `properties.level` error or warning),
    /// `revenue` (sum of `purchase` `properties.amount`), `active_users` (distinct players, else sessions, per
    /// bucket; `dau` is an alias), `retention_d7` (percent of users first seen that day who
    /// came back 7 days later), `retention_d1`, `retention_d30` (the same 1 and 30 days later),
    /// `new_users` (users first seen that day), `paying_users` (distinct users with a
    /// `purchase` that day), `arpdau` (revenue / active users), `arppu` (revenue / paying
    /// users), `conversion` (paying / active users, percent), `sessions` (sessions that began
    /// that day) or `session_length` (their average length in seconds, from the first to the
    /// last event or a `session_end`'s `properties.length`); the last ten `bucket=day` only,
    /// and a ratio or average is null on a day without anything to divide by. `from`/`to` are UTC days `YYYY-MM-DD`,
    /// inclusive (default: the 30 days up to today); `bucket` is `day` (default, up to 366
    /// days) or `hour` (up to 31 days). With `event_name`, `events` and `active_users` count
    /// only events of that name (any custom event, e.g. `level_complete` per day).
    #[oai(
        path = "/:game_id/metrics",
        method = "get",
        operation_id = "getGameMetric"
    )]
    #[allow(clippy::too_many_arguments)] // one argument per query parameter
    async fn metric(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        /// events, crashes, log_errors, revenue, active_users (dau), retention_d7, retention_d1,
        /// retention_d30, new_users, paying_users, arpdau, arppu, conversion, sessions or
        /// session_length.
        metric: Query<String>,
        /// First day, `YYYY-MM-DD` (UTC).
        from: Query<Option<String>>,
        /// Last day, `YYYY-MM-DD` (UTC).
        to: Query<Option<String>>,
        /// `day` (default) or `hour`.
        bucket: Query<Option<String>>,
        /// Only events sent with `development` or `production` keys (default: both).
        environment: Query<Option<String>>,
        /// With `metric=events` or `active_users`: only events of this name.
        event_name: Query<Option<String>>,
    ) -> poem::Result<Json<MetricSeries>> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Viewer).await?;
        let metric = Metric::parse(&metric.0).ok_or(MetricError::UnknownMetric)?;
        let (bucket_name, bucket_secs, max_days) = match bucket.0.as_deref().unwrap_or("day") {
            "day" => ("day", 86_400, MAX_DAYS_BY_DAY),
            "hour" => ("hour", 3_600, MAX_DAYS_BY_HOUR),
            _ => return Err(MetricError::UnknownBucket.into()),
        };
        if metric.daily_only() && bucket_name != "day" {
            return Err(MetricError::DailyOnly(metric).into());
        }
        if let Some(name) = &event_name.0 {
            if !matches!(metric, Metric::Events | Metric::ActiveUsers) {
                return Err(MetricError::EventNameNotApplicable.into());
            }
            if name.is_empty() || name.len() > 128 {
                return Err(MetricError::InvalidEventName.into());
            }
        }
        let environment = query::parse_optional_environment(environment.0.as_deref())?;
        let now = self.state.now();
        let (from, to) = query::day_range(
            from.0.as_deref(),
            to.0.as_deref(),
            now.date_naive(),
            query::DEFAULT_DAYS,
            max_days,
        )?;
        let days = (to - from).num_days() + 1;
        let buckets = Buckets {
            start: query::midnight(from),
            seconds: bucket_secs,
            count: (days * 86_400 / bucket_secs) as usize,
        };
        let scope = Scope {
            game_id: game_id.0,
            environment: environment.map(|environment| environment.as_str().to_string()),
            event_name: event_name.0.clone(),
        };
        let points = service::series(&self.state.db, &scope, metric, buckets, now)
            .await
            .map_err(MetricError::from)?;
        let total = matches!(
            metric,
            Metric::Events | Metric::Crashes | Metric::LogErrors | Metric::Revenue
        )
        .then(|| points.iter().filter_map(|p| p.value).sum::<f64>());
        Ok(Json(MetricSeries {
            metric: metric.as_str().into(),
            bucket: bucket_name.into(),
            from: from.to_string(),
            to: to.to_string(),
            environment,
            event_name: event_name.0,
            points: points
                .into_iter()
                .enumerate()
                .map(|(index, point)| MetricPoint {
                    start: timestamp(buckets.start + Duration::seconds(bucket_secs * index as i64)),
                    value: point.value,
                    cohort_size: point.cohort_size,
                })
                .collect(),
            total,
        }))
    }
}
