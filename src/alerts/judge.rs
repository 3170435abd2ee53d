//! Judging a rule's figures: the baseline over the window, whether the trigger rule is met, and
//! the reason in words. Pure functions over the figures `evaluate` read; `deliver` formats
//! the same numbers.
use super::rules::{AlertType, Watch};
use crate::{
    analytics::{Metric, Point},
    query::round2,
};
use entity::alert_rules;

/// A rule's metric now and its baseline.
#[derive(Debug, Clone)]
pub struct Evaluation {
    pub current: f64,
    pub baseline: f64,
    /// Change of the current value from the baseline, in percent (0 with a zero baseline).
    pub change_percent: f64,
    /// The trigger rule is met.
    pub triggered: bool,
    pub reason: String,
}

/// What a stored rule watches.
pub fn watch_of(rule: &alert_rules::Model) -> Watch {
    Watch::stored(&rule.alert_type, rule.metric.as_deref())
}

/// The baseline over the points before the latest: the average of those with a value (a
/// count always has one; a retention cohort without users or a ratio without users to
/// divide by has none and does not count).
pub(super) fn average(points: &[Point]) -> f64 {
    let values: Vec<f64> = points.iter().filter_map(|p| p.value).collect();
    if values.is_empty() {
        0.0
    } else {
        values.iter().sum::<f64>() / values.len() as f64
    }
}

/// What the figures compare, for the reason line: ("Crashes", "in the last hour vs ...").
fn compared(watch: Watch) -> (String, &'static str) {
    let (what, period) = match watch.kind {
        AlertType::CrashSpike => ("Crashes", "in the last hour vs the hourly average"),
        AlertType::LogErrorSpike => (
            "Log errors and warnings",
            "in the last hour vs the hourly average",
        ),
        AlertType::RevenueDrop => ("Revenue", "in the last 24 hours vs the daily average"),
        AlertType::DauDrop => ("Active users", "in the last 24 hours vs the daily average"),
        AlertType::RetentionDrop => (
            "Day-7 retention (%)",
            "of the newest complete daily cohort vs the cohort average",
        ),
        AlertType::MetricSpike | AlertType::MetricDrop => {
            let period = if watch.metric.return_day().is_some() {
                "of the newest complete daily cohort vs the cohort average"
            } else {
                "on the last complete UTC day vs the daily average"
            };
            return (unit_label(watch.metric), period);
        }
    };
    (what.to_string(), period)
}

/// A metric's name with its unit where it has one, e.g. "Conversion (%)".
fn unit_label(metric: Metric) -> String {
    match metric {
        Metric::RetentionD1 | Metric::RetentionD7 | Metric::RetentionD30 | Metric::Conversion => {
            format!("{} (%)", metric.label())
        }
        Metric::SessionLength => format!("{} (seconds)", metric.label()),
        _ => metric.label().to_string(),
    }
}

pub(super) fn judge(
    watch: Watch,
    threshold: f64,
    current: f64,
    baseline: f64,
    latest: Point,
    window_hours: i64,
) -> Evaluation {
    let kind = watch.kind;
    let (what, period) = compared(watch);
    let change_percent = if baseline > 0.0 {
        round2((current - baseline) * 100.0 / baseline)
    } else {
        0.0
    };
    let limit = baseline * threshold;
    let (triggered, reason) = if kind == AlertType::RetentionDrop && latest.value.is_none() {
        (
            false,
            "The newest complete daily cohort has no users, so there is no retention to compare."
                .to_string(),
        )
    } else if latest.value.is_none() {
        (
            false,
            format!("{what} {period}: the latest day has no value (nothing to divide by, or no users in its cohort), so the rule does not fire."),
        )
    } else if baseline <= 0.0 {
        (false, format!("{what}: the baseline over the previous {window_hours} hours is zero, so the rule does not fire."))
    } else {
        let triggered = if kind.is_spike() {
            current >= limit
        } else {
            current < limit
        };
        let relation = if kind.is_spike() {
            "at or above"
        } else {
            "below"
        };
        let verdict = if triggered {
            "Triggered"
        } else {
            "Not triggered"
        };
        (
            triggered,
            format!(
                "{verdict}: {what} {period} over the previous {window_hours} hours: {} vs {} ({:+.2}%). \
                 The rule fires {relation} {} ({}% of the baseline).",
                number(current),
                number(baseline),
                change_percent,
                number(limit),
                number(threshold * 100.0),
            ),
        )
    };
    Evaluation {
        current: round2(current),
        baseline: round2(baseline),
        change_percent,
        triggered,
        reason,
    }
}

/// A number for people: no trailing zeros beyond two decimals.
pub fn number(value: f64) -> String {
    let text = format!("{:.2}", value);
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}
