//! The standard event kinds the aggregates count beyond the reserved names of the interface:
//! `progression` (a step of the game started, completed or failed) and `resource` (a currency
//! gained or spent). Each has a ready JSON Schema (`standard/*.schema.json`, the one
//! `docs/events.md` shows) that checks the game's events of that name under its
//! `event_validation` mode when the game has not stored a schema of its own for the name, and a
//! parse that follows the same rules: the aggregates count an event only when it parses, so an
//! event that breaks the schema is stored (modes `off` and `warn`) but never half-counted.
use serde_json::{Map, Value};

pub const PROGRESSION: &str = "progression";
pub const RESOURCE: &str = "resource";

pub const PROGRESSION_SCHEMA: &str = include_str!("standard/progression.schema.json");
pub const RESOURCE_SCHEMA: &str = include_str!("standard/resource.schema.json");

/// Longest level name, currency and item type or id, in characters.
pub const MAX_NAME_CHARS: usize = 64;
/// Highest `attempt` a progression event may carry.
pub const MAX_ATTEMPT: f64 = 1_000_000.0;
/// Largest `amount` a resource event may carry (as a purchase's).
pub const MAX_RESOURCE_AMOUNT: f64 = 1_000_000_000.0;

/// The ready schema of a standard event name, if it is one.
pub fn schema_of(event_name: &str) -> Option<Value> {
    let text = match event_name {
        PROGRESSION => PROGRESSION_SCHEMA,
        RESOURCE => RESOURCE_SCHEMA,
        _ => return None,
    };
    Some(serde_json::from_str(text).expect("the standard schemas are JSON"))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    Start,
    Complete,
    Fail,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Flow {
    Source,
    Sink,
}

impl Flow {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Source => "source",
            Self::Sink => "sink",
        }
    }
}

/// A `progression` event's properties as the aggregates count them.
#[derive(Debug, Clone, PartialEq)]
pub struct Progression<'a> {
    pub status: Status,
    /// `level1` to `level3`; "" for a level not sent.
    pub levels: [&'a str; 3],
    pub attempt: Option<i64>,
}

/// A `resource` event's properties as the aggregates count them.
#[derive(Debug, Clone, PartialEq)]
pub struct Resource<'a> {
    pub flow: Flow,
    pub currency: &'a str,
    pub amount: f64,
    /// "" when not sent.
    pub item_type: &'a str,
}

/// A name-like property: absent, or a string of 1 to `MAX_NAME_CHARS` characters. `Err` when
/// present but not that.
fn name<'a>(properties: &'a Map<String, Value>, key: &str) -> Result<Option<&'a str>, ()> {
    match properties.get(key) {
        None => Ok(None),
        Some(Value::String(text)) if (1..=MAX_NAME_CHARS).contains(&text.chars().count()) => {
            Ok(Some(text))
        }
        Some(_) => Err(()),
    }
}

/// A number property within `range` (whole when `whole`); `Err` when present but not that.
fn number(
    properties: &Map<String, Value>,
    key: &str,
    range: std::ops::RangeInclusive<f64>,
    whole: bool,
) -> Result<Option<f64>, ()> {
    match properties.get(key) {
        None => Ok(None),
        Some(value) => {
            let number = value.as_f64().ok_or(())?;
            let fits = range.contains(&number) && (!whole || number.fract() == 0.0);
            fits.then_some(Some(number)).ok_or(())
        }
    }
}

impl<'a> Progression<'a> {
    /// The event's progression when it is one of the schema's shape.
    pub fn of(event_name: &str, properties: &'a Value) -> Option<Self> {
        if event_name != PROGRESSION {
            return None;
        }
        let properties = properties.as_object()?;
        let status = match properties.get("status")?.as_str()? {
            "start" => Status::Start,
            "complete" => Status::Complete,
            "fail" => Status::Fail,
            _ => return None,
        };
        let level1 = name(properties, "level1").ok()??;
        let level2 = name(properties, "level2").ok()?;
        let level3 = name(properties, "level3").ok()?;
        if level3.is_some() && level2.is_none() {
            return None;
        }
        let attempt = number(properties, "attempt", 1.0..=MAX_ATTEMPT, true).ok()?;
        number(properties, "score", f64::MIN..=f64::MAX, false).ok()?;
        Some(Self {
            status,
            levels: [level1, level2.unwrap_or(""), level3.unwrap_or("")],
            attempt: attempt.map(|attempt| attempt as i64),
        })
    }
}

