//! What can go wrong with a metric request, in its own words, and how each answers over HTTP.
use super::service::Metric;
use crate::{error::ApiError, query::QueryError};

#[derive(Debug, thiserror::Error)]
pub enum MetricError {
    #[error("metric must be one of: {}", Metric::NAMES)]
    UnknownMetric,
    #[error("bucket must be hour or day")]
    UnknownBucket,
    #[error("retention_d7 is computed per day; use bucket=day")]
    RetentionByHour,
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

impl From<MetricError> for ApiError {
    fn from(error: MetricError) -> Self {
        match error {
            MetricError::UnknownMetric
            | MetricError::UnknownBucket
            | MetricError::RetentionByHour
            | MetricError::EventNameNotApplicable
            | MetricError::InvalidEventName => ApiError::bad_request(error.to_string()),
            MetricError::Query(error) => ApiError::from(error),
            MetricError::Cold(error) => ApiError::from(error),
        }
    }
}

crate::error::api_error!(MetricError);
