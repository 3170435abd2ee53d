//! Results webhooks: when a board's period ends (its daily, weekly or monthly boundary, a
//! one-time reset, a manual reset) or its tournament's `ends_at` passes, the final standings of
//! the period that ended are POSTed once to the board's `results_webhook`.
//!
//! The worker's pass (`deliver_results`) does it in two steps, both safe on any number of
//! nodes and workers at once:
//! 1. It finds ended periods of boards with a webhook that have no delivery row yet and makes
//!    one, with the standings as the payload. The row is unique by (game, board, period), so an
//!    insert that another worker made first is a no-op: one delivery per ended period.
//! 2. It sends the due rows. A send first claims its row (an UPDATE that sets `claimed_at`
//!    only where it is unclaimed or the claim is stale), so two workers never send one row at
//!    once; a failure records the error and the next attempt (30 s, doubling, at most an hour
//!    apart; `failed` after 10 attempts), a success marks it `delivered`. Every attempt carries
//!    the same `Idempotency-Key` (the row's id), so a receiver can drop a repeat.
use super::{
    boards::Board,
    error::LeaderboardError,
    period::{PeriodRule, ALL_TIME},
    score::Score,
    service::STATUS_OK,
    tournament::TournamentSettings,
};
use crate::{
    http::timestamp,
    notify::webhook,
    state::AppState,
    words::{ResultsDeliveryStatus as DeliveryStatus, ResultsReason as Reason},
};
use chrono::{DateTime, Datelike, Duration, NaiveDate, TimeZone, Utc};
use entity::{
    leaderboard_entries as entries, leaderboard_result_deliveries as deliveries, leaderboards,
};
use sea_orm::{
    sea_query::{Expr, OnConflict},
    ActiveValue::Set,
    ColumnTrait, Condition, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect,
    Statement,
};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use uuid::Uuid;

/// How often the worker looks for ended periods and due deliveries.
pub const DELIVER_EVERY: std::time::Duration = std::time::Duration::from_secs(10);
/// Standings sent per period: the top of the board.
pub const TOP: u64 = 100;
/// Attempts before a delivery is given up as `failed`.
pub const MAX_ATTEMPTS: i32 = 10;
/// The wait after the first failure; it doubles after each further one.
pub const FIRST_RETRY: Duration = Duration::seconds(30);
/// The longest wait between two attempts.
pub const LONGEST_RETRY: Duration = Duration::hours(1);
/// A claim older than this is taken to belong to a worker that died mid-send (a send gives up
/// within about 40 seconds: three tries of 10 s with short waits for 429s).
pub const STALE_CLAIM: Duration = Duration::minutes(2);
/// Due deliveries one pass sends at most.
const SENDS_PER_PASS: u64 = 50;

/// A board's `results_webhook` as a request gives it: an http(s) URL, or empty / none for no
/// webhook. Unless private addresses are allowed, a URL whose host is, or resolves to, an
/// internal address is refused (400), as for alert webhooks; it is checked again on every send.
pub async fn parse_webhook(
    raw: &str,
    allow_private: bool,
) -> Result<Option<String>, LeaderboardError> {
    let raw = raw.trim();
    if raw.is_empty() {
        return Ok(None);
    }
    let url = webhook::parse_url(raw)
        .map_err(|_| LeaderboardError::invalid("results_webhook must be an http or https URL"))?;
    match webhook::check(&url, allow_private, std::time::Duration::from_secs(3)).await {
        Err(webhook::WebhookError::Forbidden) => Err(LeaderboardError::invalid(format!(
            "results_webhook must reach a public address: {} is, or resolves to, a loopback, \
             private, link-local or metadata address. {}",
            url.host_str().unwrap_or_default(),
            webhook::PRIVATE_ADDRESSES_SWITCH
        ))),
        // Unresolvable right now is not proof of anything; the send-time check decides.
        _ => Ok(Some(url.to_string())),
    }
}

/// A period that is over: its key, bounds and why it ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Ended {
    pub period: String,
    pub start: Option<DateTime<Utc>>,
    pub end: DateTime<Utc>,
    pub reason: Reason,
}

/// A period's start and end; either may be open (`None`).
type Bounds = (Option<DateTime<Utc>>, Option<DateTime<Utc>>);

