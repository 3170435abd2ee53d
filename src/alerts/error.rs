//! What can go wrong with alert rules, in their own words, and how each answers over HTTP.
use crate::{games::GameError, query::QueryError, store::hot::HotError};

#[derive(Debug, thiserror::Error)]
pub enum AlertError {
    /// A field of a rule (or a query parameter) that breaks its rule.
    #[error("{0}")]
    Invalid(String),
    /// Unknown rules, malformed ids and rules of games the caller cannot see alike.
    #[error("Alert rule not found")]
    RuleNotFound,
    #[error("A game can have at most 100 alert rules")]
    TooManyRules,
    #[error("This rule has no discord_webhook_url")]
    NoWebhook,
    /// A `discord_webhook_url` that cannot be used, in the words of the dashboard's form.
    #[error("{0}")]
    InvalidWebhook(String),
    /// A bad `environment`.
    #[error(transparent)]
    Query(#[from] QueryError),
    /// The caller's standing on the rule's game.
    #[error(transparent)]
    Access(#[from] GameError),
    /// A word outside its set (`type`, `environment`).
    #[error(transparent)]
    Word(#[from] crate::words::InvalidWord),
    #[error(transparent)]
    Stored(#[from] crate::words::CorruptWord),
    #[error(transparent)]
    Cold(#[from] sea_orm::DbErr),
    #[error(transparent)]
    Hot(#[from] HotError),
}

impl AlertError {
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::Invalid(message.into())
    }
}

crate::error::answers!(AlertError as error {
    400: Invalid(_) | Word(_) | NoWebhook,
    404: RuleNotFound,
    409: TooManyRules,
    passes: Query | Access | Stored | Cold | Hot,
    other {
        InvalidWebhook(_) => ApiError::bad_request(error.to_string()).with("field", "discord_webhook_url"),
    }
});
