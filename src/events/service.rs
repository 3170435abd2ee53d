//! Ingesting one `/v1/track` request: parse, check schemas, reserve quota, commit, answer.
use super::{
    game_api::TrackRequest,
    input::IncomingEvent,
    schemas::Violation,
    writer::{month_of, Committed, EventRequest, WriteError},
    EventError,
};
use crate::{
    auth::api_key::KeyContext,
    games::service::monthly_quota,
    player_id::PlayerId,
    state::AppState,
    telemetry::{self, Refusal},
    words::EventValidation,
};
use chrono::{DateTime, Duration, Utc};
use entity::events;
use serde_json::Value;
use std::sync::Arc;
use uuid::Uuid;

/// A `client_timestamp` further ahead than this is not believed; the receive time is used.
pub const FUTURE_TOLERANCE_MINUTES: i64 = 5;
/// How old a `client_timestamp` may be: a year, so a device offline for weeks still counts
/// its events on their days.
pub const MAX_PAST_DAYS: i64 = 366;

/// The largest purchase amount (either way: refunds are negative) an event may carry: a
/// billion, so a month's revenue of a game at its quota stays far from overflowing.
pub const MAX_PURCHASE_AMOUNT: f64 = 1_000_000_000.0;

/// What an accepted request is answered.
#[derive(Debug)]
pub struct Accepted {
    pub received: u64,
    pub remaining: u64,
    pub limit: u64,
    /// Schema violations of stored events (`warn` mode), empty otherwise.
    pub warnings: Vec<Violation>,
}

#[tracing::instrument(skip_all, fields(game_id = %key.game_id))]
/// `player`: the player of the request's player token, when it carries one: every event is
/// then that player's (one without `player_id` gets it; one naming another is refused, 403).
pub async fn track(
    state: &AppState,
    key: Arc<KeyContext>,
    player: Option<&str>,
    request: TrackRequest,
) -> Result<Accepted, EventError> {
    let events = request.events.len() as u64;
    let result = ingest(state, key, player, request).await;
    match &result {
        Ok(accepted) => telemetry::events_accepted(accepted.received),
        Err(error) => telemetry::events_refused(refusal(error), events),
    }
    result
}

/// Why a request's events were refused, as the metrics count it.
fn refusal(error: &EventError) -> Refusal {
    match error {
        EventError::OverQuota { .. } => Refusal::Quota,
        EventError::OtherPlayer => Refusal::Forbidden,
        EventError::NotStored | EventError::Cold(_) => Refusal::Unavailable,
        _ => Refusal::Validation,
    }
}

async fn ingest(
    state: &AppState,
    key: Arc<KeyContext>,
    player: Option<&str>,
    request: TrackRequest,
) -> Result<Accepted, EventError> {
    let TrackRequest {
        events: mut incoming,
        batch,
    } = request;
    let now = state.now();
    check_values(&incoming, batch, now)?;
    if let Some(player) = player {
        for event in &mut incoming {
            match &event.player_id {
                // A token names a player the service made (a UUID), so this parse holds.
                None => {
                    event.player_id =
                        Some(PlayerId::parse(player).map_err(|_| EventError::OtherPlayer)?)
                }
                Some(named) if named.as_str() == player => {}
                Some(_) => return Err(EventError::OtherPlayer),
            }
        }
    }
    let warnings = check_schemas(state, &key, &incoming).await?;
    let rows: Vec<events::Model> = incoming
        .into_iter()
        .map(|event| row(&key, event, now))
        .collect();
    let received = rows.len() as u64;
    let limit = monthly_quota(key.tier, key.event_quota);
    // The writer reserves the quota and commits in one go, to its end even if the client
    // hangs up meanwhile, so a reservation is always either used or given back.
    let request = EventRequest {
        rows,
        game_id: key.game_id,
        month: month_of(now),
        limit,
    };
    let remaining = match super::ingest(state).writer.write(request).await {
        Ok(Committed::Stored { used }) => limit.saturating_sub(used),
        Ok(Committed::OverQuota { current }) => {
            return Err(EventError::OverQuota { current, limit })
        }
        Err(error) => {
            if let WriteError::Store(cause) = &error {
                tracing::error!(error.cause_chain = ?cause, "events not stored");
            }
            return Err(EventError::NotStored);
        }
    };
    Ok(Accepted {
        received,
        remaining,
        limit,
        warnings,
    })
}

