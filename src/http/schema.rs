//! Strings whose OpenAPI schema says more than "string": timestamps (`format: date-time`), so
//! generated clients get a date type. The fixed sets of words are enums of `crate::words`.
use chrono::{DateTime, Utc};
use poem_openapi::{
    registry::{MetaSchema, MetaSchemaRef, Registry},
    types::{ParseFromJSON, ParseFromParameter, ParseResult, ToJSON, Type},
};
use serde_json::Value;
use std::borrow::Cow;

/// The `Type`, JSON and parameter impls of a string newtype, with `$schema` as its schema.
macro_rules! string_type {
    ($ty:ident, $name:expr, $schema:expr, $register:expr) => {
        impl Type for $ty {
            const IS_REQUIRED: bool = true;
            type RawValueType = String;
            type RawElementValueType = String;

            fn name() -> Cow<'static, str> {
                $name.into()
            }
            fn schema_ref() -> MetaSchemaRef {
                $schema
            }
            fn register(registry: &mut Registry) {
                let register: fn(&mut Registry) = $register;
                register(registry)
            }
            fn as_raw_value(&self) -> Option<&String> {
                Some(&self.0)
            }
            fn raw_element_iter<'a>(&'a self) -> Box<dyn Iterator<Item = &'a String> + 'a> {
                Box::new(std::iter::once(&self.0))
            }
        }
        impl ParseFromJSON for $ty {
            fn parse_from_json(value: Option<Value>) -> ParseResult<Self> {
                String::parse_from_json(value)
                    .map(Self)
                    .map_err(|error| error.propagate())
            }
        }
        impl ParseFromParameter for $ty {
            fn parse_from_parameter(value: &str) -> ParseResult<Self> {
                Ok(Self(value.to_string()))
            }
        }
        impl ToJSON for $ty {
            fn to_json(&self) -> Option<Value> {
                Some(Value::String(self.0.clone()))
            }
        }
        impl std::ops::Deref for $ty {
            type Target = str;
            fn deref(&self) -> &str {
                &self.0
            }
        }
        impl From<$ty> for String {
            fn from(value: $ty) -> String {
                value.0
            }
        }
        impl From<String> for $ty {
            fn from(value: String) -> Self {
                Self(value)
            }
        }
        impl From<&str> for $ty {
            fn from(value: &str) -> Self {
                Self(value.to_string())
            }
        }
    };
}

/// A moment in time as the service writes it: RFC 3339 UTC with a `Z`, whole seconds
/// (`2026-11-21T10:00:00Z`); `format: date-time` in the spec.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Timestamp(pub String);

string_type!(
    Timestamp,
    "string_date-time",
    MetaSchemaRef::Inline(Box::new(MetaSchema::new_with_format("string", "date-time"))),
    |_| {}
);

impl From<DateTime<Utc>> for Timestamp {
    fn from(at: DateTime<Utc>) -> Self {
        Self(super::timestamp(at))
    }
}
