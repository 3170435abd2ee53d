//! Score submissions written through to the cold store by group commit (see
//! `store::group_commit`): concurrent submissions share one keep-best upsert and one commit.
use crate::store::{
    group_commit::{Batch, GroupCommit},
    Db,
};
use async_trait::async_trait;
use entity::leaderboard_entries as entries;
use sea_orm::{ConnectionTrait, DbErr, Statement, TransactionTrait, Value};
use std::collections::{HashMap, HashSet};
use uuid::Uuid;

/// Rows per upsert statement: 11 parameters each stays under SQLite's 32,766.
const ROWS_PER_STATEMENT: usize = 500;
const COLUMNS: usize = 11;

/// The handle submissions write through.
pub type ScoreWriter = GroupCommit<ScoreRows>;

/// One submission's row; its outcome is whether it became the player's stored entry.
pub struct ScoreRows;

#[async_trait]
impl Batch for ScoreRows {
    type Item = entries::Model;
    type Outcome = bool;
    const ROWS_PER_TRANSACTION: usize = 500;

    fn rows(_: &Self::Item) -> usize {
        1
    }

    async fn store(
        &self,
        db: &Db,
        items: &[&entries::Model],
        _lane: usize,
    ) -> Result<Vec<bool>, DbErr> {
        let txn = db.begin().await?;
        let outcomes = keep_best(&txn, items).await?;
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

/// Stores each row unless the player's stored entry (same board, period and status) ranks ahead
/// of or level with it; returns, per row, whether it was stored. Rows for the same entry are
/// first reduced to the best of them, as if they had arrived one after another.
pub async fn keep_best(
    db: &impl ConnectionTrait,
    rows: &[&entries::Model],
) -> Result<Vec<bool>, DbErr> {
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
    // In key order, so concurrent transactions lock the rows they share in the same order
    // and never deadlock.
    let mut contenders: Vec<(EntryKey, usize)> = best.into_iter().collect();
    contenders.sort_unstable();
    let mut stored: HashSet<EntryKey> = HashSet::new();
    for chunk in contenders.chunks(ROWS_PER_STATEMENT) {
        let chunk: Vec<&entries::Model> = chunk.iter().map(|(_, index)| rows[*index]).collect();
        stored.extend(upsert(db, &chunk).await?);
    }
    // Only the row that competed for its entry (the best of its key) can have been stored.
    let mut outcomes = vec![false; rows.len()];
    for (key, index) in contenders {
        outcomes[index] = stored.contains(&key);
    }
    Ok(outcomes)
}

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
         VALUES {} \
         ON CONFLICT (board_id, period, player_id, status) DO UPDATE SET \
         player_name = excluded.player_name, score = excluded.score, sort_score = excluded.sort_score, \
         reached_at = excluded.reached_at, metadata = excluded.metadata, updated_at = excluded.updated_at \
         WHERE excluded.sort_score < leaderboard_entries.sort_score \
         OR (excluded.sort_score = leaderboard_entries.sort_score AND excluded.reached_at < leaderboard_entries.reached_at) \
         RETURNING board_id, period, player_id, status",
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
