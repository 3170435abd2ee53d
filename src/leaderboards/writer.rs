//! Score submissions written through to the cold store by group commit (see
//! `store::group_commit`): concurrent submissions share one keep-best upsert and one commit.
//! The same write checks that the board still exists and that the player is not banned from
//! it, so a submission costs no cold-store round trip of its own.
use crate::store::group_commit::{Batch, GroupCommit, Lane};
use async_trait::async_trait;
use entity::{leaderboard_bans as bans, leaderboard_entries as entries, leaderboards};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DbBackend, DbErr, EntityTrait, QueryFilter, QuerySelect,
    SqliteTransactionMode, Statement, TransactionOptions, TransactionTrait, Value,
};
use std::collections::{HashMap, HashSet};
use uuid::Uuid;

/// Rows per upsert statement: 11 parameters each stays under SQLite's 32,766.
const ROWS_PER_STATEMENT: usize = 500;
const COLUMNS: usize = 11;

/// The handle submissions write through.
pub type ScoreWriter = GroupCommit<ScoreRows>;

/// This node's score writer.
pub fn scores(state: &crate::state::AppState) -> &std::sync::Arc<ScoreWriter> {
    &state.parts.scores
}

/// What became of one submitted row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kept {
    /// The row is now the player's stored entry.
    Stored,
    /// The player's stored entry ranks ahead of or level with it; nothing changed.
    NotBetter,
    /// The player is banned from the board; nothing was stored.
    Banned,
    /// The board was deleted meanwhile (on another node); nothing was stored.
    NoBoard,
}

/// One submission's row.
pub struct ScoreRows;

#[async_trait]
impl Batch for ScoreRows {
    type Item = entries::Model;
    type Outcome = Kept;
    type Prepared = ();
    const KIND: &'static str = "scores";
    const ROWS_PER_TRANSACTION: usize = 500;

    fn rows(_: &Self::Item) -> usize {
        1
    }

    async fn prepare(&self, _: &mut Lane, _: &[&entries::Model]) -> Result<(), DbErr> {
        Ok(())
    }

    async fn store(
        &self,
        lane: &mut Lane,
        items: &[&entries::Model],
        _: (),
    ) -> Result<Vec<Kept>, DbErr> {
        if lane.db.get_database_backend() == DbBackend::Postgres {
            return postgres::store(lane.postgres().await?, items).await;
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
        let outcomes = admit_and_keep_best(&txn, items).await?;
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

/// Rows for the same entry reduced to the best of them, as if they had arrived one after
/// another: each key with the index of its best row, in key order, so that concurrent
/// transactions lock the rows they share in the same order and never deadlock.
fn contenders(rows: &[&entries::Model]) -> Vec<(EntryKey, usize)> {
    let mut best: HashMap<EntryKey, usize> = HashMap::with_capacity(rows.len());
    for (index, row) in rows.iter().enumerate() {
        best.entry(key_of(row))
            .and_modify(|held| {
                let current = rows[*held];
                if (row.sort_score, row.reached_at) < (current.sort_score, current.reached_at) {
                    *held = index;
                }
            })
            .or_insert(index);
    }
    let mut contenders: Vec<(EntryKey, usize)> = best.into_iter().collect();
    contenders.sort_unstable();
    contenders
}

/// Each row's outcome from its contender's: a row that lost to a better one of the same key
/// was not stored, but shares its contender's ban and board.
fn spread(rows: &[&entries::Model], contenders: &[(EntryKey, usize)], kept: &[Kept]) -> Vec<Kept> {
    let by_key: HashMap<&EntryKey, Kept> = contenders
        .iter()
        .zip(kept)
        .map(|((key, _), kept)| (key, *kept))
        .collect();
    let mut outcomes: Vec<Kept> = rows
        .iter()
        .map(|row| match by_key[&key_of(row)] {
            Kept::Stored => Kept::NotBetter,
            other => other,
        })
        .collect();
    for ((_, index), kept) in contenders.iter().zip(kept) {
        outcomes[*index] = *kept;
    }
    outcomes
}

/// Stores each row unless the player's stored entry (same board, period and status) ranks ahead
/// of or level with it; returns, per row, whether it was stored. For writes the caller has
/// already checked (moderation), inside the caller's transaction.
pub async fn keep_best(
    db: &impl ConnectionTrait,
    rows: &[&entries::Model],
) -> Result<Vec<bool>, DbErr> {
    let contenders = contenders(rows);
    let stored = upsert_contenders(db, rows, &contenders).await?;
    let kept: Vec<Kept> = contenders
        .iter()
        .map(|(key, _)| {
            if stored.contains(key) {
                Kept::Stored
            } else {
                Kept::NotBetter
            }
        })
        .collect();
    Ok(spread(rows, &contenders, &kept)
        .into_iter()
        .map(|kept| kept == Kept::Stored)
        .collect())
}

/// The portable path (SQLite): reads which boards exist and which players are banned, then
/// upserts the admitted rows, all in the caller's transaction.
async fn admit_and_keep_best(
    txn: &impl ConnectionTrait,
    rows: &[&entries::Model],
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
    let contenders = contenders(rows);
    let admitted: Vec<(EntryKey, usize)> = contenders
        .iter()
        .filter(|((board_id, _, player_id, _), _)| {
            existing.contains(board_id) && !banned.contains(&(*board_id, player_id.clone()))
        })
        .cloned()
        .collect();
    let stored = upsert_contenders(txn, rows, &admitted).await?;
    let kept: Vec<Kept> = contenders
        .iter()
        .map(|(key, _)| {
            let (board_id, _, player_id, _) = key;
            if !existing.contains(board_id) {
                Kept::NoBoard
            } else if banned.contains(&(*board_id, player_id.clone())) {
                Kept::Banned
            } else if stored.contains(key) {
                Kept::Stored
            } else {
                Kept::NotBetter
            }
        })
        .collect();
    Ok(spread(rows, &contenders, &kept))
}

/// Multi-row keep-best upserts of the contenders; returns the keys whose row was stored.
async fn upsert_contenders(
    db: &impl ConnectionTrait,
    rows: &[&entries::Model],
    contenders: &[(EntryKey, usize)],
) -> Result<HashSet<EntryKey>, DbErr> {
    let mut stored = HashSet::new();
    for chunk in contenders.chunks(ROWS_PER_STATEMENT) {
        let chunk: Vec<&entries::Model> = chunk.iter().map(|(_, index)| rows[*index]).collect();
        stored.extend(upsert(db, &chunk).await?);
    }
    Ok(stored)
}

/// Only a row that ranks ahead of the stored entry replaces it.
const KEEP_BEST: &str = "ON CONFLICT (board_id, period, player_id, status) DO UPDATE SET \
     player_name = excluded.player_name, score = excluded.score, sort_score = excluded.sort_score, \
     reached_at = excluded.reached_at, metadata = excluded.metadata, updated_at = excluded.updated_at \
     WHERE excluded.sort_score < leaderboard_entries.sort_score \
     OR (excluded.sort_score = leaderboard_entries.sort_score AND excluded.reached_at < leaderboard_entries.reached_at) \
     RETURNING board_id, period, player_id, status";

/// One multi-row keep-best upsert; returns the keys whose row was inserted or replaced.
async fn upsert(
    db: &impl ConnectionTrait,
    rows: &[&entries::Model],
) -> Result<Vec<EntryKey>, DbErr> {
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
         (id, board_id, period, player_id, status, player_name, score, sort_score, reached_at, metadata, updated_at) \
         VALUES {} {KEEP_BEST}",
        placeholders.join(", ")
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
        ]);
    }
    let statement = Statement::from_sql_and_values(db.get_database_backend(), sql, values);
    db.query_all_raw(statement)
        .await?
        .iter()
        .map(|row| {
            Ok((
                row.try_get::<Uuid>("", "board_id")?,
                row.try_get::<String>("", "period")?,
                row.try_get::<String>("", "player_id")?,
                row.try_get::<String>("", "status")?,
            ))
        })
        .collect()
}

