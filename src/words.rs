//! The fixed sets of words the service speaks (tiers, environments, roles, orders, periods,
//! modes, statuses): one Rust enum per set, declared here once, parsed once where a request or a
//! stored row comes in, and trusted from there on. Features add their own behaviour to them in
//! `impl` blocks of their own (`games::access` orders roles, `alerts::rules` colours alert kinds).
//!
//! Each enum is its own named OpenAPI schema (an `enum` of its words), so generated clients get a
//! union of literals. A request field that takes a word is a `Word<T>`: it reads any string, as
//! `String` does, and the handler turns it into `T` with [`Word::parse`], which refuses a word
//! outside the set with the set's own 400 text (`order must be higher or lower`), at the place
//! and in the order the interface's answers expect. A response field is `T` itself.
use poem_openapi::{
    registry::{MetaSchema, MetaSchemaRef, Registry},
    types::{ParseError, ParseFromJSON, ParseFromParameter, ParseResult, ToJSON, Type},
};
use serde_json::Value;
use std::{borrow::Cow, marker::PhantomData};

/// A word outside its set: a 400 with the set's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidWord(pub &'static str);

crate::error::answers!(InvalidWord => 400);

/// A word read back from a stored row that is not in its set. The service writes those rows
/// from the enum, so this is a fault of the data: logged, answered as an opaque 500.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("stored {set} {word:?} is not one of its words")]
pub struct CorruptWord {
    pub set: &'static str,
    pub word: String,
}

impl From<CorruptWord> for crate::error::ApiError {
    fn from(error: CorruptWord) -> Self {
        Self::internal(error)
    }
}

crate::error::answers!(@poem CorruptWord);

/// What every word set has: its words (in the order the spec lists them) and its refusal.
pub trait WordSet: Type + Copy + 'static {
    /// The set's name (its schema's).
    const SET: &'static str;
    const WORDS: &'static [&'static str];
    /// The 400 text for a word outside the set.
    const REFUSAL: &'static str;

    fn as_str(self) -> &'static str;
    fn from_word(word: &str) -> Option<Self>;

    fn parse(raw: &str) -> Result<Self, InvalidWord> {
        Self::from_word(raw).ok_or(InvalidWord(Self::REFUSAL))
    }

    /// The member a stored row names.
    fn stored(word: &str) -> Result<Self, CorruptWord> {
        Self::from_word(word).ok_or_else(|| CorruptWord {
            set: Self::SET,
            word: word.to_string(),
        })
    }
}

/// Declares a word set: the enum, its words, its refusal text and its OpenAPI schema.
macro_rules! word_set {
    (
        $(#[$doc:meta])*
        $ty:ident { $($(#[$variant_doc:meta])* $variant:ident = $word:literal),+ $(,)? }
        refused: $refusal:literal
    ) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $ty {
            $($(#[$variant_doc])* $variant),+
        }

        impl WordSet for $ty {
            const SET: &'static str = stringify!($ty);
            const WORDS: &'static [&'static str] = &[$($word),+];
            const REFUSAL: &'static str = $refusal;

            fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $word),+
                }
            }
            fn from_word(word: &str) -> Option<Self> {
                match word {
                    $($word => Some(Self::$variant),)+
                    _ => None,
                }
            }
        }

        impl $ty {
            /// Every word of the set, in the order the spec lists them.
            pub const WORDS: &'static [&'static str] = <Self as WordSet>::WORDS;
            /// Every member of the set, in the same order.
            pub const ALL: &'static [Self] = &[$(Self::$variant),+];

            pub fn as_str(self) -> &'static str {
                WordSet::as_str(self)
            }
            /// The member a request names; the set's 400 otherwise.
            pub fn parse(raw: &str) -> Result<Self, InvalidWord> {
                <Self as WordSet>::parse(raw)
            }
            /// The member a stored row names; an opaque 500 (logged) otherwise.
            pub fn stored(word: &str) -> Result<Self, CorruptWord> {
                <Self as WordSet>::stored(word)
            }
        }

        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl Type for $ty {
            const IS_REQUIRED: bool = true;
            type RawValueType = Self;
            type RawElementValueType = Self;

            fn name() -> Cow<'static, str> {
                stringify!($ty).into()
            }
            fn schema_ref() -> MetaSchemaRef {
                MetaSchemaRef::Reference(stringify!($ty).to_string())
            }
            fn register(registry: &mut Registry) {
                registry.create_schema::<Self, _>(stringify!($ty).to_string(), |_| MetaSchema {
                    enum_items: <Self as WordSet>::WORDS
                        .iter()
                        .map(|word| Value::String(word.to_string()))
                        .collect(),
                    ..MetaSchema::new("string")
                })
            }
            fn as_raw_value(&self) -> Option<&Self> {
                Some(self)
            }
            fn raw_element_iter<'a>(&'a self) -> Box<dyn Iterator<Item = &'a Self> + 'a> {
                Box::new(std::iter::once(self))
            }
        }

        impl ParseFromJSON for $ty {
            fn parse_from_json(value: Option<Value>) -> ParseResult<Self> {
                let word = String::parse_from_json(value).map_err(ParseError::propagate)?;
                Self::from_word(&word).ok_or_else(|| ParseError::custom($refusal))
            }
        }

        impl ParseFromParameter for $ty {
            fn parse_from_parameter(value: &str) -> ParseResult<Self> {
                Self::from_word(value).ok_or_else(|| ParseError::custom($refusal))
            }
        }

        impl ToJSON for $ty {
            fn to_json(&self) -> Option<Value> {
                Some(Value::String(self.as_str().to_string()))
            }
        }
    };
}

