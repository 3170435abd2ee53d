//! Group commit: requests hand their rows to a queue and wait; a writer task takes whatever is
//! queued, stores it in one transaction (multi-row INSERTs, chunked under the drivers' bind
//! parameter limits, plus the monthly usage counts), commits, and then answers every waiting
//! request. Many concurrent requests thus share one commit, so the durable path stays fast.
use crate::store::Db;
use chrono::{DateTime, Datelike, Utc};
use entity::events;
use sea_orm::{
    sea_query::OnConflict, ConnectionTrait, DatabaseTransaction, DbBackend, DbErr, EntityTrait, Statement,
    TransactionTrait,
};
use std::{
    collections::{BTreeMap, HashSet},
    sync::{
        atomic::{AtomicBool, AtomicUsize, Ordering},
        Arc, OnceLock,
    },
    time::Duration,
};
use tokio::sync::{mpsc, oneshot, Mutex, Notify};
use uuid::Uuid;

/// Rows per INSERT statement: 14 columns each keeps a statement under SQLite's 32,766 and
/// PostgreSQL's 65,535 bind parameters.
const ROWS_PER_STATEMENT: usize = 1_000;
/// A writer stops taking queued requests into its transaction once it holds this many rows.
const ROWS_PER_TRANSACTION: usize = 4_000;
/// Requests that may wait in the queue before new ones wait to enter it (back-pressure).
const QUEUE_CAPACITY: usize = 4_096;
/// How long a graceful shutdown waits for queued writes.
const FLUSH_TIMEOUT: Duration = Duration::from_secs(30);

/// Why a write did not happen.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("the cold store refused the write: {0}")]
    Store(#[from] DbErr),
    #[error("the writer is shutting down")]
    Closed,
}

/// What happened to one request's rows once committed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Written {
    /// Rows not stored because their game already holds an event with the same `event_id`.
    pub duplicates: u64,
}

struct Job {
    rows: Vec<events::Model>,
    reply: oneshot::Sender<Result<Written, DbErr>>,
}

/// The handle requests write through. Writer tasks start on first use.
pub struct EventWriter {
    db: Db,
    sender: mpsc::Sender<Job>,
    receiver: Arc<Mutex<mpsc::Receiver<Job>>>,
    started: OnceLock<()>,
    /// Requests handed over and not yet answered.
    pending: AtomicUsize,
    drained: Notify,
    closed: AtomicBool,
}

impl EventWriter {
    pub fn new(db: Db) -> Self {
        let (sender, receiver) = mpsc::channel(QUEUE_CAPACITY);
        Self {
            db,
            sender,
            receiver: Arc::new(Mutex::new(receiver)),
            started: OnceLock::new(),
            pending: AtomicUsize::new(0),
            drained: Notify::new(),
            closed: AtomicBool::new(false),
        }
    }

    /// Stores `rows` durably; returns once they are committed (or the write failed).
    pub async fn write(self: &Arc<Self>, rows: Vec<events::Model>) -> Result<Written, WriteError> {
        if self.closed.load(Ordering::Acquire) {
            return Err(WriteError::Closed);
        }
        self.start();
        let (reply, answer) = oneshot::channel();
        self.pending.fetch_add(1, Ordering::AcqRel);
        if self.sender.send(Job { rows, reply }).await.is_err() {
            self.finish_one();
            return Err(WriteError::Closed);
        }
        match answer.await {
            Ok(result) => Ok(result?),
            Err(_) => Err(WriteError::Closed),
        }
    }

    /// Refuses new writes and waits until every queued one is committed and answered.
    pub async fn flush(&self) {
        self.closed.store(true, Ordering::Release);
        let drained = async {
            loop {
                let notified = self.drained.notified();
                if self.pending.load(Ordering::Acquire) == 0 {
                    return;
                }
                notified.await;
            }
        };
        if tokio::time::timeout(FLUSH_TIMEOUT, drained).await.is_err() {
            tracing::error!(pending = self.pending.load(Ordering::Acquire), "event writes still queued at shutdown");
        }
    }

