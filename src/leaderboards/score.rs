//! `Score`: a finite JSON number. It reads any JSON number and writes whole values as integers
//! (`1500`, not `1500.0`), so a score reads back exactly as a game sent it.
use poem_openapi::{
    registry::{MetaSchema, MetaSchemaRef},
    types::{ParseError, ParseFromJSON, ParseResult, ToJSON, Type},
};
use serde_json::{Number, Value};
use std::borrow::Cow;

/// Largest magnitude written as an integer: beyond 2^53 not every integer is a double.
const EXACT_INTEGER_LIMIT: f64 = 9_007_199_254_740_992.0;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Score(pub f64);

impl Score {
    pub fn to_value(self) -> Value {
        let value = self.0 + 0.0;
        if value.fract() == 0.0 && value.abs() <= EXACT_INTEGER_LIMIT {
            Value::Number(Number::from(value as i64))
        } else {
            Number::from_f64(value)
                .map(Value::Number)
                .unwrap_or(Value::Null)
        }
    }
}

impl Type for Score {
    const IS_REQUIRED: bool = true;
    type RawValueType = Self;
    type RawElementValueType = Self;

    fn name() -> Cow<'static, str> {
        "number_double".into()
    }

    fn schema_ref() -> MetaSchemaRef {
        MetaSchemaRef::Inline(Box::new(MetaSchema::new_with_format("number", "double")))
    }

    fn as_raw_value(&self) -> Option<&Self::RawValueType> {
        Some(self)
    }

    fn raw_element_iter<'a>(
        &'a self,
    ) -> Box<dyn Iterator<Item = &'a Self::RawElementValueType> + 'a> {
        Box::new(self.as_raw_value().into_iter())
    }
}

impl ParseFromJSON for Score {
    fn parse_from_json(value: Option<Value>) -> ParseResult<Self> {
        match value.unwrap_or_default() {
            Value::Number(number) => match number.as_f64() {
                Some(score) if score.is_finite() => Ok(Self(score)),
                _ => Err(ParseError::custom("score must be a finite number")),
            },
            other => Err(ParseError::expected_type(other)),
        }
    }
}

impl ToJSON for Score {
    fn to_json(&self) -> Option<Value> {
        Some(self.to_value())
    }
}