/// A word of set `T` as a request sends it: any string, read as `String` reads it, with `T`'s
/// schema. [`Word::parse`] makes it a `T` or the set's 400.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word<T>(pub String, PhantomData<T>);

impl<T: WordSet> Word<T> {
    pub fn parse(&self) -> Result<T, InvalidWord> {
        T::parse(&self.0)
    }
}

impl<T> From<&str> for Word<T> {
    fn from(word: &str) -> Self {
        Self(word.to_string(), PhantomData)
    }
}

impl<T: WordSet + Send + Sync> Type for Word<T> {
    const IS_REQUIRED: bool = true;
    type RawValueType = String;
    type RawElementValueType = String;

    fn name() -> Cow<'static, str> {
        T::name()
    }
    fn schema_ref() -> MetaSchemaRef {
        T::schema_ref()
    }
    fn register(registry: &mut Registry) {
        T::register(registry)
    }
    fn as_raw_value(&self) -> Option<&String> {
        Some(&self.0)
    }
    fn raw_element_iter<'a>(&'a self) -> Box<dyn Iterator<Item = &'a String> + 'a> {
        Box::new(std::iter::once(&self.0))
    }
}

impl<T: WordSet + Send + Sync> ParseFromJSON for Word<T> {
    fn parse_from_json(value: Option<Value>) -> ParseResult<Self> {
        String::parse_from_json(value)
            .map(|word| Self(word, PhantomData))
            .map_err(ParseError::propagate)
    }
}

impl<T: WordSet + Send + Sync> ParseFromParameter for Word<T> {
    fn parse_from_parameter(value: &str) -> ParseResult<Self> {
        Ok(Self(value.to_string(), PhantomData))
    }
}

impl<T: WordSet + Send + Sync> ToJSON for Word<T> {
    fn to_json(&self) -> Option<Value> {
        Some(Value::String(self.0.clone()))
    }
}

