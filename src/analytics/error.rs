//! What can go wrong with a metric request, in its own words, and how each answers over HTTP.
use super::service::Metric;
use crate::query::QueryError;

#[derive(Debug, thiserror::Error)]
pub enum MetricError {
    #[error("metric must be one of: {}", Metric::NAMES)]
    UnknownMetric,
    #[error("bucket must be hour or day")]
    UnknownBucket,
    /// A metric counted per day (retention, new and paying users and their ratios) asked by hour.
    #[error("{} is computed per day; use bucket=day", .0.as_str())]
    DailyOnly(Metric),
    #[error("event_name applies to metric=events and metric=active_users only")]
    EventNameNotApplicable,
    #[error("event_name must be 1 to 128 characters")]
    InvalidEventName,
    /// A bad `from`, `to` or `environment`.
    #[error(transparent)]
    Query(#[from] QueryError),
    #[error(transparent)]
    Cold(#[from] sea_orm::DbErr),
}

crate::error::answers!(MetricError as error {
    400: UnknownMetric
        | UnknownBucket
        | DailyOnly(_)
        | EventNameNotApplicable
        | InvalidEventName,
    passes: Query | Cold,
});
