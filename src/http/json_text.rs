//! `JsonText<T>`: a JSON response body serialized ahead of time, documented with `T`'s schema.
//!
//! poem-openapi's `Json<T>` turns every response into a `serde_json::Value` tree before writing
//! it. For bodies that are mostly stored JSON (a cached remote config, a save of up to 1 MiB)
//! that tree is pure overhead: the stored text is already the right bytes. Remote config and
//! cloud saves use it.
use bytes::Bytes;
use poem::{IntoResponse, Response};
use poem_openapi::{
    payload::Payload,
    registry::{MetaSchemaRef, Registry},
    types::Type,
};
use std::marker::PhantomData;

pub struct JsonText<T> {
    body: Bytes,
    schema: PhantomData<fn() -> T>,
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

impl<T: Type> Payload for JsonText<T> {
    const CONTENT_TYPE: &'static str = "application/json; charset=utf-8";

    fn schema_ref() -> MetaSchemaRef {
        T::schema_ref()
    }

    fn register(registry: &mut Registry) {
        T::register(registry);
    }
}

impl<T> IntoResponse for JsonText<T> {
    fn into_response(self) -> Response {
        Response::builder()
            .content_type("application/json; charset=utf-8")
            .body(self.body)
    }
}

/// `text` as a JSON string literal (quoted and escaped).
pub fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".into())
}
