//! What can go wrong with funnels, in their own words, and how each answers over HTTP.
use crate::query::QueryError;

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
    /// A word outside its set (`mode`).
    #[error(transparent)]
    Word(#[from] crate::words::InvalidWord),
    #[error(transparent)]
    Stored(#[from] crate::words::CorruptWord),
    #[error(transparent)]
    Cold(#[from] sea_orm::DbErr),
}

impl FunnelError {
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::Invalid(message.into())
    }
}

crate::error::answers!(FunnelError as error {
    400: Invalid(_) | Word(_),
    404: NotFound,
    409: TooMany,
    passes: Query | Stored | Cold,
});
