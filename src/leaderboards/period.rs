//! Board periods. Every entry is stored under the key of the period it was submitted in, so a
//! reset is nothing but the clock crossing a boundary: the new period's key starts empty, with
//! no job to race against. Keys: daily `YYYY-MM-DD`, weekly ISO `YYYY-Www` (weeks start Monday
//! 00:00 UTC), monthly `YYYY-MM`, all-time `all_time`; an all-time board with an auto-reset date
//! switches once, at that instant, to `since-<date>`. A board with a cron reset schedule
//! (`reset_schedule.rs`) keys each period by its start, `since-<start>`, as the one-time reset
//! does: the schedule's last firing, or the board's creation when that came later.
use super::reset_schedule::ResetSchedule;
use chrono::{DateTime, Datelike, Duration, NaiveDate, TimeZone, Timelike, Utc};

pub const ALL_TIME: &str = "all_time";

/// How often a board starts over: the `ResetPeriod` word set.
pub use crate::words::ResetPeriod as PeriodKind;

/// A board's period settings: enough to name the current period and tell when it ends.
#[derive(Debug, Clone, PartialEq)]
pub struct PeriodRule {
    pub kind: PeriodKind,
    pub auto_reset_at: Option<DateTime<Utc>>,
    /// A reset by hand: the period it falls in ends then, and a new one (`since-<instant>`)
    /// runs until the period's own end.
    pub reset_at: Option<DateTime<Utc>>,
    /// A cron reset schedule, in place of `kind` (stored as `all_time` then).
    pub schedule: Option<Scheduled>,
}

/// A board's reset schedule and when the board was made: its first period starts then.
#[derive(Debug, Clone, PartialEq)]
pub struct Scheduled {
    pub cron: ResetSchedule,
    pub since: DateTime<Utc>,
}

impl Scheduled {
    /// When the period `now` falls in began: the last firing, or the board's creation when
    /// that came later.
    fn start(&self, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let last = self.cron.last_at_or_before(now);
        if now < self.since {
            return last;
        }
        Some(last.map_or(self.since, |last| last.max(self.since)))
    }
}

impl PeriodRule {
    /// The key of the period `now` falls in.
    pub fn key_at(&self, now: DateTime<Utc>) -> String {
        match self.reset_within(now) {
            Some(reset) => format!("since-{}", reset.format("%Y-%m-%dT%H:%M:%S%.6fZ")),
            None => self.scheduled_key_at(now),
        }
    }

    /// The manual reset that started the current period, if one did (it came after the
    /// period's scheduled start).
    fn reset_within(&self, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let reset = self.reset_at.filter(|at| *at <= now)?;
        match self.scheduled_start(now) {
            Some(start) if start >= reset => None,
            _ => Some(reset),
        }
    }

    /// When the current period began: its scheduled start or the manual reset after it;
    /// `None` for an all-time board never reset.
    pub fn starts_at(&self, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        self.reset_within(now).or_else(|| self.scheduled_start(now))
    }

    fn scheduled_start(&self, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let today = now.date_naive();
        let day =
            |date: NaiveDate| Utc.from_utc_datetime(&date.and_hms_opt(0, 0, 0).unwrap_or_default());
        if let Some(schedule) = &self.schedule {
            return schedule.start(now);
        }
        match self.kind {
            PeriodKind::Daily => Some(day(today)),
            PeriodKind::Weekly => {
                Some(day(today
                    - Duration::days(
                        today.weekday().num_days_from_monday() as i64
                    )))
            }
            PeriodKind::Monthly => NaiveDate::from_ymd_opt(today.year(), today.month(), 1).map(day),
            PeriodKind::AllTime => self.auto_reset_at.filter(|at| now >= *at),
        }
    }

    fn scheduled_key_at(&self, now: DateTime<Utc>) -> String {
        if let Some(schedule) = &self.schedule {
            return schedule
                .start(now)
                .map_or_else(|| ALL_TIME.to_string(), since_key);
        }
        match self.kind {
            PeriodKind::Daily => now.format("%Y-%m-%d").to_string(),
            PeriodKind::Weekly => {
                let week = now.iso_week();
                format!("{:04}-W{:02}", week.year(), week.week())
            }
            PeriodKind::Monthly => now.format("%Y-%m").to_string(),
            PeriodKind::AllTime => match self.auto_reset_at {
                Some(at) if now >= at => since_key(at),
                _ => ALL_TIME.to_string(),
            },
        }
    }

