//! Judging a rule: reading its metric, comparing the current value against its baseline and
//! threshold, deciding whether it fires (at most once per 60 minutes across any number of
//! workers), recording the firing in the history, and the worker job that does this for every
//! rule. Sending the notifications of a firing is `deliver`'s.
//!
//! Firing is guarded twice: a short lease in the hot store (`Locks`) keeps two workers from
//! firing the same rule at the same moment, and a conditional update of `last_fired_at` in the
//! cold store (only when it is empty or at least 60 minutes old, as `state.now()` sees it)
//! decides the cooldown durably, even if the lease expired or Redis was flushed.
use super::{
    deliver,
    judge::{average, judge, watch_of, Evaluation},
    rules::AlertType,
    AlertError,
};
use crate::{
    analytics::{self, Buckets, Point, Scope},
    http::timestamp,
    query::midnight,
    state::AppState,
};
use chrono::{DateTime, Duration, DurationRound, Utc};
use entity::{alert_history, alert_rules};
use futures_util::StreamExt;
use sea_orm::{sea_query::Expr, ColumnTrait, Condition, EntityTrait, QueryFilter};
use uuid::Uuid;

/// A rule fires at most once per this many minutes.
pub const COOLDOWN_MINUTES: i64 = 60;
/// How long one worker may hold a rule while it fires (sending takes at most ~30 s).
const FIRING_LEASE_SECS: u64 = 120;
/// Rules evaluated at once by the worker.
const PARALLEL_EVALUATIONS: usize = 4;

/// What `evaluate_and_fire` did.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub evaluation: Evaluation,
    pub fired: bool,
    pub reason: String,
    pub history: Option<alert_history::Model>,
    /// How each channel went, when it fired.
    pub delivered: Option<deliver::Delivered>,
}

/// Computes the rule's current value and baseline (DESIGN 3.8):
/// - spikes: count in the last hour against the hourly average over the window before it;
/// - revenue and DAU: the last 24 hours against the daily average over the window before it
///   (the window rounded to whole days, at least one);
/// - retention: day-7 retention of the newest complete UTC-day cohort against the average of
///   the non-empty cohorts of the window's days before it;
/// - the metric kinds: the rule's metric on the last complete UTC day (for a retention metric,
///   of the newest cohort whose day n has ended) against the average of the window's days
///   before it that have a value.
#[tracing::instrument(skip_all, fields(rule_id = %rule.id))]
pub async fn evaluate(
    state: &AppState,
    rule: &alert_rules::Model,
) -> Result<Evaluation, AlertError> {
    let watch = watch_of(rule);
    let now = state
        .now()
        .duration_trunc(Duration::seconds(1))
        .unwrap_or_else(|_| state.now());
    let scope = Scope {
        game_id: rule.game_id,
        environment: rule.environment.clone(),
        event_name: None,
    };
    let hours = i64::from(rule.comparison_window_hours.max(1));
    let days = ((hours + 12) / 24).max(1);
    // Whole UTC days, the newest of them `latest`.
    let days_up_to = |latest: DateTime<Utc>| Buckets {
        start: latest - Duration::days(days),
        seconds: 86_400,
        count: days as usize + 1,
    };
    let today = midnight(now.date_naive());
    let buckets = match watch.kind {
        AlertType::CrashSpike | AlertType::LogErrorSpike => Buckets {
            start: now - Duration::hours(hours + 1),
            seconds: 3600,
            count: hours as usize + 1,
        },
        AlertType::RevenueDrop | AlertType::DauDrop => Buckets {
            start: now - Duration::days(days + 1),
            seconds: 86_400,
            count: days as usize + 1,
        },
        AlertType::RetentionDrop | AlertType::MetricSpike | AlertType::MetricDrop => {
            // A retention cohort is complete once its day n has ended; any other daily metric
            // once its day has.
            let newest = today - Duration::days(watch.metric.return_day().unwrap_or(0) + 1);
            days_up_to(newest)
        }
    };
    let (latest, baseline) = match watch.kind {
        // Counts and sums: the window's total and the latest bucket's, each read as whole
        // hours from the aggregates plus the parts of an hour at its ends.
        AlertType::CrashSpike | AlertType::LogErrorSpike | AlertType::RevenueDrop => {
            let latest_start = buckets.start_of(buckets.count - 1);
            let metric = watch.metric;
            let history =
                analytics::total(&state.db, &scope, metric, buckets.start, latest_start).await?;
            let latest =
                analytics::total(&state.db, &scope, metric, latest_start, buckets.end()).await?;
            (Point::count(latest), history / (buckets.count - 1) as f64)
        }
        AlertType::DauDrop
        | AlertType::RetentionDrop
        | AlertType::MetricSpike
        | AlertType::MetricDrop => {
            let points = analytics::series(&state.db, &scope, watch.metric, buckets, now).await?;
            let (history, latest) = points.split_at(points.len() - 1);
            (latest[0], average(history))
        }
    };
    let current = latest.value.unwrap_or(0.0);
    Ok(judge(
        watch,
        rule.threshold,
        current,
        baseline,
        latest,
        hours,
    ))
}

/// Why a rule of a game whose stored events are still being counted does not fire.
pub const BACKFILL_PENDING: &str = "Not fired: this game's stored events are still being counted into its analytics (after an upgrade or a rebuild), so its figures are partial. The rule can fire once they are counted.";

