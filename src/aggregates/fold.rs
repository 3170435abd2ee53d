//! Folding the writer shards of closed days: the counters the writers keep per shard (hour
//! counts, distinct counts, cohorts, session days, progression and resource days) have up to
//! one row per shard for each key; once a day is over (`MARGIN` after its end), its rows of
//! every shard are summed into one row of shard `FOLDED_SHARD`, which no writer uses, and the
//! shard rows are deleted, in one transaction per game, table and range of days. Reads sum the
//! shards, so they answer the same before and after, from fewer rows.
//!
//! A late event of a folded day adds a writer's shard row again, which the next fold folds.
//! On PostgreSQL the fold locks the shard rows it takes with `SKIP LOCKED` (a row a writer
//! holds is left to the next pass), deletes exactly those and adds what they held to the
//! folded row, in one statement: a writer's increment is either in the row the fold deleted
//! (committed before the fold locked it) or waits for the fold's commit and then, its row
//! gone, inserts a new shard row. The fold never waits for a writer, so the two cannot
//! deadlock; the folded rows are written in key order, so two folds (two workers) cannot
//! either. It takes the game's row `FOR KEY SHARE`, as the writers do, so a rebuild (which
//! locks that row `FOR UPDATE`) never clears the aggregates half-way through a fold. On
//! SQLite a transaction has the database to itself.
use super::day_of;
use crate::store::Db;
use chrono::{DateTime, Utc};
use sea_orm::{
    ConnectionTrait, DatabaseTransaction, DbBackend, DbErr, EntityTrait, QuerySelect, Statement,
    TransactionTrait,
};
use std::collections::BTreeSet;
use std::time::{Duration, Instant};
use uuid::Uuid;

/// The shard of folded rows; writers use 0 and up.
pub const FOLDED_SHARD: i16 = -1;

/// How long after its end (UTC midnight) a day is folded. Late events keep coming for days
/// (an offline device sends its queue when it is back) and simply add a shard row again; the
/// margin only keeps the fold off the day most of them still go to.
pub const MARGIN: Duration = Duration::from_secs(3 * 3_600);

/// How often the worker folds.
pub const FOLD_EVERY: Duration = Duration::from_secs(600);

/// About how long one worker pass may fold.
pub const PASS_BUDGET: Duration = Duration::from_secs(20);

/// Days folded per transaction.
const SPAN_DAYS: i64 = 7;

/// A sharded table: its key columns (besides `game_id` and `shard`), its counters, the column
/// that places its rows in time (`per_day` of them a day), which of its rows this is about
/// (`only`) and when a row is closed (`closes` before the cutoff).
struct Sharded {
    table: &'static str,
    keys: &'static [&'static str],
    counters: &'static [&'static str],
    bucket: &'static str,
    per_day: i64,
    only: &'static str,
    closes: &'static str,
}

const TABLES: [Sharded; 7] = [
    Sharded {
        table: "analytics_progression_days",
        keys: &["day", "environment", "level1", "level2", "level3"],
        counters: &[
            "starts",
            "completes",
            "fails",
            "attempt_completes",
            "attempts",
        ],
        bucket: "day",
        per_day: 1,
        only: "",
        closes: "day",
    },
    Sharded {
        table: "analytics_resource_days",
        keys: &["day", "environment", "currency", "flow", "item_type"],
        counters: &["events", "amount"],
        bucket: "day",
        per_day: 1,
        only: "",
        closes: "day",
    },
    Sharded {
        table: "analytics_event_counts",
        keys: &["hour", "environment", "event_name"],
        counters: &["events", "log_errors", "revenue"],
        bucket: "hour",
        per_day: 24,
        only: "",
        closes: "hour",
    },
    Sharded {
        table: "analytics_active_users",
        keys: &["scope", "span", "bucket"],
        counters: &["users"],
        bucket: "bucket",
        per_day: 24,
        only: " AND span = 'hour'",
        closes: "bucket",
    },
    // Days and paying days.
    Sharded {
        table: "analytics_active_users",
        keys: &["scope", "span", "bucket"],
        counters: &["users"],
        bucket: "bucket",
        per_day: 1,
        only: " AND span <> 'hour'",
        closes: "bucket",
    },
    // A cohort's offset n counts the returns of day cohort_day + n.
    Sharded {
        table: "analytics_cohorts",
        keys: &["scope", "cohort_day", "day_offset"],
        counters: &["users"],
        bucket: "cohort_day",
        per_day: 1,
        only: "",
        closes: "cohort_day + day_offset",
    },
    Sharded {
        table: "analytics_session_days",
        keys: &["scope", "day"],
        counters: &["sessions", "length_ms"],
        bucket: "day",
        per_day: 1,
        only: "",
        closes: "day",
    },
];