    /// When the period `now` falls in ends; `None` for an all-time period with no reset ahead.
    pub fn ends_after(&self, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let today = now.date_naive();
        let day =
            |date: NaiveDate| Utc.from_utc_datetime(&date.and_hms_opt(0, 0, 0).unwrap_or_default());
        if let Some(schedule) = &self.schedule {
            return schedule.cron.next_after(now);
        }
        match self.kind {
            PeriodKind::Daily => Some(day(today) + Duration::days(1)),
            PeriodKind::Weekly => {
                let monday = today - Duration::days(today.weekday().num_days_from_monday() as i64);
                Some(day(monday) + Duration::days(7))
            }
            PeriodKind::Monthly => {
                let (year, month) = if today.month() == 12 {
                    (today.year() + 1, 1)
                } else {
                    (today.year(), today.month() + 1)
                };
                NaiveDate::from_ymd_opt(year, month, 1).map(day)
            }
            PeriodKind::AllTime => self.auto_reset_at.filter(|at| now < *at),
        }
    }
}

/// The key an all-time board uses from its auto-reset instant on.
pub fn since_key(at: DateTime<Utc>) -> String {
    if at.num_seconds_from_midnight() == 0 && at.nanosecond() == 0 {
        format!("since-{}", at.format("%Y-%m-%d"))
    } else {
        format!("since-{}", at.format("%Y-%m-%dT%H:%M:%SZ"))
    }
}