fn midnight(date: NaiveDate) -> DateTime<Utc> {
    Utc.from_utc_datetime(&date.and_hms_opt(0, 0, 0).unwrap_or_default())
}

/// When the period `key` began and was scheduled to end (no manual reset considered); `None`
/// for a key this board's rule cannot place.
fn scheduled_bounds(rule: &PeriodRule, key: &str) -> Option<Bounds> {
    let plain = PeriodRule {
        reset_at: None,
        ..rule.clone()
    };
    if key == ALL_TIME {
        return Some((None, rule.auto_reset_at));
    }
    if let Some(rest) = key.strip_prefix("since-") {
        let start = NaiveDate::parse_from_str(rest, "%Y-%m-%d")
            .map(midnight)
            .or_else(|_| DateTime::parse_from_rfc3339(rest).map(|at| at.with_timezone(&Utc)))
            .ok()?;
        return Some((Some(start), plain.ends_after(start)));
    }
    if key.len() == 10 {
        let day = midnight(NaiveDate::parse_from_str(key, "%Y-%m-%d").ok()?);
        return Some((Some(day), Some(day + Duration::days(1))));
    }
    if let Some((year, week)) = key.split_once("-W") {
        let monday = NaiveDate::from_isoywd_opt(
            year.parse().ok()?,
            week.parse().ok()?,
            chrono::Weekday::Mon,
        )?;
        return Some((
            Some(midnight(monday)),
            Some(midnight(monday) + Duration::days(7)),
        ));
    }
    let first = NaiveDate::parse_from_str(&format!("{key}-01"), "%Y-%m-%d").ok()?;
    let next = if first.month() == 12 {
        NaiveDate::from_ymd_opt(first.year() + 1, 1, 1)
    } else {
        NaiveDate::from_ymd_opt(first.year(), first.month() + 1, 1)
    }?;
    Some((Some(midnight(first)), Some(midnight(next))))
}

/// The bounds of the period `key` and why it ended, if it has ended by `now`. A manual reset
/// inside the period cut it short (only the board's latest reset is known: the worker makes
/// the delivery within seconds, long before a second reset as a rule).
pub fn ended(board: &Board, key: &str, now: DateTime<Utc>) -> Option<Ended> {
    if key == board.current_period(now) {
        return None;
    }
    let rule = board.rule();
    let (start, scheduled_end) = scheduled_bounds(&rule, key)?;
    let cut = rule.reset_at.filter(|reset| {
        start.is_none_or(|start| *reset > start) && scheduled_end.is_none_or(|end| *reset < end)
    });
    let (end, reason) = match (cut, scheduled_end) {
        (Some(reset), _) => (reset, Reason::ManualReset),
        (None, Some(end)) => (end, Reason::PeriodEnd),
        (None, None) => return None,
    };
    (end <= now).then(|| Ended {
        period: key.to_string(),
        start,
        end,
        reason,
    })
}

/// The period a tournament ended in, once its `ends_at` has passed.
pub fn tournament_ended(board: &Board, now: DateTime<Utc>) -> Option<Ended> {
    let settings = TournamentSettings::of(&board.model);
    let end = settings.ends_at.filter(|end| *end <= now)?;
    let last = end - Duration::microseconds(1);
    let rule = board.rule();
    let start = match (rule.starts_at(last), settings.starts_at) {
        (Some(period), Some(tournament)) => Some(period.max(tournament)),
        (period, tournament) => period.or(tournament),
    };
    Some(Ended {
        period: rule.key_at(last),
        start,
        end,
        reason: Reason::TournamentEnd,
    })
}

/// The worker's job: make the deliveries of periods that ended, then send the due ones.
/// Returns how many deliveries this pass sent successfully.
pub async fn deliver_results(state: &AppState) -> Result<u64, LeaderboardError> {
    create_deliveries(state).await?;
    send_due(state).await
}

