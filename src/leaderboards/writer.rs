//! Score submissions written through to the cold store by group commit (see
//! `store::group_commit`): concurrent submissions share one upsert per kind of board (keep-best,
//! replace, add: the board's operator) and one commit.
//! The same write checks that the board still exists and that the player is not banned from
//! it, so a submission costs no cold-store round trip of its own.
use crate::store::group_commit::{Batch, GroupCommit, Lane};
use crate::words::ScoreOperator;
use async_trait::async_trait;
use entity::{leaderboard_bans as bans, leaderboard_entries as entries, leaderboards};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DbBackend, DbErr, EntityTrait, QueryFilter, QuerySelect,
    SqliteTransactionMode, Statement, TransactionOptions, TransactionTrait, Value,
};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use uuid::Uuid;

/// Rows per upsert statement: 12 parameters each stays under SQLite's 32,766.
const ROWS_PER_STATEMENT: usize = 500;
const COLUMNS: usize = 12;

/// The handle submissions write through.
pub type ScoreWriter = GroupCommit<ScoreRows>;

/// This node's score writer.
pub fn scores(state: &crate::state::AppState) -> &std::sync::Arc<ScoreWriter> {
    &state.parts.scores
}

/// How a row meets the player's stored entry: the board's operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Apply {
    /// Stored only when it ranks ahead of the stored entry (`best`).
    KeepBest,
    /// Replaces the stored entry (`latest`).
    Replace,
    /// Its score is added to the stored one (`increment`; a `decrement` row carries the
    /// negated score).
    Add,
}

impl Apply {
    pub fn of(operator: ScoreOperator) -> Self {
        match operator {
            ScoreOperator::Best => Self::KeepBest,
            ScoreOperator::Latest => Self::Replace,
            ScoreOperator::Increment | ScoreOperator::Decrement => Self::Add,
        }
    }

    /// The upsert's conflict clause (both SQLite and PostgreSQL). Every change but a best
    /// score's counts the entry's revision up, so the hot store keeps the newest change.
    fn on_conflict(self) -> &'static str {
        match self {
            Self::KeepBest => KEEP_BEST,
            Self::Replace => REPLACE,
            Self::Add => ADD,
        }
    }
}

/// The upsert's conflict clause, from what it does to the score and what else it requires.
macro_rules! on_conflict {
    ($score:literal, $tail:literal) => {
        concat!(
            "ON CONFLICT (board_id, period, player_id, status) DO UPDATE SET ",
            "player_name = excluded.player_name, ",
            $score,
            ", reached_at = excluded.reached_at, metadata = excluded.metadata, ",
            "updated_at = excluded.updated_at",
            $tail,
            " RETURNING board_id, period, player_id, status, score, revision"
        )
    };
}

/// Only a row that ranks ahead of the stored entry replaces it.
const KEEP_BEST: &str = on_conflict!(
    "score = excluded.score, sort_score = excluded.sort_score",
    " WHERE excluded.sort_score < leaderboard_entries.sort_score \
     OR (excluded.sort_score = leaderboard_entries.sort_score AND excluded.reached_at < leaderboard_entries.reached_at)"
);
const REPLACE: &str = on_conflict!(
    "score = excluded.score, sort_score = excluded.sort_score, \
     revision = leaderboard_entries.revision + 1",
    ""
);
const ADD: &str = on_conflict!(
    "score = leaderboard_entries.score + excluded.score, \
     sort_score = leaderboard_entries.sort_score + excluded.sort_score, \
     revision = leaderboard_entries.revision + 1",
    ""
);

/// One submission's row and how it meets the stored entry.
pub struct ScoreRow {
    pub row: entries::Model,
    pub apply: Apply,
}

/// What became of one submitted row.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kept {
    /// The row is now the player's stored entry (`best` boards).
    Stored,
    /// The player's stored entry ranks ahead of or level with it; nothing changed.
    NotBetter,
    /// The row changed the player's entry (the other operators): its score and revision after
    /// the change (rows for the same entry in one group share the change that made them all).
    Applied { score: f64, revision: i64 },
    /// The player is banned from the board; nothing was stored.
    Banned,
    /// The board was deleted meanwhile (on another node); nothing was stored.
    NoBoard,
}