impl<'a> Resource<'a> {
    /// The event's resource flow when it is one of the schema's shape.
    pub fn of(event_name: &str, properties: &'a Value) -> Option<Self> {
        if event_name != RESOURCE {
            return None;
        }
        let properties = properties.as_object()?;
        let flow = match properties.get("flow")?.as_str()? {
            "source" => Flow::Source,
            "sink" => Flow::Sink,
            _ => return None,
        };
        let currency = name(properties, "currency").ok()??;
        let amount = number(properties, "amount", 0.0..=MAX_RESOURCE_AMOUNT, false).ok()??;
        let item_type = name(properties, "item_type").ok()?;
        name(properties, "item_id").ok()?;
        Some(Self {
            flow,
            currency,
            amount,
            item_type: item_type.unwrap_or(""),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Every case: the schema and the parse agree on whether the properties are of the shape.
    #[test]
    fn the_parse_follows_the_schema() {
        let cases = [
            (
                PROGRESSION,
                json!({"status": "start", "level1": "w1"}),
                true,
            ),
            (
                PROGRESSION,
                json!({"status": "complete", "level1": "w1", "level2": "l2", "level3": "s3", "attempt": 3, "score": 12.5, "extra": 1}),
                true,
            ),
            (
                PROGRESSION,
                json!({"status": "fail", "level1": "w1", "attempt": 2.0}),
                true,
            ),
            (PROGRESSION, json!({"level1": "w1"}), false),
            (
                PROGRESSION,
                json!({"status": "done", "level1": "w1"}),
                false,
            ),
            (PROGRESSION, json!({"status": "start"}), false),
            (PROGRESSION, json!({"status": "start", "level1": ""}), false),
            (PROGRESSION, json!({"status": "start", "level1": 1}), false),
            (
                PROGRESSION,
                json!({"status": "start", "level1": "x".repeat(65)}),
                false,
            ),
            (
                PROGRESSION,
                json!({"status": "start", "level1": "w", "level3": "s"}),
                false,
            ),
            (
                PROGRESSION,
                json!({"status": "start", "level1": "w", "attempt": 0}),
                false,
            ),
            (
                PROGRESSION,
                json!({"status": "start", "level1": "w", "attempt": 1.5}),
                false,
            ),
            (
                PROGRESSION,
                json!({"status": "start", "level1": "w", "score": "high"}),
                false,
            ),
            (
                PROGRESSION,
                json!({"status": "start", "level1": "w", "level2": null}),
                false,
            ),
            (
                RESOURCE,
                json!({"flow": "source", "currency": "gold", "amount": 10}),
                true,
            ),
            (
                RESOURCE,
                json!({"flow": "sink", "currency": "gold", "amount": 0, "item_type": "shop", "item_id": "sword"}),
                true,
            ),
            (
                RESOURCE,
                json!({"flow": "sink", "currency": "gold", "amount": -1}),
                false,
            ),
            (
                RESOURCE,
                json!({"flow": "sink", "currency": "gold", "amount": 1e10}),
                false,
            ),
            (
                RESOURCE,
                json!({"flow": "gift", "currency": "gold", "amount": 1}),
                false,
            ),
            (RESOURCE, json!({"currency": "gold", "amount": 1}), false),
            (RESOURCE, json!({"flow": "source", "amount": 1}), false),
            (
                RESOURCE,
                json!({"flow": "source", "currency": "gold"}),
                false,
            ),
            (
                RESOURCE,
                json!({"flow": "source", "currency": "gold", "amount": "1"}),
                false,
            ),
            (
                RESOURCE,
                json!({"flow": "source", "currency": "gold", "amount": 1, "item_id": 7}),
                false,
            ),
        ];
        for (event_name, properties, valid) in cases {
            let validator =
                crate::events::schemas::compile(&schema_of(event_name).unwrap()).unwrap();
            let parsed = match event_name {
                PROGRESSION => Progression::of(event_name, &properties).is_some(),
                _ => Resource::of(event_name, &properties).is_some(),
            };
            assert_eq!(
                validator.is_valid(&properties),
                valid,
                "schema: {properties}"
            );
            assert_eq!(parsed, valid, "parse: {properties}");
        }
    }
}
