//! Counting events stored before the aggregates (or rebuilding a game's aggregates from its
//! events), in batches, while ingestion goes on.
//!
//! A game to count has a row in `analytics_backfill` with a boundary time: ingest leaves the
//! game's events created (UUIDv7 time) at or before the boundary to the backfill and counts
//! the rest itself, so each event is counted exactly once whatever the order. The backfill
//! walks the game's events by id from its cursor, `BATCH` at a time, each batch and the
//! cursor in one transaction, and deletes the row when it passes the boundary. It waits
//! until the boundary is `GRACE` old, so that a request holding events made before the
//! boundary has been stored by then. The migration that made the aggregates queues every game
//! with events; `playtrace aggregates rebuild` queues games again.
use super::{ingest::counted_by_backfill, Tx};
use crate::store::Db;
use chrono::Utc;
use entity::events;
use sea_orm::{
    ColumnTrait, ConnectionTrait, DbBackend, DbErr, EntityTrait, QueryFilter, QueryOrder,
    QuerySelect, Statement, TransactionTrait,
};
use std::time::Duration;
use uuid::Uuid;

/// Events counted per transaction.
pub const BATCH: u64 = 5_000;
/// How old a boundary must be before the backfill passes it.
pub const GRACE: Duration = Duration::from_secs(60);

/// What one pass did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    pub events: u64,
    pub games_done: u64,
    pub games_waiting: u64,
}

fn now_ms() -> i64 {
    Utc::now().timestamp_millis()
}

async fn execute(
    db: &impl ConnectionTrait,
    sql: &str,
    values: Vec<sea_orm::Value>,
) -> Result<u64, DbErr> {
    Ok(db
        .execute_raw(Statement::from_sql_and_values(
            db.get_database_backend(),
            sql,
            values,
        ))
        .await?
        .rows_affected())
}

/// Queues `games` (every game with events when `None`) to be counted again from their events:
/// their aggregates are cleared and the backfill starts over, in one transaction per game
/// that waits for the game's writes in progress (PostgreSQL: a lock on the game's row the
/// event writers share) and holds new ones back until it commits.
pub async fn rebuild(db: &Db, games: Option<Vec<Uuid>>) -> Result<usize, DbErr> {
    let games = match games {
        Some(games) => games,
        None => {
            entity::games::Entity::find()
                .select_only()
                .column(entity::games::Column::Id)
                .into_tuple::<Uuid>()
                .all(db)
                .await?
        }
    };
    for game_id in &games {
        let txn = db
            .begin_with_options(sea_orm::TransactionOptions {
                sqlite_transaction_mode: Some(sea_orm::SqliteTransactionMode::Immediate),
                ..Default::default()
            })
            .await?;
        if txn.get_database_backend() == DbBackend::Postgres {
            execute(
                &txn,
                "SELECT id FROM games WHERE id = $1 FOR UPDATE",
                vec![(*game_id).into()],
            )
            .await?;
        }
        super::forget_game(&txn, *game_id).await?;
        execute(
            &txn,
            "INSERT INTO analytics_backfill (game_id, boundary_ms) VALUES ($1, $2)",
            vec![(*game_id).into(), now_ms().into()],
        )
        .await?;
        txn.commit().await?;
    }
    Ok(games.len())
}

/// Whether the game's stored events are still to be counted: its aggregates, and every figure
/// read from them, are partial until they are.
pub async fn is_queued(db: &impl ConnectionTrait, game_id: Uuid) -> Result<bool, DbErr> {
    let row = db
        .query_one_raw(Statement::from_sql_and_values(
            db.get_database_backend(),
            "SELECT 1 AS queued FROM analytics_backfill WHERE game_id = $1",
            [game_id.into()],
        ))
        .await?;
    Ok(row.is_some())
}

/// Counts batches of every queued game whose boundary is `grace` old, for about `budget`.
pub async fn pass(db: &Db, grace: Duration, budget: Duration) -> Result<Progress, DbErr> {
    let started = std::time::Instant::now();
    let queued = db
        .query_all_raw(Statement::from_string(
            db.get_database_backend(),
            "SELECT game_id, boundary_ms FROM analytics_backfill",
        ))
        .await?;
    let mut progress = Progress::default();
    for row in queued {
        let game_id: Uuid = row.try_get("", "game_id")?;
        let boundary_ms: i64 = row.try_get("", "boundary_ms")?;
        if boundary_ms + grace.as_millis() as i64 > now_ms() {
            progress.games_waiting += 1;
            continue;
        }
        loop {
            let (counted, done) = batch(db, game_id).await?;
            progress.events += counted;
            if done {
                progress.games_done += 1;
                break;
            }
            if started.elapsed() >= budget {
                return Ok(progress);
            }
        }
    }
    Ok(progress)
}

/// Counts the next batch of a game's events: how many, and whether the game is done.
async fn batch(db: &Db, game_id: Uuid) -> Result<(u64, bool), DbErr> {
    let txn = db
        .begin_with_options(sea_orm::TransactionOptions {
            sqlite_transaction_mode: Some(sea_orm::SqliteTransactionMode::Immediate),
            ..Default::default()
        })
        .await?;
    let lock = if txn.get_database_backend() == DbBackend::Postgres {
        " FOR UPDATE"
    } else {
        ""
    };
    // Locked, so that two workers never count the same batch.
    let Some(row) = txn
        .query_one_raw(Statement::from_sql_and_values(
            txn.get_database_backend(),
            format!("SELECT boundary_ms, cursor FROM analytics_backfill WHERE game_id = $1{lock}"),
            [game_id.into()],
        ))
        .await?
    else {
        return Ok((0, true));
    };
    let boundary_ms: i64 = row.try_get("", "boundary_ms")?;
    let cursor: Option<Uuid> = row.try_get("", "cursor")?;
    let mut query = events::Entity::find().filter(events::Column::GameId.eq(game_id));
    if let Some(cursor) = cursor {
        query = query.filter(events::Column::Id.gt(cursor));
    }
    let mut rows = query
        .order_by_asc(events::Column::Id)
        .limit(BATCH)
        .all(&txn)
        .await?;
    let full = rows.len() as u64 == BATCH;
    let before = rows.len();
    rows.retain(|row| counted_by_backfill(row.id, boundary_ms));
    let passed_boundary = rows.len() < before;
    let refs: Vec<&events::Model> = rows.iter().collect();
    super::ingest::add_game(&mut Tx::SeaOrm(&txn), game_id, &refs, 0).await?;
    let done = !full || passed_boundary;
    if done {
        execute(
            &txn,
            "DELETE FROM analytics_backfill WHERE game_id = $1",
            vec![game_id.into()],
        )
        .await?;
    } else if let Some(last) = rows.last() {
        execute(
            &txn,
            "UPDATE analytics_backfill SET cursor = $2 WHERE game_id = $1",
            vec![game_id.into(), last.id.into()],
        )
        .await?;
    }
    txn.commit().await?;
    tracing::info!(%game_id, counted = rows.len(), done, "aggregates backfill batch");
    Ok((rows.len() as u64, done))
}

/// Runs passes until nothing is queued (`playtrace aggregates rebuild`, and tests), waiting
/// for boundaries to be `grace` old.
pub async fn run_to_end(db: &Db, grace: Duration) -> Result<u64, DbErr> {
    let mut counted = 0;
    loop {
        let progress = pass(db, grace, Duration::from_secs(10)).await?;
        counted += progress.events;
        if progress.events == 0 && progress.games_waiting == 0 && progress.games_done == 0 {
            return Ok(counted);
        }
        if progress.events == 0 && progress.games_done == 0 {
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    }
}