impl Sharded {
    /// The shard rows of the game `$1` in buckets `$2` to `$3` (excluded), closed before `$4`.
    fn rows(&self) -> String {
        format!(
            "game_id = $1 AND shard <> {FOLDED_SHARD} AND {bucket} >= $2 AND {bucket} < $3 \
             AND {closes} < $4{only}",
            bucket = self.bucket,
            closes = self.closes,
            only = self.only,
        )
    }

    /// The first bucket from `$2` (before `$3`) with shard rows.
    fn next(&self) -> String {
        format!(
            "SELECT min({bucket}) AS first_bucket FROM {table} WHERE game_id = $1 \
             AND shard <> {FOLDED_SHARD} AND {bucket} >= $2 AND {bucket} < $3{only}",
            bucket = self.bucket,
            table = self.table,
            only = self.only,
        )
    }

    /// Adds the sums of the rows `source` names (`FROM ...`) to the folded rows, in key order.
    fn add_folded(&self, source: &str) -> String {
        let keys = self.keys.join(", ");
        let counters = self.counters.join(", ");
        let sums = self
            .counters
            .iter()
            .map(|c| format!("sum({c})"))
            .collect::<Vec<_>>()
            .join(", ");
        let set = self
            .counters
            .iter()
            .map(|c| format!("{c} = {table}.{c} + excluded.{c}", table = self.table))
            .collect::<Vec<_>>()
            .join(", ");
        format!(
            "INSERT INTO {table} (game_id, {keys}, shard, {counters}) \
             SELECT game_id, {keys}, {FOLDED_SHARD}, {sums} {source} \
             GROUP BY game_id, {keys} ORDER BY {keys} \
             ON CONFLICT (game_id, {keys}, shard) DO UPDATE SET {set}",
            table = self.table,
        )
    }

    /// PostgreSQL: one statement that locks the shard rows no writer holds, deletes them and
    /// adds them to the folded rows; returns how many it deleted.
    fn fold_postgres(&self) -> String {
        let matched = self
            .keys
            .iter()
            .chain(&["shard"])
            .map(|k| format!(" AND {table}.{k} = picked.{k}", table = self.table))
            .collect::<String>();
        format!(
            "WITH picked AS (SELECT {keys}, shard FROM {table} WHERE {rows} \
             FOR UPDATE SKIP LOCKED), \
             gone AS (DELETE FROM {table} USING picked WHERE {table}.game_id = $1{matched} \
             RETURNING {table}.*), \
             added AS ({add} RETURNING 1) \
             SELECT (SELECT count(*) FROM gone) AS folded, (SELECT count(*) FROM added) AS kept",
            keys = self.keys.join(", "),
            table = self.table,
            rows = self.rows(),
            add = self.add_folded("FROM gone WHERE true"),
        )
    }
}

/// What a pass did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Folded {
    /// Shard rows summed into folded rows (and deleted).
    pub rows: u64,
    /// Whether the pass stopped at its budget with more to fold.
    pub unfinished: bool,
}

/// The worker's pass: folds the days that ended `MARGIN` before `now`, for about `budget`.
pub async fn pass(db: &Db, now: DateTime<Utc>, budget: Duration) -> Result<Folded, DbErr> {
    let closed_before = now - chrono::Duration::from_std(MARGIN).expect("a short margin");
    fold_before(db, closed_before, Some(budget)).await
}

/// Folds, in every game, the shard rows of the days that ended at or before `closed_before`
/// (all of them, or as many as `budget` allows).
pub async fn fold_before(
    db: &Db,
    closed_before: DateTime<Utc>,
    budget: Option<Duration>,
) -> Result<Folded, DbErr> {
    let started = Instant::now();
    let cutoff_day = day_of(closed_before);
    let games: Vec<Uuid> = entity::games::Entity::find()
        .select_only()
        .column(entity::games::Column::Id)
        .into_tuple()
        .all(db)
        .await?;
    let mut folded = Folded::default();
    let mut emptied: BTreeSet<&'static str> = BTreeSet::new();
    'games: for game_id in games {
        for table in &TABLES {
            let cutoff = cutoff_day * table.per_day;
            let mut from = i64::MIN;
            while let Some(start) = next_bucket(db, table, game_id, from, cutoff).await? {
                if budget.is_some_and(|budget| started.elapsed() >= budget) {
                    folded.unfinished = true;
                    break 'games;
                }
                let end = start.saturating_add(SPAN_DAYS * table.per_day).min(cutoff);
                let rows = fold_range(db, table, game_id, start, end, cutoff).await?;
                if rows > 0 {
                    emptied.insert(table.table);
                }
                folded.rows += rows;
                from = end;
            }
        }
    }
    reclaim(db, &emptied).await;
    Ok(folded)
}

