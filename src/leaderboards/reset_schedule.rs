//! Cron-style reset schedules: a board may start over at the firings of a 5-field cron
//! expression in UTC (`0 18 * * FRI`: every Friday 18:00) instead of one of the four periods.
//! Parsing and the search for firings are the `croner` crate's (the one tokio-cron-scheduler
//! uses); this file only sets its rules: 5 fields, at least an hour between firings, and a
//! firing at all.
use super::error::LeaderboardError;
use chrono::{DateTime, Duration, DurationRound, Utc};
use croner::{
    parser::{CronParser, Seconds, Year},
    Cron,
};
use std::sync::Arc;

/// The least time between two firings: a board resetting every minute is a mistake.
pub const MIN_GAP: Duration = Duration::hours(1);

/// A parsed schedule and the text it was given as (stored and answered as given).
#[derive(Debug, Clone)]
pub struct ResetSchedule(Arc<(String, Cron)>);

impl PartialEq for ResetSchedule {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

fn parser() -> CronParser {
    CronParser::builder()
        .seconds(Seconds::Disallowed)
        .year(Year::Disallowed)
        .build()
}

fn invalid(why: impl std::fmt::Display) -> LeaderboardError {
    LeaderboardError::invalid(format!(
        "reset_schedule must be a cron expression of 5 fields in UTC (minute hour day-of-month \
         month day-of-week), e.g. \"0 18 * * FRI\": {why}"
    ))
}

impl ResetSchedule {
    /// A schedule as an editor gives it: 400 naming `reset_schedule` when it is not a 5-field
    /// cron expression, never fires, or fires less than `MIN_GAP` apart.
    pub fn parse(raw: &str) -> Result<Self, LeaderboardError> {
        let text = raw.trim();
        if text.chars().count() > 100 {
            return Err(invalid("at most 100 characters"));
        }
        let cron = parser().parse(text).map_err(invalid)?;
        let schedule = Self(Arc::new((text.to_string(), cron)));
        // The minute field is the same in every hour the expression matches, so firings less
        // than an hour apart show among the first three after any instant: either the first two
        // share an hour, or the second opens an hour the third shares.
        let reference = DateTime::<Utc>::UNIX_EPOCH + Duration::days(20_000);
        let first = schedule.next_after(reference).ok_or_else(|| {
            LeaderboardError::invalid(format!("reset_schedule never fires: \"{text}\""))
        })?;
        let second = schedule.next_after(first);
        let third = second.and_then(|at| schedule.next_after(at));
        for (earlier, later) in [(Some(first), second), (second, third)] {
            if let (Some(earlier), Some(later)) = (earlier, later) {
                if later - earlier < MIN_GAP {
                    return Err(LeaderboardError::invalid(format!(
                        "reset_schedule must fire at most once an hour: \"{text}\" fires {} \
                         minutes apart",
                        (later - earlier).num_minutes()
                    )));
                }
            }
        }
        Ok(schedule)
    }

    /// `parse` on a blocking thread: proving that an expression never fires searches years
    /// ahead (tens of milliseconds), which must not hold up the request runtime.
    pub async fn parse_blocking(raw: String) -> Result<Self, LeaderboardError> {
        match tokio::task::spawn_blocking(move || Self::parse(&raw)).await {
            Ok(parsed) => parsed,
            Err(failed) => std::panic::resume_unwind(failed.into_panic()),
        }
    }

    /// A schedule read back from a stored row (checked when it was stored).
    pub fn stored(raw: &str) -> Result<Self, crate::words::CorruptWord> {
        parser()
            .parse(raw)
            .map(|cron| Self(Arc::new((raw.to_string(), cron))))
            .map_err(|_| crate::words::CorruptWord {
                set: "reset_schedule",
                word: raw.to_string(),
            })
    }

    pub fn as_str(&self) -> &str {
        &self.0 .0
    }

    /// The last firing at or before `now`.
    pub fn last_at_or_before(&self, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        self.0
             .1
            .find_previous_occurrence(&whole_second(now), true)
            .ok()
    }

    /// The first firing after `now`.
    pub fn next_after(&self, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        self.0
             .1
            .find_next_occurrence(&whole_second(now), false)
            .ok()
    }
}

/// Firings fall on whole minutes; the search keeps any fraction of a second it is given, so
/// it is given none.
fn whole_second(at: DateTime<Utc>) -> DateTime<Utc> {
    at.duration_trunc(Duration::seconds(1)).unwrap_or(at)
}

#[cfg(test)]
mod tests {
    use super::super::period::tests::at;
    use super::*;

    #[test]
    fn firings_around_an_instant() {
        let friday = ResetSchedule::parse("0 18 * * FRI").unwrap();
        // 2026-11-27 is a Friday.
        let before = at("2026-11-27T17:59:59.900Z");
        assert_eq!(
            friday.last_at_or_before(before),
            Some(at("2026-11-20T18:00:00Z"))
        );
        assert_eq!(friday.next_after(before), Some(at("2026-11-27T18:00:00Z")));
        let on_it = at("2026-11-27T18:00:00.250Z");
        assert_eq!(
            friday.last_at_or_before(on_it),
            Some(at("2026-11-27T18:00:00Z"))
        );
        assert_eq!(friday.next_after(on_it), Some(at("2026-12-04T18:00:00Z")));
    }

    #[test]
    fn refusals_name_the_field() {
        for (raw, says) in [
            ("", "5 fields"),
            ("0 18 * *", "5 fields"),
            ("0 0 18 * * FRI", "5 fields"),
            ("61 * * * *", "5 fields"),
            ("0 0 30 2 *", "never fires"),
            ("* * * * *", "1 minutes apart"),
            ("*/30 * * * *", "30 minutes apart"),
            ("0,59 * * * *", "1 minutes apart"),
        ] {
            let error = ResetSchedule::parse(raw).unwrap_err().to_string();
            assert!(error.starts_with("reset_schedule "), "{raw}: {error}");
            assert!(error.contains(says), "{raw}: {error}");
        }
        for good in [
            "0 * * * *",
            "@weekly",
            "0 18 * * fri",
            "30 23 L * *",
            "0 0 29 2 *",
        ] {
            assert!(ResetSchedule::parse(good).is_ok(), "{good}");
        }
    }
}