/// Applies the game's `event_validation` mode: `off` checks nothing, `warn` returns the
/// violations to report, `enforce` refuses the request when there are any.
async fn check_schemas(
    state: &AppState,
    key: &KeyContext,
    incoming: &[IncomingEvent],
) -> Result<Vec<Violation>, EventError> {
    if key.event_validation == EventValidation::Off {
        return Ok(Vec::new());
    }
    let schemas = super::ingest(state)
        .schemas
        .for_game(&state.db, key.game_id)
        .await?;
    let standard = || {
        incoming
            .iter()
            .any(|event| super::schemas::has_standard_schema(&event.event_name))
    };
    if schemas.is_empty() && !standard() {
        return Ok(Vec::new());
    }
    let violations = schemas.check(incoming);
    if key.event_validation == EventValidation::Enforce && !violations.is_empty() {
        return Err(EventError::Violations(violations));
    }
    Ok(violations)
}

/// Refuses a request with a value the aggregates cannot count, naming the event (`index`, in
/// a batch) and the field: a `client_timestamp` more than `MAX_PAST_DAYS` old (a device clock
/// set to 1970 would otherwise found cohorts decades ago), or a `purchase` whose numeric
/// `amount` is beyond `MAX_PURCHASE_AMOUNT` either way (one such amount would make the hour's
/// revenue sum overflow, and every later purchase of that hour fail to be stored).
fn check_values(
    incoming: &[IncomingEvent],
    batch: bool,
    now: DateTime<Utc>,
) -> Result<(), EventError> {
    let oldest = now - Duration::days(MAX_PAST_DAYS);
    let refusal = incoming.iter().enumerate().find_map(|(index, event)| {
        if event.client_timestamp.is_some_and(|at| at < oldest) {
            return Some((index, "client_timestamp", format!(
                "client_timestamp must not be more than {MAX_PAST_DAYS} days in the past (the device clock may be wrong)"
            )));
        }
        let amount = purchase_amount(event)?;
        (amount.abs() > MAX_PURCHASE_AMOUNT).then(|| (index, "properties.amount", format!(
            "properties.amount must be between -{MAX_PURCHASE_AMOUNT} and {MAX_PURCHASE_AMOUNT}"
        )))
    });
    let Some((index, field, message)) = refusal else {
        return Ok(());
    };
    Err(EventError::BadValue {
        index: batch.then_some(index),
        field,
        message,
    })
}

/// The revenue a `purchase` event carries: its numeric `properties.amount`.
fn purchase_amount(event: &IncomingEvent) -> Option<f64> {
    match event.event_name.as_str() {
        "purchase" => event.properties.get("amount").and_then(Value::as_f64),
        _ => None,
    }
}

/// The stored row of one event, with the columns metric queries read copied out.
fn row(key: &KeyContext, event: IncomingEvent, now: DateTime<Utc>) -> events::Model {
    let occurred_at = match event.client_timestamp {
        Some(at) if at <= now + Duration::minutes(FUTURE_TOLERANCE_MINUTES) => at,
        _ => now,
    };
    let revenue_amount = purchase_amount(&event);
    let log_level = match event.event_name.as_str() {
        "log" => event
            .properties
            .get("level")
            .and_then(Value::as_str)
            .map(|level| level.trim().to_lowercase().chars().take(32).collect()),
        _ => None,
    };
    events::Model {
        id: Uuid::now_v7(),
        game_id: key.game_id,
        api_key_id: key.key_id,
        environment: key.environment.as_str().into(),
        actor_id: event
            .player_id
            .as_ref()
            .map_or_else(|| event.session_id.clone(), |player| player.to_string()),
        event_name: event.event_name,
        event_id: event.event_id,
        player_id: event.player_id.map(PlayerId::into_string),
        session_id: event.session_id,
        properties: Value::Object(event.properties),
        revenue_amount,
        log_level,
        occurred_at,
        received_at: now,
    }
}
