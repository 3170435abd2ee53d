//! `RenderedJson<T>`: a JSON response body rendered once and kept as bytes, described in the
//! OpenAPI document exactly like `Json<T>`. Hot read paths cache these so a repeated read costs
//! no rendering at all.
use bytes::Bytes;
use poem::{http::header, IntoResponse, Response};
use poem_openapi::{
    payload::Payload,
    registry::{MetaMediaType, MetaResponse, MetaResponses, MetaSchemaRef, Registry},
    types::{ToJSON, Type},
    ApiResponse,
};
use std::marker::PhantomData;

pub struct RenderedJson<T> {
    body: Bytes,
    shape: PhantomData<fn() -> T>,
}

impl<T> Clone for RenderedJson<T> {
    fn clone(&self) -> Self {
        Self {
            body: self.body.clone(),
            shape: PhantomData,
        }
    }
}

impl<T: ToJSON> RenderedJson<T> {
    /// Renders `value` the way `Json<T>` would.
    pub fn render(value: &T) -> Self {
        let json = value.to_json().unwrap_or(serde_json::Value::Null);
        Self {
            body: Bytes::from(serde_json::to_vec(&json).unwrap_or_default()),
            shape: PhantomData,
        }
    }
}

impl<T: Type> Payload for RenderedJson<T> {
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

impl<T: Send> IntoResponse for RenderedJson<T> {
    fn into_response(self) -> Response {
        Response::builder()
            .header(header::CONTENT_TYPE, "application/json; charset=utf-8")
            .body(self.body)
    }
}

impl<T: Type + Send> ApiResponse for RenderedJson<T> {
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
