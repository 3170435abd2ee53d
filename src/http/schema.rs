//! Strings whose OpenAPI schema says more than "string": timestamps (`format: date-time`), so
//! generated clients get a date type; array items that may be null (`Nullable`). The fixed
//! sets of words are enums of `crate::words`.
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

/// A value that may be null where `Option` cannot say so: as an array item (`Vec<Option<T>>`
/// gives items without `nullable`, so generated clients would not expect the nulls).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Nullable<T>(pub Option<T>);

impl<T: Type> Type for Nullable<T> {
    const IS_REQUIRED: bool = true;
    type RawValueType = T::RawValueType;
    type RawElementValueType = T::RawElementValueType;

    fn name() -> Cow<'static, str> {
        format!("nullable_{}", T::name()).into()
    }
    fn schema_ref() -> MetaSchemaRef {
        let schema = match T::schema_ref() {
            MetaSchemaRef::Inline(schema) => *schema,
            reference => MetaSchema {
                all_of: vec![reference],
                ..MetaSchema::ANY
            },
        };
        MetaSchemaRef::Inline(Box::new(MetaSchema {
            nullable: true,
            ..schema
        }))
    }
    fn register(registry: &mut Registry) {
        T::register(registry)
    }
    fn as_raw_value(&self) -> Option<&Self::RawValueType> {
        self.0.as_ref().and_then(Type::as_raw_value)
    }
    fn raw_element_iter<'a>(
        &'a self,
    ) -> Box<dyn Iterator<Item = &'a Self::RawElementValueType> + 'a> {
        match &self.0 {
            Some(value) => value.raw_element_iter(),
            None => Box::new(std::iter::empty()),
        }
    }
}

impl<T: ParseFromJSON> ParseFromJSON for Nullable<T> {
    fn parse_from_json(value: Option<Value>) -> ParseResult<Self> {
        match value {
            None | Some(Value::Null) => Ok(Self(None)),
            value => T::parse_from_json(value)
                .map(|value| Self(Some(value)))
                .map_err(|error| error.propagate()),
        }
    }
}

impl<T: ToJSON> ToJSON for Nullable<T> {
    fn to_json(&self) -> Option<Value> {
        Some(
            self.0
                .as_ref()
                .and_then(ToJSON::to_json)
                .unwrap_or(Value::Null),
        )
    }
}