/// Submissions' rows.
pub struct ScoreRows;

#[async_trait]
impl Batch for ScoreRows {
    type Item = ScoreRow;
    type Outcome = Kept;
    type Prepared = ();
    const KIND: &'static str = "scores";
    const ROWS_PER_TRANSACTION: usize = 500;

    fn rows(_: &Self::Item) -> usize {
        1
    }

    async fn prepare(&self, _: &mut Lane, _: &[&ScoreRow]) -> Result<(), DbErr> {
        Ok(())
    }

    async fn store(&self, lane: &mut Lane, items: &[&ScoreRow], _: ()) -> Result<Vec<Kept>, DbErr> {
        // A board has one operator, so an entry's rows are all of one kind: each kind is
        // stored by its own statement.
        let mut kinds: Vec<(Apply, Vec<usize>)> = Vec::new();
        for (index, item) in items.iter().enumerate() {
            match kinds.iter_mut().find(|(apply, _)| *apply == item.apply) {
                Some((_, indices)) => indices.push(index),
                None => kinds.push((item.apply, vec![index])),
            }
        }
        let mut outcomes = vec![Kept::NotBetter; items.len()];
        let mut place = |indices: &[usize], kept: Vec<Kept>| {
            for (index, kept) in indices.iter().zip(kept) {
                outcomes[*index] = kept;
            }
        };
        if lane.db.get_database_backend() == DbBackend::Postgres {
            let connection = lane.postgres().await?;
            for (apply, indices) in &kinds {
                let rows: Vec<&entries::Model> = indices.iter().map(|i| &items[*i].row).collect();
                place(
                    indices,
                    postgres::store(&mut *connection, &rows, *apply).await?,
                );
            }
            return Ok(outcomes);
        }
        // SQLite's write lock from the start (IMMEDIATE), as the event writer does: a deferred
        // transaction that read first cannot take the lock once another writer (events,
        // achievements) has committed, and fails at once with "database is locked".
        let txn = lane
            .db
            .begin_with_options(TransactionOptions {
                sqlite_transaction_mode: Some(SqliteTransactionMode::Immediate),
                ..Default::default()
            })
            .await?;
        for (apply, indices) in &kinds {
            let rows: Vec<&entries::Model> = indices.iter().map(|i| &items[*i].row).collect();
            place(indices, admit_and_store(&txn, &rows, *apply).await?);
        }
        txn.commit().await?;
        Ok(outcomes)
    }
}

/// The entry a row competes for: one per board, period, player and status.
type EntryKey = (Uuid, String, String, String);

fn key_of(row: &entries::Model) -> EntryKey {
    (
        row.board_id,
        row.period.clone(),
        row.player_id.clone(),
        row.status.clone(),
    )
}

