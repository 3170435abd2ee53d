//! What can go wrong with funnels, in their own words, and how each answers over HTTP.
use crate::{error::ApiError, query::QueryError};

#[derive(Debug, thiserror::Error)]
pub enum FunnelError {
    /// A field of a definition that breaks its rule (name, mode, steps, window).
    #[error("{0}")]
    Invalid(String),
    /// Unknown funnels, malformed ids and other games' funnels alike.
    #[error("Funnel not found")]
    NotFound,
    #[error("A game can have at most 100 funnels")]
    TooMany,
    /// A bad `from`, `to` or `environment` of a report.
    #[error(transparent)]
    Query(#[from] QueryError),
    #[error(transparent)]
    Cold(#[from] sea_orm::DbErr),
}

impl FunnelError {
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::Invalid(message.into())
    }
}

impl From<FunnelError> for ApiError {
    fn from(error: FunnelError) -> Self {
        match error {
            FunnelError::Invalid(message) => ApiError::bad_request(message),
            FunnelError::NotFound => ApiError::not_found(error.to_string()),
            FunnelError::TooMany => ApiError::conflict(error.to_string()),
            FunnelError::Query(error) => ApiError::from(error),
            FunnelError::Cold(error) => ApiError::from(error),
        }
    }
}

crate::error::api_error!(FunnelError);
