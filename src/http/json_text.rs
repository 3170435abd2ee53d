//! `JsonText<T>`: a JSON response body that is already bytes, described in the OpenAPI
//! document exactly like `Json<T>`.
//!
//! poem-openapi's `Json<T>` turns every response into a `serde_json::Value` tree before writing
//! it. For bodies that are mostly stored JSON (a cached remote config, a save of up to 1 MiB)
//! that tree is pure overhead: the stored text is already the right bytes (`new`). Hot read
//! paths render a body once (`render`) and keep it, so a repeated read costs no rendering at
//! all (leaderboard pages). Used as a payload in an `ApiResponse`, or as the whole 200 answer.
use bytes::Bytes;
use poem::{http::header, IntoResponse, Response};
use poem_openapi::{
    payload::Payload,
    registry::{MetaMediaType, MetaResponse, MetaResponses, MetaSchemaRef, Registry},
    types::{ToJSON, Type},
    ApiResponse,
};
use std::marker::PhantomData;

pub struct JsonText<T> {
    body: Bytes,
    schema: PhantomData<fn() -> T>,
}

impl<T> Clone for JsonText<T> {
    fn clone(&self) -> Self {
        Self {
            body: self.body.clone(),
            schema: PhantomData,
        }
    }
}

impl<T> JsonText<T> {
    /// Wraps text the caller guarantees to be one valid JSON document shaped like `T`.
    pub fn new(body: impl Into<Bytes>) -> Self {
        Self {
            body: body.into(),
            schema: PhantomData,
        }
    }
}

impl<T: ToJSON> JsonText<T> {
    /// Renders `value` the way `Json<T>` would.
    pub fn render(value: &T) -> Self {
        let json = value.to_json().unwrap_or(serde_json::Value::Null);
        Self::new(serde_json::to_vec(&json).unwrap_or_default())
    }
}

impl<T: Type> Payload for JsonText<T> {
    const CONTENT_TYPE: &'static str = "application/json; charset=utf-8";

    fn check_content_type(content_type: &str) -> bool {
        content_type.starts_with("application/json")
    }

    fn schema_ref() -> MetaSchemaRef {
        T::schema_ref()
    }

    fn register(registry: &mut Registry) {
        T::register(registry);
    }
}

impl<T: Send> IntoResponse for JsonText<T> {
    fn into_response(self) -> Response {
        Response::builder()
            .header(header::CONTENT_TYPE, "application/json; charset=utf-8")
            .body(self.body)
    }
}

impl<T: Type + Send> ApiResponse for JsonText<T> {
    fn meta() -> MetaResponses {
        MetaResponses {
            responses: vec![MetaResponse {
                description: "",
                status: Some(200),
                status_range: None,
                content: vec![MetaMediaType {
                    content_type: Self::CONTENT_TYPE,
                    schema: Self::schema_ref(),
                }],
                headers: vec![],
            }],
        }
    }

    fn register(registry: &mut Registry) {
        T::register(registry);
    }
}

/// `text` as a JSON string literal (quoted and escaped).
pub fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".into())
}