/// Evaluates the rule and, when its trigger rule is met and it is not cooling down, fires it:
/// e-mail, webhook, history record.
#[tracing::instrument(skip_all, fields(rule_id = %rule.id, game_id = %rule.game_id))]
pub async fn evaluate_and_fire(
    state: &AppState,
    rule: &alert_rules::Model,
) -> Result<Outcome, AlertError> {
    let alert_type = watch_of(rule).kind.as_str();
    let evaluation = match evaluate(state, rule).await {
        Ok(evaluation) => evaluation,
        Err(error) => {
            crate::telemetry::alert_evaluated(alert_type, "error");
            return Err(error);
        }
    };
    let result = if evaluation.triggered {
        "triggered"
    } else {
        "quiet"
    };
    crate::telemetry::alert_evaluated(alert_type, result);
    let not_fired = |reason: String, evaluation: Evaluation| Outcome {
        evaluation,
        fired: false,
        reason,
        history: None,
        delivered: None,
    };
    if !rule.enabled {
        return Ok(not_fired("The rule is disabled.".into(), evaluation));
    }
    // After an upgrade or a rebuild the figures miss the events not yet counted, which would
    // read as a drop (or hide a spike): a rule never fires on them.
    if crate::aggregates::backfill::is_queued(&state.db, rule.game_id).await? {
        return Ok(not_fired(BACKFILL_PENDING.into(), evaluation));
    }
    if !evaluation.triggered {
        return Ok(not_fired(evaluation.reason.clone(), evaluation));
    }
    let now = state.now();
    let lease = format!("alert-fire:{}", rule.id);
    if !state
        .hot
        .locks
        .try_acquire(&lease, FIRING_LEASE_SECS, now)
        .await?
    {
        return Ok(not_fired(
            "Another worker is firing this rule right now.".into(),
            evaluation,
        ));
    }
    let result = fire_unless_cooling_down(state, rule, &evaluation, now).await;
    if let Err(error) = state.hot.locks.release(&lease).await {
        tracing::warn!(error = %error, "releasing the firing lease failed; it expires on its own");
    }
    match result? {
        Some((history, delivered)) => Ok(Outcome {
            reason: evaluation.reason.clone(),
            evaluation,
            fired: true,
            history: Some(history),
            delivered: Some(delivered),
        }),
        None => {
            let last = alert_rules::Entity::find_by_id(rule.id)
                .one(&state.db)
                .await?
                .and_then(|r| r.last_fired_at);
            let reason = match last {
                Some(at) => format!(
                    "Triggered, but cooling down: the rule fired at {} and can fire again from {}.",
                    timestamp(at),
                    timestamp(at + Duration::minutes(COOLDOWN_MINUTES))
                ),
                None => "Triggered, but cooling down.".into(),
            };
            Ok(not_fired(reason, evaluation))
        }
    }
}

/// Claims the firing in the cold store, then notifies (`deliver`) and records it. `None` when
/// the rule fired less than 60 minutes ago.
async fn fire_unless_cooling_down(
    state: &AppState,
    rule: &alert_rules::Model,
    evaluation: &Evaluation,
    now: DateTime<Utc>,
) -> Result<Option<(alert_history::Model, deliver::Delivered)>, AlertError> {
    let cutoff = now - Duration::minutes(COOLDOWN_MINUTES);
    let claimed = alert_rules::Entity::update_many()
        .col_expr(alert_rules::Column::LastFiredAt, Expr::value(now))
        .filter(alert_rules::Column::Id.eq(rule.id))
        .filter(
            Condition::any()
                .add(alert_rules::Column::LastFiredAt.is_null())
                .add(alert_rules::Column::LastFiredAt.lte(cutoff)),
        )
        .exec(&state.db)
        .await?;
    if claimed.rows_affected == 0 {
        return Ok(None);
    }
    let delivered = deliver::notify(state, rule, evaluation, now).await?;
    let record = alert_history::Model {
        id: Uuid::now_v7(),
        rule_id: rule.id,
        game_id: rule.game_id,
        name: rule.name.clone(),
        alert_type: rule.alert_type.clone(),
        metric: rule.metric.clone(),
        current_value: evaluation.current,
        baseline_value: evaluation.baseline,
        change_percent: evaluation.change_percent,
        email_status: delivered.email_status.as_str().into(),
        webhook_status: delivered.webhook_status.as_str().into(),
        error: delivered.error(),
        triggered_at: now,
    };
    alert_history::Entity::insert(alert_history::ActiveModel::from(record.clone()))
        .exec_without_returning(&state.db)
        .await?;
    tracing::info!(
        email_status = delivered.email_status.as_str(),
        webhook_status = delivered.webhook_status.as_str(),
        "alert fired"
    );
    Ok(Some((record, delivered)))
}

/// One pass of the worker: every enabled rule, a few at a time.
pub async fn run_all(state: &AppState) -> Result<usize, AlertError> {
    let rules = alert_rules::Entity::find()
        .filter(alert_rules::Column::Enabled.eq(true))
        .all(&state.db)
        .await?;
    let fired = futures_util::stream::iter(rules)
        .map(|rule| async move {
            match evaluate_and_fire(state, &rule).await {
                Ok(outcome) => outcome.fired,
                Err(error) => {
                    tracing::warn!(rule_id = %rule.id, error = %error, "alert evaluation failed");
                    false
                }
            }
        })
        .buffer_unordered(PARALLEL_EVALUATIONS)
        .filter(|fired| std::future::ready(*fired))
        .count()
        .await;
    Ok(fired)
}