/// Rows for the same entry reduced to one, as if they had arrived one after another: the
/// best of them (`KeepBest`), the last (`Replace`), or the last carrying the sum of all their
/// scores (`Add`). In key order, so that concurrent transactions lock the rows they share in
/// the same order and never deadlock.
fn contenders<'a>(
    rows: &[&'a entries::Model],
    apply: Apply,
) -> Vec<(EntryKey, usize, Cow<'a, entries::Model>)> {
    let mut chosen: HashMap<EntryKey, (usize, f64, f64)> = HashMap::with_capacity(rows.len());
    for (index, row) in rows.iter().enumerate() {
        chosen
            .entry(key_of(row))
            .and_modify(|(held, score, sort)| {
                let current = rows[*held];
                let replaces = match apply {
                    Apply::KeepBest => {
                        (row.sort_score, row.reached_at) < (current.sort_score, current.reached_at)
                    }
                    Apply::Replace | Apply::Add => true,
                };
                if apply == Apply::Add {
                    *score += row.score;
                    *sort += row.sort_score;
                }
                if replaces {
                    *held = index;
                }
            })
            .or_insert((index, row.score, row.sort_score));
    }
    let mut contenders: Vec<(EntryKey, usize, Cow<'a, entries::Model>)> = chosen
        .into_iter()
        .map(|(key, (index, score, sort_score))| {
            let summed = (score, sort_score) != (rows[index].score, rows[index].sort_score);
            let row = if apply == Apply::Add && summed {
                Cow::Owned(entries::Model {
                    score: score + 0.0,
                    sort_score: sort_score + 0.0,
                    ..rows[index].clone()
                })
            } else {
                Cow::Borrowed(rows[index])
            };
            (key, index, row)
        })
        .collect();
    contenders.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    contenders
}

/// Each row's outcome from its contender's: a row that lost to a better one of the same key
/// was not stored, but shares its contender's ban and board (and change, for the operators).
fn spread(
    rows: &[&entries::Model],
    contenders: &[(EntryKey, usize, Cow<'_, entries::Model>)],
    kept: &[Kept],
) -> Vec<Kept> {
    let by_key: HashMap<&EntryKey, Kept> = contenders
        .iter()
        .zip(kept)
        .map(|((key, _, _), kept)| (key, *kept))
        .collect();
    let mut outcomes: Vec<Kept> = rows
        .iter()
        .map(|row| match by_key[&key_of(row)] {
            Kept::Stored => Kept::NotBetter,
            other => other,
        })
        .collect();
    for ((_, index, _), kept) in contenders.iter().zip(kept) {
        outcomes[*index] = *kept;
    }
    outcomes
}

/// What a contender's upsert did, from the keys it stored (with their score and revision).
fn outcome(apply: Apply, stored: Option<&(f64, i64)>) -> Kept {
    match (apply, stored) {
        (_, None) => Kept::NotBetter,
        (Apply::KeepBest, Some(_)) => Kept::Stored,
        (_, Some((score, revision))) => Kept::Applied {
            score: *score,
            revision: *revision,
        },
    }
}

/// Applies each row to the player's stored entry (same board, period and status) as `apply`
/// says. For writes the caller has already checked (moderation), inside the caller's
/// transaction.
pub async fn store_checked(
    db: &impl ConnectionTrait,
    rows: &[&entries::Model],
    apply: Apply,
) -> Result<Vec<Kept>, DbErr> {
    let contenders = contenders(rows, apply);
    let stored = upsert_contenders(db, &contenders, apply).await?;
    let kept: Vec<Kept> = contenders
        .iter()
        .map(|(key, _, _)| outcome(apply, stored.get(key)))
        .collect();
    Ok(spread(rows, &contenders, &kept))
}

/// The portable path (SQLite): reads which boards exist and which players are banned, then
/// upserts the admitted rows, all in the caller's transaction.
async fn admit_and_store(
    txn: &impl ConnectionTrait,
    rows: &[&entries::Model],
    apply: Apply,
) -> Result<Vec<Kept>, DbErr> {
    let board_ids: HashSet<Uuid> = rows.iter().map(|row| row.board_id).collect();
    let players: HashSet<&str> = rows.iter().map(|row| row.player_id.as_str()).collect();
    let existing: HashSet<Uuid> = leaderboards::Entity::find()
        .select_only()
        .column(leaderboards::Column::Id)
        .filter(leaderboards::Column::Id.is_in(board_ids.iter().copied()))
        .into_tuple::<Uuid>()
        .all(txn)
        .await?
        .into_iter()
        .collect();
    let banned: HashSet<(Uuid, String)> = bans::Entity::find()
        .select_only()
        .column(bans::Column::BoardId)
        .column(bans::Column::PlayerId)
        .filter(bans::Column::BoardId.is_in(board_ids.iter().copied()))
        .filter(bans::Column::PlayerId.is_in(players.iter().copied()))
        .into_tuple::<(Uuid, String)>()
        .all(txn)
        .await?
        .into_iter()
        .collect();
    let contenders = contenders(rows, apply);
    let admitted: Vec<(EntryKey, usize, Cow<'_, entries::Model>)> = contenders
        .iter()
        .filter(|((board_id, _, player_id, _), _, _)| {
            existing.contains(board_id) && !banned.contains(&(*board_id, player_id.clone()))
        })
        .cloned()
        .collect();
    let stored = upsert_contenders(txn, &admitted, apply).await?;
    let kept: Vec<Kept> = contenders
        .iter()
        .map(|(key, _, _)| {
            let (board_id, _, player_id, _) = key;
            if !existing.contains(board_id) {
                Kept::NoBoard
            } else if banned.contains(&(*board_id, player_id.clone())) {
                Kept::Banned
            } else {
                outcome(apply, stored.get(key))
            }
        })
        .collect();
    Ok(spread(rows, &contenders, &kept))
}

/// Multi-row upserts of the contenders; returns the keys whose row was stored or applied,
/// with the entry's score and revision after it.
async fn upsert_contenders(
    db: &impl ConnectionTrait,
    contenders: &[(EntryKey, usize, Cow<'_, entries::Model>)],
    apply: Apply,
) -> Result<HashMap<EntryKey, (f64, i64)>, DbErr> {
    let mut stored = HashMap::new();
    for chunk in contenders.chunks(ROWS_PER_STATEMENT) {
        let chunk: Vec<&entries::Model> = chunk.iter().map(|(_, _, row)| row.as_ref()).collect();
        stored.extend(upsert(db, &chunk, apply).await?);
    }
    Ok(stored)
}

/// One multi-row upsert; returns the keys whose row was inserted or changed the entry.
async fn upsert(
    db: &impl ConnectionTrait,
    rows: &[&entries::Model],
    apply: Apply,
) -> Result<Vec<(EntryKey, (f64, i64))>, DbErr> {
    let placeholders: Vec<String> = (0..rows.len())
        .map(|r| {
            let params: Vec<String> = (1..=COLUMNS)
                .map(|c| format!("${}", r * COLUMNS + c))
                .collect();
            format!("({})", params.join(", "))
        })
        .collect();
    let sql = format!(
        "INSERT INTO leaderboard_entries \
         (id, board_id, period, player_id, status, player_name, score, sort_score, reached_at, metadata, updated_at, revision) \
         VALUES {} {}",
        placeholders.join(", "),
        apply.on_conflict()
    );
    let mut values: Vec<Value> = Vec::with_capacity(rows.len() * COLUMNS);
    for row in rows {
        values.extend([
            row.id.into(),
            row.board_id.into(),
            row.period.clone().into(),
            row.player_id.clone().into(),
            row.status.clone().into(),
            row.player_name.clone().into(),
            row.score.into(),
            row.sort_score.into(),
            row.reached_at.into(),
            row.metadata.clone().into(),
            row.updated_at.into(),
            row.revision.into(),
        ]);
    }
    let statement = Statement::from_sql_and_values(db.get_database_backend(), sql, values);
    db.query_all_raw(statement)
        .await?
        .iter()
        .map(|row| {
            Ok((
                (
                    row.try_get::<Uuid>("", "board_id")?,
                    row.try_get::<String>("", "period")?,
                    row.try_get::<String>("", "player_id")?,
                    row.try_get::<String>("", "status")?,
                ),
                (
                    row.try_get::<f64>("", "score")?,
                    row.try_get::<i64>("", "revision")?,
                ),
            ))
        })
        .collect()
}

/// PostgreSQL: the whole group is one statement (so one round trip and one commit) whose
/// plan stays prepared: each column travels as one array, and the board and ban checks run
/// in the same snapshot as the upsert.
mod postgres {
    use super::{contenders, outcome, spread, Apply, Kept};
    use crate::store::pg::db_error;
    use chrono::{DateTime, Utc};
    use entity::leaderboard_entries as entries;
    use sea_orm::{
        sqlx::{self, PgConnection},
        DbErr,
    };
    use std::sync::LazyLock;

    /// The group's statement for each kind of row (the conflict clause differs).
    static STORE: LazyLock<[String; 3]> = LazyLock::new(|| {
        [Apply::KeepBest, Apply::Replace, Apply::Add].map(|apply| {
            format!(
                "WITH input AS (SELECT * FROM UNNEST($1::uuid[], $2::uuid[], $3::text[], \
                 $4::text[], $5::text[], $6::text[], $7::float8[], $8::float8[], $9::int8[], $10::text[], \
                 $11::timestamptz[], $12::int8[]) WITH ORDINALITY AS t(id, board_id, period, player_id, status, \
                 player_name, score, sort_score, reached_at, metadata, updated_at, revision, n)), \
                 checked AS (SELECT i.*, \
                 EXISTS (SELECT 1 FROM leaderboards l WHERE l.id = i.board_id) AS board_exists, \
                 EXISTS (SELECT 1 FROM leaderboard_bans b WHERE b.board_id = i.board_id AND b.player_id = i.player_id) AS banned \
                 FROM input i), \
                 stored AS (INSERT INTO leaderboard_entries (id, board_id, period, player_id, status, \
                 player_name, score, sort_score, reached_at, metadata, updated_at, revision) \
                 SELECT id, board_id, period, player_id, status, player_name, score, sort_score, reached_at, \
                 metadata, updated_at, revision FROM checked WHERE board_exists AND NOT banned ORDER BY n \
                 {}) \
                 SELECT c.board_exists, c.banned, s.board_id IS NOT NULL AS stored, s.score, s.revision \
                 FROM checked c \
                 LEFT JOIN stored s ON s.board_id = c.board_id AND s.period = c.period \
                 AND s.player_id = c.player_id AND s.status = c.status ORDER BY c.n",
                apply.on_conflict()
            )
        })
    });

    pub async fn store(
        connection: &mut PgConnection,
        rows: &[&entries::Model],
        apply: Apply,
    ) -> Result<Vec<Kept>, DbErr> {
        let contenders = contenders(rows, apply);
        let n = contenders.len();
        let mut id = Vec::with_capacity(n);
        let mut board_id = Vec::with_capacity(n);
        let mut period = Vec::with_capacity(n);
        let mut player_id = Vec::with_capacity(n);
        let mut status = Vec::with_capacity(n);
        let mut player_name = Vec::with_capacity(n);
        let mut score = Vec::with_capacity(n);
        let mut sort_score = Vec::with_capacity(n);
        let mut reached_at = Vec::with_capacity(n);
        let mut metadata = Vec::with_capacity(n);
        let mut updated_at: Vec<DateTime<Utc>> = Vec::with_capacity(n);
        let mut revision = Vec::with_capacity(n);
        for (_, _, row) in &contenders {
            id.push(row.id);
            board_id.push(row.board_id);
            period.push(row.period.as_str());
            player_id.push(row.player_id.as_str());
            status.push(row.status.as_str());
            player_name.push(row.player_name.as_deref());
            score.push(row.score);
            sort_score.push(row.sort_score);
            reached_at.push(row.reached_at);
            metadata.push(row.metadata.as_str());
            updated_at.push(row.updated_at);
            revision.push(row.revision);
        }
        // Audited: one of three fixed statements, the values all bound.
        let statement = sqlx::AssertSqlSafe(STORE[apply as usize].as_str());
        let answers = sqlx::query(statement)
            .bind(id)
            .bind(board_id)
            .bind(period)
            .bind(player_id)
            .bind(status)
            .bind(player_name)
            .bind(score)
            .bind(sort_score)
            .bind(reached_at)
            .bind(metadata)
            .bind(updated_at)
            .bind(revision)
            .fetch_all(connection)
            .await
            .map_err(db_error)?;
        let mut kept = Vec::with_capacity(n);
        for answer in &answers {
            let get = |column: usize| sqlx::Row::try_get::<bool, _>(answer, column);
            let (board_exists, banned, stored) = (
                get(0).map_err(db_error)?,
                get(1).map_err(db_error)?,
                get(2).map_err(db_error)?,
            );
            let after = if stored {
                Some((
                    sqlx::Row::try_get::<f64, _>(answer, 3).map_err(db_error)?,
                    sqlx::Row::try_get::<i64, _>(answer, 4).map_err(db_error)?,
                ))
            } else {
                None
            };
            kept.push(if !board_exists {
                Kept::NoBoard
            } else if banned {
                Kept::Banned
            } else {
                outcome(apply, after.as_ref())
            });
        }
        if kept.len() != n {
            return Err(DbErr::Custom(format!(
                "score write answered {} rows for {n}",
                kept.len()
            )));
        }
        Ok(spread(rows, &contenders, &kept))
    }
}