/// PostgreSQL: the whole group is one statement (so one round trip and one commit) whose
/// plan stays prepared: each column travels as one array, and the board and ban checks run
/// in the same snapshot as the upsert.
mod postgres {
    use super::{contenders, spread, Kept};
    use crate::store::pg::db_error;
    use chrono::{DateTime, Utc};
    use entity::leaderboard_entries as entries;
    use sea_orm::{
        sqlx::{self, PgConnection},
        DbErr,
    };

    const STORE: &str = "WITH input AS (SELECT * FROM UNNEST($1::uuid[], $2::uuid[], $3::text[], \
         $4::text[], $5::text[], $6::text[], $7::float8[], $8::float8[], $9::int8[], $10::text[], \
         $11::timestamptz[]) WITH ORDINALITY AS t(id, board_id, period, player_id, status, player_name, \
         score, sort_score, reached_at, metadata, updated_at, n)), \
         checked AS (SELECT i.*, \
         EXISTS (SELECT 1 FROM leaderboards l WHERE l.id = i.board_id) AS board_exists, \
         EXISTS (SELECT 1 FROM leaderboard_bans b WHERE b.board_id = i.board_id AND b.player_id = i.player_id) AS banned \
         FROM input i), \
         stored AS (INSERT INTO leaderboard_entries (id, board_id, period, player_id, status, \
         player_name, score, sort_score, reached_at, metadata, updated_at) \
         SELECT id, board_id, period, player_id, status, player_name, score, sort_score, reached_at, \
         metadata, updated_at FROM checked WHERE board_exists AND NOT banned ORDER BY n \
         ON CONFLICT (board_id, period, player_id, status) DO UPDATE SET \
         player_name = excluded.player_name, score = excluded.score, sort_score = excluded.sort_score, \
         reached_at = excluded.reached_at, metadata = excluded.metadata, updated_at = excluded.updated_at \
         WHERE excluded.sort_score < leaderboard_entries.sort_score \
         OR (excluded.sort_score = leaderboard_entries.sort_score AND excluded.reached_at < leaderboard_entries.reached_at) \
         RETURNING board_id, period, player_id, status) \
         SELECT c.board_exists, c.banned, s.board_id IS NOT NULL AS stored FROM checked c \
         LEFT JOIN stored s ON s.board_id = c.board_id AND s.period = c.period \
         AND s.player_id = c.player_id AND s.status = c.status ORDER BY c.n";

    pub async fn store(
        connection: &mut PgConnection,
        rows: &[&entries::Model],
    ) -> Result<Vec<Kept>, DbErr> {
        let contenders = contenders(rows);
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
        for (_, index) in &contenders {
            let row = rows[*index];
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
        }
        let answers = sqlx::query(STORE)
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
            kept.push(if !board_exists {
                Kept::NoBoard
            } else if banned {
                Kept::Banned
            } else if stored {
                Kept::Stored
            } else {
                Kept::NotBetter
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
