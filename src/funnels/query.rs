//! The funnel evaluation: one set-based SQL statement per funnel that returns the number of
//! users reaching each step, on SQLite and PostgreSQL alike.
//!
//! - Loose: per user, a flag per step ("did it in the range"); step k counts users with flags
//!   1..k. One scan and one GROUP BY.
//! - Strict: chained CTEs, each step's earliest time after the previous step's time, each
//!   reading its step's rows through the (game, event name, time) index. Taking the earliest
//!   match at every step is enough to decide whether an ordered path exists.
//! - A conversion window (`within_hours`) is anchored at the user's first step-1 event in the
//!   range: strict steps must happen within the window after it, loose steps within the
//!   window on either side of it.
use super::service::Mode;
use crate::query::{epoch_seconds, Params};
use chrono::{DateTime, Utc};
use sea_orm::{ConnectionTrait, DbErr, Statement};
use uuid::Uuid;

pub struct FunnelQuery<'a> {
    pub game_id: Uuid,
    pub environment: Option<&'a str>,
    pub steps: &'a [String],
    pub mode: Mode,
    pub within_hours: Option<i32>,
    pub from: DateTime<Utc>,
    /// Exclusive.
    pub to: DateTime<Utc>,
}

/// Users reaching each step, in step order.
#[tracing::instrument(skip_all, fields(game_id = %query.game_id, steps = query.steps.len()))]
pub async fn step_counts(
    db: &impl ConnectionTrait,
    query: &FunnelQuery<'_>,
) -> Result<Vec<u64>, DbErr> {
    let backend = db.get_database_backend();
    let mut p = Params::default();
    let game = p.bind(query.game_id);
    let from = p.bind(query.from);
    let to = p.bind(query.to);
    // Each distinct name is bound once; repeated steps reuse its placeholder.
    let mut names: Vec<(String, String)> = Vec::new();
    let step_params: Vec<String> = query
        .steps
        .iter()
        .map(|step| match names.iter().find(|(name, _)| name == step) {
            Some((_, placeholder)) => placeholder.clone(),
            None => {
                let placeholder = p.bind(step.clone());
                names.push((step.clone(), placeholder.clone()));
                placeholder
            }
        })
        .collect();
    let in_list = names
        .iter()
        .map(|(_, ph)| ph.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    let environment_param = query
        .environment
        .map(|environment| p.bind(environment.to_string()));
    let environment_filter = |column: &str| match &environment_param {
        Some(placeholder) => format!("AND {column} = {placeholder}"),
        None => String::new(),
    };
    let environment = environment_filter("environment");
    let window = query
        .within_hours
        .map(|hours| p.bind(i64::from(hours) * 3600));
    let base = format!(
        "WITH step_events AS (\
           SELECT actor_id, event_name, occurred_at FROM events \
           WHERE game_id = {game} AND occurred_at >= {from} AND occurred_at < {to} \
           AND event_name IN ({in_list}) {environment}\
         )"
    );
    let epoch = |column: &str| epoch_seconds(backend, column);
    let sql = match (query.mode, &window) {
        (Mode::Loose, None) => {
            let flags = flag_columns(&step_params, "event_name");
            format!(
                "{base}, per_user AS (SELECT actor_id, {flags} FROM step_events GROUP BY actor_id) \
                 SELECT {counts} FROM per_user",
                counts = loose_counts(step_params.len()),
            )
        }
        (Mode::Loose, Some(window)) => {
            let flags = flag_columns(&step_params, "e.event_name");
            format!(
                "{base}, anchors AS (\
                   SELECT actor_id, MIN(occurred_at) AS t FROM step_events WHERE event_name = {first} GROUP BY actor_id\
                 ), per_user AS (\
                   SELECT a.actor_id, {flags} FROM anchors a JOIN step_events e ON e.actor_id = a.actor_id \
                   WHERE {e_epoch} >= {a_epoch} - {window} AND {e_epoch} <= {a_epoch} + {window} \
                   GROUP BY a.actor_id\
                 ) SELECT {counts} FROM per_user",
                first = step_params[0],
                e_epoch = epoch("e.occurred_at"),
                a_epoch = epoch("a.t"),
                counts = loose_counts(step_params.len()),
            )
        }
        (Mode::Strict, window) => {
            // Each step reads its own rows through the (game, event name, time) index rather
            // than rescanning one materialised set of all steps.
            let rows_of = |alias: &str, step: &str| {
                format!(
                    "{alias}.game_id = {game} AND {alias}.occurred_at >= {from} AND {alias}.occurred_at < {to} \
                     AND {alias}.event_name = {step} {}",
                    environment_filter(&format!("{alias}.environment"))
                )
            };
            let anchor = if window.is_some() {
                ", MIN(e.occurred_at) AS t0"
            } else {
                ""
            };
            let mut sql = format!(
                "WITH s1 AS (SELECT e.actor_id, MIN(e.occurred_at) AS t{anchor} FROM events e WHERE {} GROUP BY e.actor_id)",
                rows_of("e", &step_params[0])
            );
            for (index, step) in step_params.iter().enumerate().skip(1) {
                let (carry, within) = match window {
                    Some(window) => (
                        ", MIN(p.t0) AS t0",
                        format!(
                            "AND {} <= {} + {window}",
                            epoch("e.occurred_at"),
                            epoch("p.t0")
                        ),
                    ),
                    None => ("", String::new()),
                };
                sql.push_str(&format!(
                    ", s{k} AS (\
                       SELECT e.actor_id, MIN(e.occurred_at) AS t{carry} FROM events e \
                       JOIN s{previous} p ON p.actor_id = e.actor_id AND e.occurred_at > p.t {within} \
                       WHERE {rows} GROUP BY e.actor_id)",
                    k = index + 1,
                    previous = index,
                    rows = rows_of("e", step),
                ));
            }
            let counts = (1..=step_params.len())
                .map(|k| format!("(SELECT CAST(COUNT(*) AS BIGINT) FROM s{k}) AS c{k}"))
                .collect::<Vec<_>>()
                .join(", ");
            format!("{sql} SELECT {counts}")
        }
    };
    let row = db
        .query_one_raw(Statement::from_sql_and_values(backend, sql, p.0))
        .await?
        .ok_or_else(|| DbErr::RecordNotFound("funnel counts".into()))?;
    (1..=step_params.len())
        .map(|k| {
            let count: Option<i64> = row.try_get("", &format!("c{k}"))?;
            Ok(count.unwrap_or(0).max(0) as u64)
        })
        .collect()
}

/// `MAX(CASE WHEN name = $s THEN 1 ELSE 0 END) AS f1, ...`
fn flag_columns(step_params: &[String], column: &str) -> String {
    step_params
        .iter()
        .enumerate()
        .map(|(index, step)| {
            format!(
                "MAX(CASE WHEN {column} = {step} THEN 1 ELSE 0 END) AS f{}",
                index + 1
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `SUM(f1) AS c1, SUM(f1 * f2) AS c2, ...`: users with every flag up to step k.
fn loose_counts(steps: usize) -> String {
    (1..=steps)
        .map(|k| {
            let product = (1..=k)
                .map(|j| format!("f{j}"))
                .collect::<Vec<_>>()
                .join(" * ");
            format!("CAST(COALESCE(SUM({product}), 0) AS BIGINT) AS c{k}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}
