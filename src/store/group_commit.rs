//! Group commit for cold-store writes: requests hand their work to a queue and wait; writer
//! tasks take whatever is queued, store it in one transaction, commit, and then answer every
//! waiting request. Many concurrent requests thus share one commit (one fsync), so the durable
//! path stays fast. One task more than may write at once prepares the next group (the events'
//! quota reservation) while the others write. What is stored and how is up to a [`Batch`];
//! events and leaderboard scores each have one.
use crate::{
    store::{pg::db_error, Db},
    telemetry::GroupMetrics,
};
use async_trait::async_trait;
use sea_orm::{
    sqlx::{pool::PoolConnection, PgConnection, Postgres},
    DbBackend, DbErr,
};
use std::{
    sync::{
        atomic::{AtomicBool, AtomicUsize, Ordering},
        Arc, OnceLock,
    },
    time::{Duration, Instant},
};
use tokio::sync::{mpsc, oneshot, Mutex, Notify, Semaphore};

/// Requests that may wait in the queue before new ones wait to enter it (back-pressure).
const QUEUE_CAPACITY: usize = 4_096;
/// How long a graceful shutdown waits for queued writes.
const FLUSH_TIMEOUT: Duration = Duration::from_secs(30);

/// How one kind of write is stored in a shared transaction.
#[async_trait]
pub trait Batch: Send + Sync + 'static {
    /// What one request hands over.
    type Item: Send + Sync + 'static;
    /// What one request is answered once committed.
    type Outcome: Send + 'static;

    /// The kind of write, as the metrics label it (`events`, `scores`).
    const KIND: &'static str;

    /// A writer stops taking queued requests into its transaction once it holds this many
    /// rows. Kept moderate so that the queue is shared among several writers (PostgreSQL
    /// inserts on several cores) instead of one writer taking it all while the others idle.
    const ROWS_PER_TRANSACTION: usize;

    /// What `prepare` hands on to `store`.
    type Prepared: Send;

    /// Rows an item adds to the transaction.
    fn rows(item: &Self::Item) -> usize;

    /// The part of a group's work that does not write to the cold store (the events' quota
    /// reservations in the hot store). It runs while the previous group is being written.
    async fn prepare(
        &self,
        lane: &mut Lane,
        items: &[&Self::Item],
    ) -> Result<Self::Prepared, DbErr>;

    /// Stores every item in one transaction and commits; returns each item's outcome in order.
    /// When it fails, it undoes what `prepare` did.
    async fn store(
        &self,
        lane: &mut Lane,
        items: &[&Self::Item],
        prepared: Self::Prepared,
    ) -> Result<Vec<Self::Outcome>, DbErr>;
}

/// What one writer task writes with.
pub struct Lane {
    /// Tells the writer tasks of this node apart (0, 1, ...), so a batch can keep rows that
    /// every transaction updates (counters) per lane instead of making writers queue.
    pub index: usize,
    /// The writers' cold store.
    pub db: Db,
    /// On PostgreSQL, the connection this writer keeps from one group to the next, and when it
    /// was last used. Taking one from the pool per group would cost two more round trips per
    /// commit, since the driver pings a connection both when it is handed out and when it
    /// comes back.
    held: Option<(PoolConnection<Postgres>, Instant)>,
}

/// A connection kept unused this long goes back to the pool before the next write, and the
/// write takes one the pool has tested: a proxy or the server may have closed it meanwhile, and
/// the write would fail (503) where a tested connection succeeds. Under load it never applies.
const RECHECK_IDLE: Duration = Duration::from_secs(5);

impl Lane {
    fn new(index: usize, db: Db) -> Self {
        Self {
            index,
            db,
            held: None,
        }
    }

    /// The writer's own PostgreSQL connection, taken from the writers' pool on first use and
    /// after a failed write.
    pub async fn postgres(&mut self) -> Result<&mut PgConnection, DbErr> {
        let held = match self.held.take() {
            Some((held, used)) if used.elapsed() < RECHECK_IDLE => held,
            _ => self
                .db
                .get_postgres_connection_pool()
                .acquire()
                .await
                .map_err(db_error)?,
        };
        let (held, _) = self.held.insert((held, Instant::now()));
        Ok(&mut **held)
    }

    /// After a failed write the connection may be unusable (a broken socket, a half-read
    /// answer): it goes back to the pool, which tests it, and the next group takes one afresh.
    fn let_go(&mut self) {
        self.held = None;
    }
}

/// Why a write did not happen.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("the cold store refused the write: {0}")]
    Store(#[from] DbErr),
    #[error("the writer is shutting down")]
    Closed,
}

struct Job<B: Batch> {
    item: B::Item,
    reply: oneshot::Sender<Result<B::Outcome, DbErr>>,
    /// When the request was handed over (its wait in the queue is measured from here).
    queued: Instant,
}

/// The handle requests write through. Writer tasks start on first use.
pub struct GroupCommit<B: Batch> {
    batch: B,
    db: Db,
    sender: mpsc::Sender<Job<B>>,
    receiver: Mutex<mpsc::Receiver<Job<B>>>,
    started: OnceLock<()>,
    /// Groups written at once on PostgreSQL, which runs several transactions' statements on
    /// several cores while one of them commits. (SQLite writes one at a time anyway.)
    lanes: usize,
    /// A permit per group that may be written at once.
    writing: Semaphore,
    /// Requests handed over and not yet answered.
    pending: AtomicUsize,
    drained: Notify,
    closed: AtomicBool,
}

