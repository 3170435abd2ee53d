//! The one JSON error body every non-2xx answer uses, and the conversion of framework errors
//! (unknown routes, wrong methods, malformed JSON, oversized bodies) into it.
use poem::{
    error::ResponseError,
    http::{header, HeaderValue, StatusCode},
    Body, Response,
};
use serde_json::{Map, Value};

/// An error answered to the client as `{"error": "...", ...context}`.
#[derive(Debug, Clone)]
pub struct ApiError {
    pub status: StatusCode,
    pub body: Map<String, Value>,
    pub retry_after: Option<u64>,
}

impl ApiError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        let mut body = Map::new();
        body.insert("error".into(), Value::String(message.into()));
        Self {
            status,
            body,
            retry_after: None,
        }
    }

    /// Adds a context field (`code`, `violations`, `limit`, `quota`, ...) to the body.
    pub fn with(mut self, field: &str, value: impl Into<Value>) -> Self {
        self.body.insert(field.to_string(), value.into());
        self
    }

    /// `new` with the status as its number, as the `answers!` tables write it.
    pub fn with_status(code: u16, message: impl Into<String>) -> Self {
        Self::new(
            StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            message,
        )
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, message)
    }
    pub fn unauthorized(message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, message)
    }
    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::new(StatusCode::FORBIDDEN, message)
    }
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, message)
    }
    pub fn conflict(message: impl Into<String>) -> Self {
        Self::new(StatusCode::CONFLICT, message)
    }
    pub fn payload_too_large(message: impl Into<String>) -> Self {
        Self::new(StatusCode::PAYLOAD_TOO_LARGE, message)
    }
    pub fn unavailable(message: impl Into<String>) -> Self {
        Self::new(StatusCode::SERVICE_UNAVAILABLE, message)
    }

    /// An unexpected failure: the cause is logged with its chain, the client sees an opaque 500.
    pub fn internal(cause: impl std::fmt::Display + std::fmt::Debug) -> Self {
        tracing::error!(error.cause_chain = ?cause, error.message = %cause, "internal error");
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, "Internal server error")
    }

    pub fn message(&self) -> &str {
        self.body
            .get("error")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.status, self.message())
    }
}

impl std::error::Error for ApiError {}

impl ResponseError for ApiError {
    fn status(&self) -> StatusCode {
        self.status
    }