/// True when `key` is shaped like a period key of any kind (a board may have changed kind,
/// so its archive can hold keys of several).
pub fn is_period_key(key: &str) -> bool {
    if key == ALL_TIME {
        return true;
    }
    if let Some(rest) = key.strip_prefix("since-") {
        return NaiveDate::parse_from_str(rest, "%Y-%m-%d").is_ok()
            || DateTime::parse_from_rfc3339(rest).is_ok();
    }
    if NaiveDate::parse_from_str(key, "%Y-%m-%d").is_ok() && key.len() == 10 {
        return true;
    }
    if let Some((year, week)) = key.split_once("-W") {
        let (Ok(year), Ok(week)) = (year.parse::<i32>(), week.parse::<u32>()) else {
            return false;
        };
        return year.to_string().len() == 4
            && week.to_string().len() <= 2
            && key.len() == 8
            && NaiveDate::from_isoywd_opt(year, week, chrono::Weekday::Mon).is_some();
    }
    key.len() == 7 && NaiveDate::parse_from_str(&format!("{key}-01"), "%Y-%m-%d").is_ok()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text)
            .unwrap()
            .with_timezone(&Utc)
    }

    #[test]
    fn keys_and_ends_per_kind() {
        let rule = |kind| PeriodRule {
            kind,
            auto_reset_at: None,
            reset_at: None,
            schedule: None,
        };
        let now = at("2026-01-01T10:00:00Z"); // a Thursday in ISO week 2026-W01
        assert_eq!(rule(PeriodKind::Daily).key_at(now), "2026-01-01");
        assert_eq!(
            rule(PeriodKind::Daily).ends_after(now),
            Some(at("2026-01-02T00:00:00Z"))
        );
        assert_eq!(rule(PeriodKind::Weekly).key_at(now), "2026-W01");
        assert_eq!(
            rule(PeriodKind::Weekly).ends_after(now),
            Some(at("2026-01-05T00:00:00Z"))
        );
        assert_eq!(
            rule(PeriodKind::Weekly).key_at(at("2027-01-01T10:00:00Z")),
            "2026-W53"
        );
        assert_eq!(rule(PeriodKind::Monthly).key_at(now), "2026-01");
        assert_eq!(
            rule(PeriodKind::Monthly).ends_after(at("2026-12-31T23:59:59Z")),
            Some(at("2027-01-01T00:00:00Z"))
        );
        assert_eq!(rule(PeriodKind::AllTime).key_at(now), "all_time");
        assert_eq!(rule(PeriodKind::AllTime).ends_after(now), None);
    }

    #[test]
    fn all_time_resets_once_at_its_date() {
        let reset = at("2026-02-01T00:00:00Z");
        let rule = PeriodRule {
            kind: PeriodKind::AllTime,
            auto_reset_at: Some(reset),
            reset_at: None,
            schedule: None,
        };
        assert_eq!(rule.key_at(reset - Duration::seconds(1)), "all_time");
        assert_eq!(rule.ends_after(reset - Duration::seconds(1)), Some(reset));
        assert_eq!(rule.key_at(reset), "since-2026-02-01");
        assert_eq!(rule.key_at(reset + Duration::days(400)), "since-2026-02-01");
        assert_eq!(rule.ends_after(reset), None);
    }

    #[test]
    fn a_manual_reset_starts_a_period_until_the_scheduled_end() {
        let reset = at("2026-01-01T14:30:00Z");
        let rule = PeriodRule {
            kind: PeriodKind::Daily,
            auto_reset_at: None,
            reset_at: Some(reset),
            schedule: None,
        };
        let after = at("2026-01-01T15:00:00Z");
        assert_eq!(rule.key_at(after), "since-2026-01-01T14:30:00.000000Z");
        assert!(is_period_key(&rule.key_at(after)));
        assert_eq!(rule.starts_at(after), Some(reset));
        assert_eq!(rule.ends_after(after), Some(at("2026-01-02T00:00:00Z")));
        assert_eq!(rule.key_at(at("2026-01-01T14:00:00Z")), "2026-01-01");
        assert_eq!(rule.key_at(at("2026-01-02T01:00:00Z")), "2026-01-02");
        assert_eq!(
            rule.starts_at(at("2026-01-02T01:00:00Z")),
            Some(at("2026-01-02T00:00:00Z"))
        );
        let all_time = PeriodRule {
            kind: PeriodKind::AllTime,
            ..rule.clone()
        };
        assert_eq!(all_time.starts_at(at("2025-12-01T00:00:00Z")), None);
        assert_eq!(all_time.starts_at(after), Some(reset));
        assert_eq!(all_time.ends_after(after), None);
    }

    #[test]
    fn a_scheduled_period_runs_from_a_firing_or_the_creation_to_the_next_firing() {
        let created = at("2026-11-25T10:00:00.123Z"); // a Wednesday
        let rule = PeriodRule {
            kind: PeriodKind::AllTime,
            auto_reset_at: None,
            reset_at: None,
            schedule: Some(Scheduled {
                cron: ResetSchedule::parse("0 18 * * FRI").unwrap(),
                since: created,
            }),
        };
        let first = at("2026-11-26T09:00:00Z");
        assert_eq!(rule.starts_at(first), Some(created));
        assert_eq!(rule.key_at(first), "since-2026-11-25T10:00:00Z");
        assert_eq!(rule.ends_after(first), Some(at("2026-11-27T18:00:00Z")));
        let second = at("2026-11-27T18:00:00Z");
        assert_eq!(rule.starts_at(second), Some(second));
        assert_eq!(rule.key_at(second), "since-2026-11-27T18:00:00Z");
        assert!(is_period_key(&rule.key_at(second)));
        assert_eq!(rule.ends_after(second), Some(at("2026-12-04T18:00:00Z")));
        // A manual reset inside a scheduled period lasts until the next firing.
        let reset = at("2026-11-30T12:00:00Z");
        let reset_rule = PeriodRule {
            reset_at: Some(reset),
            ..rule.clone()
        };
        let after = at("2026-12-01T00:00:00Z");
        assert_eq!(reset_rule.starts_at(after), Some(reset));
        assert_eq!(
            reset_rule.ends_after(after),
            Some(at("2026-12-04T18:00:00Z"))
        );
        assert_eq!(
            reset_rule.key_at(at("2026-12-04T18:00:00Z")),
            "since-2026-12-04T18:00:00Z"
        );
    }

    #[test]
    fn period_keys_are_recognised() {
        for good in [
            "2026-11-21",
            "2026-W47",
            "2026-W01",
            "2026-11",
            "all_time",
            "since-2026-02-01",
            "since-2026-02-01T10:00:00Z",
        ] {
            assert!(is_period_key(good), "{good}");
        }
        for bad in [
            "",
            "today",
            "2026-13",
            "2026-W60",
            "2026-11-32",
            "2026-W1x",
            "since-",
            "2026-11-21T00:00:00Z",
            "21-11-2026",
        ] {
            assert!(!is_period_key(bad), "{bad}");
        }
    }
}