    fn finish_one(&self) {
        if self.pending.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.drained.notify_waiters();
        }
    }

    fn start(self: &Arc<Self>) {
        self.started.get_or_init(|| {
            // SQLite has one writer at a time anyway; PostgreSQL overlaps the INSERTs of a few
            // transactions while one of them commits.
            let writers = match self.db.get_database_backend() {
                DbBackend::Sqlite => 1,
                _ => 3,
            };
            for _ in 0..writers {
                let writer = self.clone();
                tokio::spawn(async move { writer.run().await });
            }
        });
    }

    async fn run(self: Arc<Self>) {
        loop {
            let batch = {
                let mut receiver = self.receiver.lock().await;
                let Some(first) = receiver.recv().await else { return };
                let mut rows = first.rows.len();
                let mut batch = vec![first];
                while rows < ROWS_PER_TRANSACTION {
                    match receiver.try_recv() {
                        Ok(job) => {
                            rows += job.rows.len();
                            batch.push(job);
                        }
                        Err(_) => break,
                    }
                }
                batch
            };
            self.commit(batch).await;
        }
    }

    /// Stores a batch in one transaction. When that fails for a reason other than the store
    /// being unreachable, each request is retried in its own transaction, so one request's
    /// problem never fails the others that happened to share its commit.
    async fn commit(&self, batch: Vec<Job>) {
        let all: Vec<&[events::Model]> = batch.iter().map(|job| job.rows.as_slice()).collect();
        let result = store(&self.db, &all).await;
        match result {
            Ok(outcomes) => {
                for (job, outcome) in batch.into_iter().zip(outcomes) {
                    let _ = job.reply.send(Ok(outcome));
                    self.finish_one();
                }
            }
            Err(error) if batch.len() > 1 && !crate::error::is_unavailable(&error) => {
                tracing::warn!(error.cause_chain = ?error, jobs = batch.len(), "group write failed; writing its requests one by one");
                for job in batch {
                    let outcome = store(&self.db, &[job.rows.as_slice()]).await.map(|mut o| o.remove(0));
                    let _ = job.reply.send(outcome);
                    self.finish_one();
                }
            }
            Err(error) => {
                tracing::error!(error.cause_chain = ?error, jobs = batch.len(), "event write failed");
                for job in batch {
                    let _ = job.reply.send(Err(clone_error(&error)));
                    self.finish_one();
                }
            }
        }
    }
}

/// `YYYY-MM` of a UTC time: the quota month.
pub fn month_of(at: DateTime<Utc>) -> String {
    format!("{:04}-{:02}", at.year(), at.month())
}

/// Writes every job's rows and the usage counts in one transaction; returns each job's outcome.
async fn store(db: &Db, jobs: &[&[events::Model]]) -> Result<Vec<Written>, DbErr> {
    let txn = db.begin().await?;
    // Rows without an event_id cannot conflict; rows with one may repeat an earlier event, and
    // RETURNING tells which of them were new.
    let plain: Vec<&events::Model> = jobs.iter().flat_map(|rows| rows.iter()).filter(|r| r.event_id.is_none()).collect();
    let keyed: Vec<&events::Model> = jobs.iter().flat_map(|rows| rows.iter()).filter(|r| r.event_id.is_some()).collect();
    for chunk in plain.chunks(ROWS_PER_STATEMENT) {
        events::Entity::insert_many(chunk.iter().map(|r| events::ActiveModel::from((*r).clone())))
            .exec_without_returning(&txn)
            .await?;
    }
    let mut inserted_keyed: HashSet<Uuid> = HashSet::new();
    for chunk in keyed.chunks(ROWS_PER_STATEMENT) {
        let ids = events::Entity::insert_many(chunk.iter().map(|r| events::ActiveModel::from((*r).clone())))
            .on_conflict(
                OnConflict::columns([events::Column::GameId, events::Column::EventId])
                    .do_nothing()
                    .to_owned(),
            )
            .exec_with_returning_keys(&txn)
            .await?;
        inserted_keyed.extend(ids);
    }

    let mut outcomes = Vec::with_capacity(jobs.len());
    // Ordered by (game, month) so concurrent writers lock usage rows in the same order.
    let mut usage: BTreeMap<(Uuid, String), i64> = BTreeMap::new();
    for rows in jobs {
        let mut duplicates = 0;
        for row in rows.iter() {
            if row.event_id.is_some() && !inserted_keyed.contains(&row.id) {
                duplicates += 1;
            } else {
                *usage.entry((row.game_id, month_of(row.received_at))).or_default() += 1;
            }
        }
        outcomes.push(Written { duplicates });
    }
    add_usage(&txn, usage).await?;
    txn.commit().await?;
    Ok(outcomes)
}

async fn add_usage(txn: &DatabaseTransaction, usage: BTreeMap<(Uuid, String), i64>) -> Result<(), DbErr> {
    let backend = txn.get_database_backend();
    for ((game_id, month), events) in usage {
        txn.execute_raw(Statement::from_sql_and_values(
            backend,
            "INSERT INTO event_usage (game_id, month, events) VALUES ($1, $2, $3) \
             ON CONFLICT (game_id, month) DO UPDATE SET events = event_usage.events + excluded.events",
            [game_id.into(), month.into(), events.into()],
        ))
        .await?;
    }
    Ok(())
}

/// `DbErr` is not `Clone`; every request of a failed batch gets an equivalent error.
fn clone_error(error: &DbErr) -> DbErr {
    if crate::error::is_unavailable(error) {
        DbErr::Conn(sea_orm::RuntimeErr::Internal(error.to_string()))
    } else {
        DbErr::Custom(error.to_string())
    }
}