/// PostgreSQL: vacuums the tables the pass deleted shard rows from, so that the writers'
/// next shard rows take the space of the deleted ones instead of growing the table. Late
/// events add shard rows to folded days again and each pass deletes them again; with
/// autovacuum off or behind (its workers busy with the events table), every pass left its
/// deleted rows' pages behind, and the hour-count reads, which scan the game's rows of their
/// range, slowed as the table grew (`scripts/bench-analytics`: 381 pages of event counts
/// after 1M events, 1,436 after 25 more minutes of late events and two folds, the `events`
/// metric 6.9 ms on the compact table and 12.8 ms on the grown one, the same rows in both).
/// `SKIP_LOCKED`: a table another worker (or autovacuum) is vacuuming is left to it. A
/// failure is logged and the pass still counts as done: what it folded is committed (a role
/// that does not own the table only gets PostgreSQL's warning). SQLite reuses the pages of
/// deleted rows itself.
async fn reclaim(db: &Db, tables: &BTreeSet<&'static str>) {
    if db.get_database_backend() != DbBackend::Postgres {
        return;
    }
    for table in tables {
        if let Err(error) = db
            .execute_unprepared(&format!("VACUUM (SKIP_LOCKED) {table}"))
            .await
        {
            tracing::warn!(%error, table, "vacuuming a folded aggregate table failed");
        }
    }
}

async fn next_bucket(
    db: &Db,
    table: &Sharded,
    game_id: Uuid,
    from: i64,
    cutoff: i64,
) -> Result<Option<i64>, DbErr> {
    let row = db
        .query_one_raw(Statement::from_sql_and_values(
            db.get_database_backend(),
            table.next(),
            [game_id.into(), from.into(), cutoff.into()],
        ))
        .await?;
    match row {
        Some(row) => row.try_get::<Option<i64>>("", "first_bucket"),
        None => Ok(None),
    }
}

/// Folds one game's shard rows of buckets `start` to `end` (excluded) in one transaction;
/// returns how many it folded.
async fn fold_range(
    db: &Db,
    table: &Sharded,
    game_id: Uuid,
    start: i64,
    end: i64,
    cutoff: i64,
) -> Result<u64, DbErr> {
    let txn = db
        .begin_with_options(sea_orm::TransactionOptions {
            sqlite_transaction_mode: Some(sea_orm::SqliteTransactionMode::Immediate),
            ..Default::default()
        })
        .await?;
    let values =
        || -> Vec<sea_orm::Value> { vec![game_id.into(), start.into(), end.into(), cutoff.into()] };
    let folded = if txn.get_database_backend() == DbBackend::Postgres {
        let live = query(
            &txn,
            "SELECT 1 AS live FROM games WHERE id = $1 FOR KEY SHARE".into(),
            vec![game_id.into()],
        )
        .await?;
        if live.is_none() {
            return Ok(0);
        }
        let row = query(&txn, table.fold_postgres(), values()).await?;
        row.map(|row| row.try_get::<i64>("", "folded"))
            .transpose()?
            .unwrap_or(0) as u64
    } else {
        let add = table.add_folded(&format!(
            "FROM {table} WHERE {rows}",
            table = table.table,
            rows = table.rows()
        ));
        txn.execute_raw(statement(&txn, add, values())).await?;
        let delete = format!("DELETE FROM {} WHERE {}", table.table, table.rows());
        txn.execute_raw(statement(&txn, delete, values()))
            .await?
            .rows_affected()
    };
    txn.commit().await?;
    Ok(folded)
}

fn statement(txn: &DatabaseTransaction, sql: String, values: Vec<sea_orm::Value>) -> Statement {
    Statement::from_sql_and_values(txn.get_database_backend(), sql, values)
}

async fn query(
    txn: &DatabaseTransaction,
    sql: String,
    values: Vec<sea_orm::Value>,
) -> Result<Option<sea_orm::QueryResult>, DbErr> {
    txn.query_one_raw(statement(txn, sql, values)).await
}
