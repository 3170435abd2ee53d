//! `GET /v1/games/{game_id}/retention`: the retention grid (cohort table) of a range of days
//! (dashboard, members): per cohort day, its size and the share of it active again on each of
//! days 1 to 30, read from the cohort counters kept at ingest, so it costs the days shown.
use super::{
    aggregated,
    service::{Buckets, Scope},
    MetricError,
};
use crate::words::Environment;
use crate::{
    aggregates::SECONDS_PER_DAY,
    auth::BearerAuth,
    games::{access::Role, require_role},
    http::{schema::Nullable, ApiTags},
    query,
    state::AppState,
};
use chrono::{DateTime, Duration, NaiveDate, Utc};
use poem_openapi::{
    param::{Path, Query},
    payload::Json,
    Object, OpenApi,
};
use uuid::Uuid;

/// The last return day of the grid: day 30, as the cohort counters keep.
pub const RETURN_DAYS: usize = 30;

pub struct RetentionGridApi {
    pub state: AppState,
}

/// One row of the grid: the users first seen on a day and how many came back.
#[derive(Object, Debug, PartialEq)]
pub struct RetentionCohort {
    /// The cohort's day (UTC), `YYYY-MM-DD`: its users' first day seen.
    pub day: String,
    /// Users first seen that day.
    pub cohort_size: u64,
    /// How many of days 1 to 30 have ended: the cells after it are not complete yet (null).
    pub complete_days: u32,
    /// Item n-1 is day n (1 to 30): the users of the cohort active again n days later; null
    /// while day n has not ended.
    pub returned: Vec<Nullable<u64>>,
    /// Item n-1 is day n: `returned` as a percent of `cohort_size`; null while day n has not
    /// ended, and for an empty cohort.
    pub retention: Vec<Nullable<f64>>,
}

/// The retention grid of a range of cohort days (a triangle: later cohorts have fewer
/// complete days).
#[derive(Object)]
pub struct RetentionGrid {
    pub from: String,
    pub to: String,
    #[oai(nullable)]
    pub environment: Option<Environment>,
    /// The return days each row's arrays cover: 1 to this (30).
    pub return_days: u32,
    /// Every day of the range, oldest first, empty cohorts included.
    pub cohorts: Vec<RetentionCohort>,
}

/// What each operation here answers beyond the universal statuses (`http::error_responses`):
/// 403: not a member of the game.
pub const STATUSES: crate::http::Statuses = crate::http::statuses! {
    getRetentionGrid: [403],
};

#[OpenApi(prefix_path = "/v1/games", tag = "ApiTags::Analytics")]
impl RetentionGridApi {
    /// The retention grid (any member): for each day from `from` to `to` (UTC days
    /// `YYYY-MM-DD`, inclusive; default the 30 days up to today; at most 366), the users first
    /// seen that day and, for days 1 to 30 after it, how many of them were active again and
    /// what percent of the cohort that is. A cell whose day has not ended yet is null, so the
    /// grid is a triangle. `environment`: only users of `development` or `production` keys.
    #[oai(
        path = "/:game_id/retention",
        method = "get",
        operation_id = "getRetentionGrid"
    )]
    async fn grid(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        /// First cohort day, `YYYY-MM-DD` (UTC).
        from: Query<Option<String>>,
        /// Last cohort day, `YYYY-MM-DD` (UTC).
        to: Query<Option<String>>,
        /// Only events sent with `development` or `production` keys (default: both).
        environment: Query<Option<String>>,
    ) -> poem::Result<Json<RetentionGrid>> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Viewer).await?;
        let environment = query::parse_optional_environment(environment.0.as_deref())?;
        let now = self.state.now();
        let (from, to) = query::day_range(
            from.0.as_deref(),
            to.0.as_deref(),
            now.date_naive(),
            query::DEFAULT_DAYS,
            query::MAX_DAYS,
        )?;
        let buckets = Buckets {
            start: query::midnight(from),
            seconds: SECONDS_PER_DAY,
            count: ((to - from).num_days() + 1) as usize,
        };
        let scope = Scope {
            game_id: game_id.0,
            environment: environment.map(|environment| environment.as_str().to_string()),
            event_name: None,
        };
        let offsets: Vec<i64> = (0..=RETURN_DAYS as i64).collect();
        let counters = aggregated::cohort_counters(&self.state.db, &scope, buckets, &offsets)
            .await
            .map_err(MetricError::from)?;
        Ok(Json(RetentionGrid {
            from: from.to_string(),
            to: to.to_string(),
            environment,
            return_days: RETURN_DAYS as u32,
            cohorts: counters
                .iter()
                .enumerate()
                .map(|(index, counts)| cohort_row(from + Duration::days(index as i64), counts, now))
                .collect(),
        }))
    }
}

/// A grid row from a cohort day's counters (offset 0 to 30): cells whose day has not ended by
/// `now` are null.
fn cohort_row(day: NaiveDate, counts: &[i64], now: DateTime<Utc>) -> RetentionCohort {
    let size = counts[0].max(0) as u64;
    let complete_days = (1..=RETURN_DAYS as i64)
        .take_while(|n| query::midnight(day + Duration::days(n + 1)) <= now)
        .count();
    let returned: Vec<Option<u64>> = counts[1..]
        .iter()
        .enumerate()
        .map(|(index, users)| (index < complete_days).then_some((*users).max(0) as u64))
        .collect();
    RetentionCohort {
        day: day.to_string(),
        cohort_size: size,
        complete_days: complete_days as u32,
        retention: returned
            .iter()
            .map(|users| {
                Nullable(
                    users
                        .filter(|_| size > 0)
                        .map(|u| u as f64 * 100.0 / size as f64),
                )
            })
            .collect(),
        returned: returned.into_iter().map(Nullable).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cohort_row_leaves_the_days_not_ended_yet_null() {
        let day: NaiveDate = "2026-11-20".parse().unwrap();
        let mut counts = vec![0i64; RETURN_DAYS + 1];
        counts[0] = 4;
        counts[1] = 2;
        counts[2] = 1;
        counts[3] = 3; // day 3 (the 23rd) is today: counted so far, not shown
        let now: DateTime<Utc> = "2026-11-23T10:00:00Z".parse().unwrap();
        let row = cohort_row(day, &counts, now);
        assert_eq!(row.cohort_size, 4);
        assert_eq!(row.complete_days, 2);
        let cells = |row: &RetentionCohort| {
            let returned: Vec<_> = row.returned[..3].iter().map(|c| c.0).collect();
            let retention: Vec<_> = row.retention[..3].iter().map(|c| c.0).collect();
            (returned, retention)
        };
        assert_eq!(
            cells(&row),
            (
                vec![Some(2), Some(1), None],
                vec![Some(50.0), Some(25.0), None]
            )
        );
        assert_eq!(row.returned.len(), RETURN_DAYS);
        // At midnight day 3 has ended.
        let midnight: DateTime<Utc> = "2026-11-24T00:00:00Z".parse().unwrap();
        assert_eq!(cohort_row(day, &counts, midnight).complete_days, 3);
        // An empty cohort: complete cells count 0 users, with no share.
        let empty = cohort_row(day, &vec![0; RETURN_DAYS + 1], now);
        assert_eq!(
            cells(&empty),
            (vec![Some(0), Some(0), None], vec![None, None, None])
        );
    }
}