/// Makes a delivery row for every ended period of a board with a webhook that has none yet and
/// ended after the webhook was set. One query reads the periods still without a delivery (a
/// board's open period, and any that ended since the last pass), not every period of every
/// board: a daily board with a webhook has 365 more a year.
async fn create_deliveries(state: &AppState) -> Result<(), LeaderboardError> {
    let boards = leaderboards::Entity::find()
        .filter(leaderboards::Column::ResultsWebhook.is_not_null())
        .all(&state.db)
        .await?;
    if boards.is_empty() {
        return Ok(());
    }
    let mut undelivered: HashMap<Uuid, Vec<String>> = HashMap::new();
    let backend = state.db.get_database_backend();
    let rows = state
        .db
        .query_all_raw(Statement::from_string(
            backend,
            // Periods archived before the webhook was set ended before it too.
            "SELECT p.board_id AS board_id, p.period AS period FROM leaderboard_periods p \
             JOIN leaderboards b ON b.id = p.board_id \
             WHERE b.results_webhook IS NOT NULL \
             AND (p.archived_at IS NULL OR p.archived_at >= b.results_webhook_set_at) \
             AND NOT EXISTS (SELECT 1 FROM leaderboard_result_deliveries d \
               WHERE d.game_id = b.game_id AND d.board_id = p.board_id AND d.period = p.period)",
        ))
        .await?;
    for row in rows {
        undelivered
            .entry(row.try_get("", "board_id")?)
            .or_default()
            .push(row.try_get("", "period")?);
    }
    let now = state.now();
    let boards = boards
        .into_iter()
        .filter(|model| model.results_webhook_set_at.is_some())
        .map(Board::new)
        .collect::<Result<Vec<_>, _>>()?;
    // Ended tournaments whose delivery is made already, in one query for all of them: a
    // tournament is delivered under its last period's key, which has no period row when
    // nobody scored in it.
    let tournaments: Vec<(Uuid, Ended)> = boards
        .iter()
        .filter_map(|board| tournament_ended(board, now).map(|ended| (board.id(), ended)))
        .collect();
    let delivered = delivered(state, &tournaments).await?;
    for board in &boards {
        let Some(since) = board.model.results_webhook_set_at else {
            continue;
        };
        let keys = undelivered.remove(&board.id()).unwrap_or_default();
        let mut found: Vec<Ended> = keys
            .iter()
            .filter_map(|key| ended(board, key, now))
            .collect();
        // The tournament first: a tournament's last period ends as the tournament.
        if let Some((_, tournament)) = tournaments.iter().find(|(id, _)| *id == board.id()) {
            if !delivered.contains(&(board.id(), tournament.period.clone())) {
                found.insert(0, tournament.clone());
            }
        }
        for period in found {
            if period.end < since {
                continue;
            }
            create(state, board, &period).await?;
            tracing::info!(board_id = %board.id(), period = %period.period, reason = period.reason.as_str(), "leaderboard results to deliver");
        }
    }
    Ok(())
}

/// Which of the (board, period) pairs have a delivery row.
async fn delivered(
    state: &AppState,
    pairs: &[(Uuid, Ended)],
) -> Result<HashSet<(Uuid, String)>, LeaderboardError> {
    if pairs.is_empty() {
        return Ok(HashSet::new());
    }
    let mut any = Condition::any();
    for (board, ended) in pairs {
        any = any.add(
            Condition::all()
                .add(deliveries::Column::BoardId.eq(*board))
                .add(deliveries::Column::Period.eq(ended.period.as_str())),
        );
    }
    Ok(deliveries::Entity::find()
        .select_only()
        .column(deliveries::Column::BoardId)
        .column(deliveries::Column::Period)
        .filter(any)
        .into_tuple::<(Uuid, String)>()
        .all(&state.db)
        .await?
        .into_iter()
        .collect())
}

