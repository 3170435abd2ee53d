//! Strings whose OpenAPI schema says more than "string": timestamps (`format: date-time`) and
//! the fixed sets of words the service speaks (tiers, roles, periods ...), so generated clients
//! get a date type and a union of literals instead of a bare string.
//!
//! On input they read any string, exactly as `String` does: each feature still checks the word
//! and answers its own error text (`order must be higher or lower`), which the interface fixes.
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

/// Declares a string newtype whose schema is a named component listing its words (`enum`).
/// The words are the set the service answers with and accepts; a word outside it is refused by
/// the feature with its own 400, not by the parser.
macro_rules! word_set {
    ($(#[$doc:meta])* $ty:ident = [$($word:literal),+ $(,)?]) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct $ty(pub String);

        impl $ty {
            /// Every word of the set, in the order the spec lists them.
            pub const WORDS: &'static [&'static str] = &[$($word),+];
        }

        string_type!(
            $ty,
            stringify!($ty),
            MetaSchemaRef::Reference(stringify!($ty).to_string()),
            |registry| {
                registry.create_schema::<$ty, _>(stringify!($ty).to_string(), |_| MetaSchema {
                    enum_items: $ty::WORDS.iter().map(|word| Value::String(word.to_string())).collect(),
                    ..MetaSchema::new("string")
                })
            }
        );
    };
}

word_set!(
    /// A game's plan.
    Tier = ["free", "indie", "studio"]
);
word_set!(
    /// Which kind of API key (and of the events it sends).
    Environment = ["development", "production"]
);
word_set!(
    /// A member's role in a game.
    Role = ["owner", "editor", "viewer"]
);
word_set!(
    /// How a game treats events that break their schema.
    EventValidation = ["off", "warn", "enforce"]
);
word_set!(
    /// Which score ranks higher on a board.
    ScoreOrder = ["higher", "lower"]
);
word_set!(
    /// How often a board starts over.
    ResetPeriod = ["daily", "weekly", "monthly", "all_time"]
);
word_set!(
    /// How a funnel counts its steps.
    FunnelMode = ["loose", "strict"]
);
word_set!(
    /// What an alert rule watches.
    AlertType = ["crash_spike", "log_error_spike", "revenue_drop", "dau_drop", "retention_drop"]
);
word_set!(
    /// A player's presence status.
    PresenceStatus = ["playing", "waiting", "idle", "offline"]
);
word_set!(
    /// How a game's players sign in.
    PlayerAuthMode = ["off", "optional", "required"]
);
word_set!(
    /// Whether a leaderboard entry is on the public board or awaits review.
    EntryStatus = ["ok", "suspicious"]
);
word_set!(
    /// Whether an account has chosen its password (`pending`: invited, not yet).
    AccountStatus = ["active", "pending"]
);