word_set!(
    /// A game's plan.
    Tier { Free = "free", Indie = "indie", Studio = "studio" }
    refused: "tier must be one of: free, indie, studio"
);
word_set!(
    /// Which kind of API key (and of the events it sends).
    Environment { Development = "development", Production = "production" }
    refused: "environment must be development or production"
);
word_set!(
    /// A member's role in a game: `owner` (keys, members, delete), `editor` (definitions),
    /// `viewer` (read). `games::access` orders them.
    Role { Owner = "owner", Editor = "editor", Viewer = "viewer" }
    refused: "role must be one of: owner, editor, viewer"
);
word_set!(
    /// How a game treats events that break their schema.
    EventValidation { Off = "off", Warn = "warn", Enforce = "enforce" }
    refused: "event_validation must be one of: off, warn, enforce"
);
word_set!(
    /// Which score ranks higher on a board.
    ScoreOrder { Higher = "higher", Lower = "lower" }
    refused: "order must be higher or lower"
);
word_set!(
    /// What a submitted score does to the player's entry on a board.
    ScoreOperator {
        /// Kept only when better than the stored score (the interface's rule, the default).
        Best = "best",
        /// Replaces the stored score.
        Latest = "latest",
        /// Added to the stored score (from 0).
        Increment = "increment",
        /// Subtracted from the stored score (from 0).
        Decrement = "decrement",
    }
    refused: "operator must be best, latest, increment or decrement"
);
word_set!(
    /// How often a board starts over.
    ResetPeriod { Daily = "daily", Weekly = "weekly", Monthly = "monthly", AllTime = "all_time" }
    refused: "period must be daily, weekly, monthly or all_time"
);
word_set!(
    /// How a funnel counts its steps.
    FunnelMode {
        /// Steps in any order, repeats counted once.
        Loose = "loose",
        /// Steps in the defined order, each after the previous one.
        Strict = "strict",
    }
    refused: "mode must be loose or strict"
);
word_set!(
    /// What an alert rule watches (interface 2.9).
    AlertType {
        CrashSpike = "crash_spike",
        LogErrorSpike = "log_error_spike",
        RevenueDrop = "revenue_drop",
        DauDrop = "dau_drop",
        RetentionDrop = "retention_drop",
        /// Any metric (the rule's `metric`) by day, rising to the threshold.
        MetricSpike = "metric_spike",
        /// Any metric (the rule's `metric`) by day, falling below the threshold.
        MetricDrop = "metric_drop",
    }
    refused: "type must be one of: crash_spike, log_error_spike, revenue_drop, dau_drop, retention_drop, metric_spike, metric_drop"
);
word_set!(
    /// A player's presence status. A game sets `playing`, `waiting` or `idle`; `offline` is what
    /// an entry reads as after 10 minutes of silence, and cannot be set.
    PresenceStatus { Playing = "playing", Waiting = "waiting", Idle = "idle", Offline = "offline" }
    refused: "status must be one of: playing, waiting, idle"
);
word_set!(
    /// How a game's players sign in.
    PlayerAuthMode {
        /// No player tokens: the key alone acts as any player (the default, the interface's
        /// behaviour).
        Off = "off",
        /// Tokens are issued; a request that carries one acts only as its player.
        Optional = "optional",
        /// As `Optional`, and player-scoped routes refuse requests without a token.
        Required = "required",
    }
    refused: "player_auth must be one of: off, optional, required"
);
word_set!(
    /// Whether a leaderboard entry is on the public board or awaits review.
    EntryStatus { Ok = "ok", Suspicious = "suspicious" }
    refused: "status must be ok or suspicious"
);
word_set!(
    /// Where a tournament board stands in its time: before `starts_at`, between, or from
    /// `ends_at` on.
    TournamentState { Upcoming = "upcoming", Live = "live", Ended = "ended" }
    refused: "state must be upcoming, live or ended"
);
word_set!(
    /// Why a board's results were sent to its results webhook: its period reached its end, an
    /// editor reset it by hand, or its tournament ended.
    ResultsReason {
        PeriodEnd = "period_end",
        ManualReset = "manual_reset",
        TournamentEnd = "tournament_end",
    }
    refused: "reason must be period_end, manual_reset or tournament_end"
);
word_set!(
    /// Where a results webhook delivery stands: `pending` (to send or retry), `delivered`, or
    /// `failed` (given up).
    ResultsDeliveryStatus { Pending = "pending", Delivered = "delivered", Failed = "failed" }
    refused: "status must be pending, delivered or failed"
);
word_set!(
    /// Which entries a moderation listing shows: one `EntryStatus`, or `all`.
    EntryFilter { Ok = "ok", Suspicious = "suspicious", All = "all" }
    refused: "status must be ok, suspicious or all"
);
word_set!(
    /// Whether an account has chosen its password (`pending`: invited, not yet).
    AccountStatus { Active = "active", Pending = "pending" }
    refused: "status must be active or pending"
);
word_set!(
    /// What became of one notification (an e-mail, a webhook call): `skipped` when there was
    /// nothing to send it with (no SMTP server configured, no webhook).
    DeliveryStatus { Sent = "sent", Skipped = "skipped", Failed = "failed" }
    refused: "status must be sent, skipped or failed"
);