/// The payload and its row, inserted unless the period has one already (on any node).
async fn create(state: &AppState, board: &Board, period: &Ended) -> Result<(), LeaderboardError> {
    let now = state.now();
    let rows = entries::Entity::find()
        .filter(entries::Column::BoardId.eq(board.id()))
        .filter(entries::Column::Period.eq(period.period.as_str()))
        .filter(entries::Column::Status.eq(STATUS_OK))
        .order_by_asc(entries::Column::SortScore)
        .order_by_asc(entries::Column::ReachedAt)
        .order_by_asc(entries::Column::PlayerId)
        .limit(TOP)
        .all(&state.db)
        .await?;
    let standings: Vec<Value> = rows
        .iter()
        .enumerate()
        .map(|(index, row)| {
            json!({
                "rank": index + 1,
                "player_id": row.player_id,
                "player_name": row.player_name,
                "score": Score(row.score).to_value(),
            })
        })
        .collect();
    let payload = json!({
        "game_id": board.model.game_id,
        "board_name": board.name(),
        "period": period.period,
        "period_start": period.start.map(timestamp),
        "period_end": timestamp(period.end),
        "reason": period.reason.as_str(),
        "entries": standings,
    });
    deliveries::Entity::insert(deliveries::ActiveModel {
        id: Set(Uuid::now_v7()),
        game_id: Set(board.model.game_id),
        board_id: Set(board.id()),
        period: Set(period.period.clone()),
        reason: Set(period.reason.as_str().to_string()),
        payload: Set(payload.to_string()),
        status: Set(DeliveryStatus::Pending.as_str().to_string()),
        attempts: Set(0),
        last_error: Set(None),
        next_attempt_at: Set(now),
        claimed_at: Set(None),
        delivered_at: Set(None),
        created_at: Set(now),
    })
    .on_conflict(
        OnConflict::columns([
            deliveries::Column::GameId,
            deliveries::Column::BoardId,
            deliveries::Column::Period,
        ])
        .do_nothing()
        .to_owned(),
    )
    .exec_without_returning(&state.db)
    .await?;
    Ok(())
}

/// Claimable: pending, due, and unclaimed or claimed too long ago.
fn claimable(now: DateTime<Utc>) -> Condition {
    Condition::all()
        .add(deliveries::Column::Status.eq(DeliveryStatus::Pending.as_str()))
        .add(deliveries::Column::NextAttemptAt.lte(now))
        .add(
            Condition::any()
                .add(deliveries::Column::ClaimedAt.is_null())
                .add(deliveries::Column::ClaimedAt.lt(now - STALE_CLAIM)),
        )
}

/// Sends the due deliveries, each claimed first.
async fn send_due(state: &AppState) -> Result<u64, LeaderboardError> {
    let now = state.now();
    let due = deliveries::Entity::find()
        .filter(claimable(now))
        .order_by_asc(deliveries::Column::NextAttemptAt)
        .limit(SENDS_PER_PASS)
        .all(&state.db)
        .await?;
    let mut delivered = 0;
    for row in due {
        if send(state, row).await? {
            delivered += 1;
        }
    }
    Ok(delivered)
}

/// The wait after `attempts` failed attempts: 30 s, doubling, at most an hour.
pub fn backoff(attempts: i32) -> Duration {
    let doublings = (attempts - 1).clamp(0, 16) as u32;
    (FIRST_RETRY * 2_i32.pow(doublings)).min(LONGEST_RETRY)
}

/// Claims one delivery and sends it; true when it was delivered now.
async fn send(state: &AppState, row: deliveries::Model) -> Result<bool, LeaderboardError> {
    let claimed_at = state.now();
    let claimed = deliveries::Entity::update_many()
        .col_expr(deliveries::Column::ClaimedAt, Expr::value(claimed_at))
        .filter(deliveries::Column::Id.eq(row.id))
        .filter(claimable(claimed_at))
        .exec(&state.db)
        .await?
        .rows_affected;
    if claimed != 1 {
        return Ok(false); // another worker has it
    }
    let url = leaderboards::Entity::find_by_id(row.board_id)
        .one(&state.db)
        .await?
        .and_then(|board| board.results_webhook);
    // Read under the claim: a player's erasure may have rewritten it since the list was read.
    let stored = deliveries::Entity::find_by_id(row.id)
        .one(&state.db)
        .await?
        .map_or(row.payload, |claimed| claimed.payload);
    let payload: Value = serde_json::from_str(&stored).unwrap_or(Value::Null);
    let outcome = match &url {
        None => Err("the board no longer has a results webhook".to_string()),
        Some(url) => webhook::post_json_with(
            url,
            &payload,
            &[("Idempotency-Key", &row.id.to_string())],
            state.settings.allow_private_webhooks,
        )
        .await
        .map_err(|error| error.to_string()),
    };
    let now = state.now();
    let attempts = row.attempts + 1;
    let mut update = deliveries::Entity::update_many()
        .col_expr(deliveries::Column::Attempts, Expr::value(attempts))
        .col_expr(
            deliveries::Column::ClaimedAt,
            Expr::value(Option::<DateTime<Utc>>::None),
        );
    let delivered = outcome.is_ok();
    match outcome {
        Ok(()) => {
            update = update
                .col_expr(
                    deliveries::Column::Status,
                    Expr::value(DeliveryStatus::Delivered.as_str()),
                )
                .col_expr(deliveries::Column::DeliveredAt, Expr::value(now));
        }
        Err(error) => {
            let gave_up = attempts >= MAX_ATTEMPTS || url.is_none();
            tracing::warn!(delivery_id = %row.id, attempts, error = %error, gave_up, "leaderboard results delivery failed");
            update = update
                .col_expr(deliveries::Column::LastError, Expr::value(error))
                .col_expr(
                    deliveries::Column::Status,
                    Expr::value(
                        if gave_up {
                            DeliveryStatus::Failed
                        } else {
                            DeliveryStatus::Pending
                        }
                        .as_str(),
                    ),
                )
                .col_expr(
                    deliveries::Column::NextAttemptAt,
                    Expr::value(now + backoff(attempts)),
                );
        }
    }
    // Only while the claim is still this worker's (a stale one may have been taken over).
    update
        .filter(deliveries::Column::Id.eq(row.id))
        .filter(deliveries::Column::ClaimedAt.eq(claimed_at))
        .exec(&state.db)
        .await?;
    Ok(delivered)
}