impl<B: Batch> GroupCommit<B> {
    pub fn new(db: Db, batch: B, lanes: usize) -> Self {
        let (sender, receiver) = mpsc::channel(QUEUE_CAPACITY);
        Self {
            batch,
            db,
            sender,
            receiver: Mutex::new(receiver),
            started: OnceLock::new(),
            lanes: lanes.max(1),
            writing: Semaphore::new(0),
            pending: AtomicUsize::new(0),
            drained: Notify::new(),
            closed: AtomicBool::new(false),
        }
    }

    /// Stores `item` durably; returns once it is committed (or the write failed).
    pub async fn write(self: &Arc<Self>, item: B::Item) -> Result<B::Outcome, WriteError> {
        if self.closed.load(Ordering::Acquire) {
            return Err(WriteError::Closed);
        }
        self.start();
        let (reply, answer) = oneshot::channel();
        self.pending.fetch_add(1, Ordering::AcqRel);
        let job = Job {
            item,
            reply,
            queued: Instant::now(),
        };
        if self.sender.send(job).await.is_err() {
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
            tracing::error!(
                pending = self.pending.load(Ordering::Acquire),
                "writes still queued at shutdown"
            );
        }
    }

    fn finish_one(&self) {
        if self.pending.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.drained.notify_waiters();
        }
    }

    /// Starts one writer task more than groups may be written at once: while those write, the
    /// spare one takes the next group and prepares it, and writes as soon as one of them is done.
    fn start(self: &Arc<Self>) {
        self.started.get_or_init(|| {
            let writers = match self.db.get_database_backend() {
                DbBackend::Sqlite => 1,
                _ => self.lanes,
            };
            self.writing.add_permits(writers);
            for index in 0..=writers {
                let writer = self.clone();
                let lane = Lane::new(index, self.db.clone());
                tokio::spawn(async move { writer.run(lane).await });
            }
        });
    }

    async fn run(self: Arc<Self>, mut lane: Lane) {
        let metrics = GroupMetrics::new(B::KIND);
        loop {
            // The queue stays this task's until it may write, so the next task takes its group
            // only then, and requests that arrive meanwhile gather into that group.
            let mut receiver = self.receiver.lock().await;
            let Some(first) = receiver.recv().await else {
                return;
            };
            let mut rows = B::rows(&first.item);
            let mut jobs = vec![first];
            while rows < B::ROWS_PER_TRANSACTION {
                match receiver.try_recv() {
                    Ok(job) => {
                        rows += B::rows(&job.item);
                        jobs.push(job);
                    }
                    Err(_) => break,
                }
            }
            let items: Vec<&B::Item> = jobs.iter().map(|job| &job.item).collect();
            let prepared = self.batch.prepare(&mut lane, &items).await;
            drop(items);
            let Ok(permit) = self.writing.acquire().await else {
                return;
            };
            drop(receiver);
            metrics.started(jobs.iter().map(|job| job.queued.elapsed()));
            self.commit(jobs, prepared, &mut lane, &metrics).await;
            drop(permit);
        }
    }

    /// Stores a group in one transaction. When that fails for a reason other than the store
    /// being unreachable, each request is retried in its own transaction, so one request's
    /// problem never fails the others that happened to share its commit.
    async fn commit(
        &self,
        jobs: Vec<Job<B>>,
        prepared: Result<B::Prepared, DbErr>,
        lane: &mut Lane,
        metrics: &GroupMetrics,
    ) {
        let items: Vec<&B::Item> = jobs.iter().map(|job| &job.item).collect();
        let started = Instant::now();
        let result = match prepared {
            Ok(prepared) => {
                let stored = self.batch.store(lane, &items, prepared).await;
                if let Err(error) = &stored {
                    // A failed `prepare` was counted where it happened (the hot store's
                    // quota reservation); `store` writes to the cold store.
                    crate::telemetry::cold_store_error(super::cold::is_unavailable(error));
                }
                stored
            }
            Err(error) => Err(error),
        };
        metrics.written(started.elapsed(), result.is_ok());
        drop(items);
        if result.is_err() {
            lane.let_go();
        }
        match result {
            Ok(outcomes) => {
                for (job, outcome) in jobs.into_iter().zip(outcomes) {
                    let _ = job.reply.send(Ok(outcome));
                    self.finish_one();
                }
            }
            Err(error) if jobs.len() > 1 && !super::cold::is_unavailable(&error) => {
                tracing::warn!(error.cause_chain = ?error, jobs = jobs.len(), "group write failed; writing its requests one by one");
                for job in jobs {
                    let outcome = match self.batch.prepare(lane, &[&job.item]).await {
                        Ok(prepared) => self
                            .batch
                            .store(lane, &[&job.item], prepared)
                            .await
                            .map(|mut outcomes| outcomes.remove(0)),
                        Err(error) => Err(error),
                    };
                    if outcome.is_err() {
                        lane.let_go();
                    }
                    let _ = job.reply.send(outcome);
                    self.finish_one();
                }
            }
            Err(error) => {
                tracing::error!(error.cause_chain = ?error, jobs = jobs.len(), "group write failed");
                for job in jobs {
                    let _ = job.reply.send(Err(clone_error(&error)));
                    self.finish_one();
                }
            }
        }
    }
}

/// `DbErr` is not `Clone`; every request of a failed group gets an equivalent error.
fn clone_error(error: &DbErr) -> DbErr {
    if super::cold::is_unavailable(error) {
        DbErr::Conn(sea_orm::RuntimeErr::Internal(error.to_string()))
    } else {
        DbErr::Custom(error.to_string())
    }
}
