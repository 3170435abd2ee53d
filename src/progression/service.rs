//! The progression report: the steps' counts summed over a range of days from
//! `analytics_progression_days`, so a read costs the days times the steps shown.
use crate::query::round2;
use chrono::NaiveDate;
use sea_orm::{ConnectionTrait, DbErr};
use std::cmp::Ordering;
use uuid::Uuid;

/// One step's figures over the range.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// `level1` to `level3` as sent (one to three names).
    pub levels: Vec<String>,
    pub starts: u64,
    pub completes: u64,
    pub fails: u64,
    /// Fails as a percent of the step's completes and fails; none without either.
    pub fail_rate: Option<f64>,
    /// The average `attempt` of the completes that carried one; none without any.
    pub average_attempts: Option<f64>,
}

/// Every step with events in the days `from..=to` of the game (one environment, or both),
/// ordered by their level names, numbers in them compared as numbers (`level 2` before
/// `level 10`).
pub async fn steps(
    db: &impl ConnectionTrait,
    game_id: Uuid,
    environment: Option<&str>,
    from: NaiveDate,
    to: NaiveDate,
) -> Result<Vec<Step>, DbErr> {
    let rows = crate::query::day_rows(
        db,
        (
            "level1, level2, level3, CAST(SUM(starts) AS BIGINT) AS starts, \
             CAST(SUM(completes) AS BIGINT) AS completes, CAST(SUM(fails) AS BIGINT) AS fails, \
             CAST(SUM(attempt_completes) AS BIGINT) AS attempt_completes, \
             CAST(SUM(attempts) AS BIGINT) AS attempts",
            "analytics_progression_days",
            "level1, level2, level3",
        ),
        game_id,
        environment,
        (from, to),
    )
    .await?;
    let mut steps = rows
        .iter()
        .map(|row| {
            let count = |column| row.try_get::<i64>("", column).map(|n| n.max(0) as u64);
            let levels = ["level1", "level2", "level3"]
                .into_iter()
                .map(|column| row.try_get::<String>("", column))
                .filter(|level| !matches!(level.as_deref(), Ok("")))
                .collect::<Result<Vec<_>, _>>()?;
            let (completes, fails) = (count("completes")?, count("fails")?);
            let (attempt_completes, attempts) = (count("attempt_completes")?, count("attempts")?);
            Ok(Step {
                levels,
                starts: count("starts")?,
                completes,
                fails,
                fail_rate: (completes + fails > 0)
                    .then(|| round2(100.0 * fails as f64 / (completes + fails) as f64)),
                average_attempts: (attempt_completes > 0)
                    .then(|| round2(attempts as f64 / attempt_completes as f64)),
            })
        })
        .collect::<Result<Vec<_>, DbErr>>()?;
    steps.sort_by(|a, b| {
        let pairs = a.levels.iter().zip(&b.levels);
        pairs
            .map(|(a, b)| natural_order(a, b))
            .find(|order| order.is_ne())
            .unwrap_or_else(|| a.levels.len().cmp(&b.levels.len()))
    });
    Ok(steps)
}

/// Names compared with their runs of digits as numbers: `level 2` before `level 10`.
pub fn natural_order(a: &str, b: &str) -> Ordering {
    fn runs(text: &str) -> Vec<(bool, &str)> {
        let mut runs = Vec::new();
        let mut start = 0;
        let mut digits = None;
        for (at, c) in text.char_indices() {
            let is_digit = c.is_ascii_digit();
            if digits.is_some_and(|d| d != is_digit) {
                runs.push((digits.unwrap_or(false), &text[start..at]));
                start = at;
            }
            digits = Some(is_digit);
        }
        if start < text.len() {
            runs.push((digits.unwrap_or(false), &text[start..]));
        }
        runs
    }
    let (a_runs, b_runs) = (runs(a), runs(b));
    for (x, y) in a_runs.iter().zip(&b_runs) {
        let order = match (x, y) {
            ((true, x), (true, y)) => {
                let (x, y) = (x.trim_start_matches('0'), y.trim_start_matches('0'));
                x.len().cmp(&y.len()).then_with(|| x.cmp(y))
            }
            ((_, x), (_, y)) => x.cmp(y),
        };
        if order.is_ne() {
            return order;
        }
    }
    a_runs.len().cmp(&b_runs.len()).then_with(|| a.cmp(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_in_names_order_as_numbers() {
        let mut names = vec![
            "level 10",
            "level 2",
            "boss",
            "level 1",
            "level 02b",
            "World",
        ];
        names.sort_by(|a, b| natural_order(a, b));
        assert_eq!(
            names,
            [
                "World",
                "boss",
                "level 1",
                "level 2",
                "level 02b",
                "level 10"
            ]
        );
    }
}