/// A board's deliveries, newest first (at most `limit`).
pub async fn history(
    state: &AppState,
    board: &Board,
    limit: u64,
) -> Result<Vec<deliveries::Model>, LeaderboardError> {
    Ok(deliveries::Entity::find()
        .filter(deliveries::Column::BoardId.eq(board.id()))
        .order_by_desc(deliveries::Column::CreatedAt)
        .order_by_desc(deliveries::Column::Id)
        .limit(limit)
        .all(&state.db)
        .await?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text)
            .unwrap()
            .with_timezone(&Utc)
    }

    #[test]
    fn every_kind_of_key_has_its_bounds() {
        let rule = |kind| PeriodRule {
            kind,
            auto_reset_at: None,
            reset_at: None,
            schedule: None,
        };
        let daily = rule(super::super::period::PeriodKind::Daily);
        assert_eq!(
            scheduled_bounds(&daily, "2026-11-27"),
            Some((
                Some(at("2026-11-27T00:00:00Z")),
                Some(at("2026-11-28T00:00:00Z"))
            ))
        );
        assert_eq!(
            scheduled_bounds(&daily, "2026-W53"),
            Some((
                Some(at("2026-12-28T00:00:00Z")),
                Some(at("2027-01-04T00:00:00Z"))
            ))
        );
        assert_eq!(
            scheduled_bounds(&daily, "2026-12"),
            Some((
                Some(at("2026-12-01T00:00:00Z")),
                Some(at("2027-01-01T00:00:00Z"))
            ))
        );
        assert_eq!(
            scheduled_bounds(&daily, "since-2026-11-27T14:30:00.000000Z"),
            Some((
                Some(at("2026-11-27T14:30:00Z")),
                Some(at("2026-11-28T00:00:00Z"))
            ))
        );
        let once = PeriodRule {
            auto_reset_at: Some(at("2026-12-01T00:00:00Z")),
            ..rule(super::super::period::PeriodKind::AllTime)
        };
        assert_eq!(
            scheduled_bounds(&once, ALL_TIME),
            Some((None, Some(at("2026-12-01T00:00:00Z"))))
        );
        assert_eq!(
            scheduled_bounds(&once, "since-2026-12-01"),
            Some((Some(at("2026-12-01T00:00:00Z")), None))
        );
        assert_eq!(scheduled_bounds(&daily, "nonsense"), None);
    }

    #[test]
    fn backoff_doubles_from_30_seconds_up_to_an_hour() {
        assert_eq!(backoff(1), Duration::seconds(30));
        assert_eq!(backoff(2), Duration::seconds(60));
        assert_eq!(backoff(5), Duration::seconds(480));
        assert_eq!(backoff(8), Duration::hours(1));
        assert_eq!(backoff(40), Duration::hours(1));
    }
}