    fn as_response(&self) -> Response {
        let mut response = Response::builder()
            .status(self.status)
            .content_type("application/json")
            .body(Body::from_json(Value::Object(self.body.clone())).unwrap_or_default());
        if let Some(seconds) = self.retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}

/// How a feature's error answers over HTTP, written as a table rather than a `match`:
///
/// ```ignore
/// crate::error::answers!(GameError as error {
///     400: Invalid(_),
///     404: NoSuchMember | NoSuchKey,
///     internal: Stored(_),
///     passes: Cold | Hot,
///     other {
///         Locked => ApiError::forbidden(error.to_string()).with("code", "ACCOUNT_LOCKED"),
///     }
/// });
/// ```
/// - a status line answers its variants with that status and the error's own text;
/// - `internal` variants are logged with their cause and answered as an opaque 500;
/// - `passes` variants carry an error (a `DbErr`, a `HotError`, another feature's error, an
///   `ApiError`) that answers for itself;
/// - `other` arms are for variants that need more (context fields, a log line), with the error
///   under the name given after `as`.
///
/// `crate::error::answers!(QueryError => 400)` answers every value of a type with one status.
/// Either form also implements `From<_> for poem::Error`, so an endpoint returning
/// `poem::Result` can use `?` on the feature's error.
macro_rules! answers {
    (@poem $error:ty) => {
        impl From<$error> for poem::Error {
            fn from(error: $error) -> Self {
                $crate::error::ApiError::from(error).into()
            }
        }
    };
    ($error:ident as $name:ident {
        $($code:literal: $variants:pat,)*
        $(internal: $internal:pat,)?
        $(passes: $($carrier:ident)|+,)?
        $(other { $($special:pat => $answer:expr,)* })?
    }) => {
        impl From<$error> for $crate::error::ApiError {
            // A misspelt unit variant would be a pattern binding that catches everything.
            #[deny(unreachable_patterns, non_snake_case)]
            fn from($name: $error) -> Self {
                #[allow(unused_imports)]
                use $crate::error::ApiError;
                use $error::*;
                match $name {
                    $($variants => ApiError::with_status($code, $name.to_string()),)*
                    $($internal => ApiError::internal($name),)?
                    $($($carrier(inner) => ApiError::from(inner),)+)?
                    $($($special => $answer,)*)?
                }
            }
        }
        $crate::error::answers!(@poem $error);
    };
    ($error:ty => $code:literal) => {
        impl From<$error> for $crate::error::ApiError {
            fn from(error: $error) -> Self {
                $crate::error::ApiError::with_status($code, error.to_string())
            }
        }
        $crate::error::answers!(@poem $error);
    };
}
pub(crate) use answers;

impl From<sea_orm::DbErr> for ApiError {
    fn from(error: sea_orm::DbErr) -> Self {
        let unavailable = crate::store::cold::is_unavailable(&error);
        crate::telemetry::cold_store_error(unavailable);
        if unavailable {
            tracing::error!(error.cause_chain = ?error, "cold store unavailable");
            return Self::unavailable("Storage temporarily unavailable, retry later");
        }
        Self::internal(error)
    }
}

impl From<crate::store::hot::HotError> for ApiError {
    fn from(error: crate::store::hot::HotError) -> Self {
        tracing::error!(error.cause_chain = ?error, "hot store unavailable");
        crate::telemetry::hot_store_error(error.kind());
        Self::unavailable("Storage temporarily unavailable, retry later")
    }
}

/// True when the error is a unique or foreign-key constraint violation.
pub fn is_constraint_violation(error: &sea_orm::DbErr) -> bool {
    matches!(
        error.sql_err(),
        Some(sea_orm::SqlErr::UniqueConstraintViolation(_))
            | Some(sea_orm::SqlErr::ForeignKeyConstraintViolation(_))
    )
}

/// Turns any error leaving the service into the JSON body. Framework errors keep their status;
/// their messages are replaced with plain ones, except request-parsing errors, whose message
/// describes the client's own mistake.
/// The JSON answer of an error; the route's operation id, when the error carries one, stays on
/// the answer for the access log.
pub fn into_json_response(error: poem::Error) -> Response {
    let operation = error.data::<poem_openapi::OperationId>().copied();
    let mut response = json_error_response(error);
    if let Some(operation) = operation {
        response.set_data(operation);
    }
    response
}

fn json_error_response(error: poem::Error) -> Response {
    if let Some(api_error) = error.downcast_ref::<ApiError>() {
        return api_error.as_response();
    }
    let status = error.status();
    let message = match status {
        StatusCode::NOT_FOUND => "Not found".to_string(),
        StatusCode::METHOD_NOT_ALLOWED => "Method not allowed".to_string(),
        StatusCode::PAYLOAD_TOO_LARGE => "Request body too large (limit 1 MiB)".to_string(),
        StatusCode::UNSUPPORTED_MEDIA_TYPE => "Content-Type must be application/json".to_string(),
        StatusCode::UNAUTHORIZED => "Unauthorized".to_string(),
        s if s.is_client_error() => clean_parse_message(&error.to_string()),
        _ => {
            tracing::error!(error = %error, "unhandled error");
            "Internal server error".to_string()
        }
    };
    let status = if status.is_server_error() {
        StatusCode::INTERNAL_SERVER_ERROR
    } else {
        status
    };
    ApiError::new(status, message).as_response()
}

fn clean_parse_message(raw: &str) -> String {
    // poem-openapi says e.g. `parse request payload error: failed to parse "CreateGame": missing field`
    let message = raw
        .trim_start_matches("parse request payload error: ")
        .trim_start_matches("failed to parse parameter ");
    if message.is_empty() {
        "Bad request".into()
    } else {
        let mut text = message.to_string();
        text.truncate(300);
        text
    }
}
