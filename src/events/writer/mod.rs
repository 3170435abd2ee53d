//! The events' group commit (see `store::group_commit`): one step reserves the monthly quota of
//! every queued request in the hot store, one transaction stores the rows of those that fit
//! (multi-row INSERTs, chunked under the drivers' bind parameter limits) plus the monthly usage
//! counts and the analytics aggregates (`crate::aggregates`), and amounts not stored are given
//! back.
use super::quota::{counter_name, stored_events};
use crate::aggregates::Tx;
use crate::store::{
    group_commit::{Batch, GroupCommit, Lane},
    hot::{
        quotas::{Ask, Quotas, Reservation},
        HotError,
    },
    Db,
};
use async_trait::async_trait;
use chrono::{DateTime, Datelike, Utc};
use entity::{events, games};
use sea_orm::{
    sea_query::OnConflict, ColumnTrait, ConnectionTrait, DatabaseTransaction, DbBackend, DbErr,
    EntityTrait, QueryFilter, QuerySelect, RuntimeErr, SqliteTransactionMode, Statement,
    TransactionOptions, TransactionTrait,
};
use std::{
    collections::{BTreeMap, HashMap, HashSet},
    sync::Arc,
};
use uuid::Uuid;

mod postgres;

pub use crate::store::group_commit::WriteError;

/// Rows per INSERT statement on SQLite: 14 columns each keeps a statement under its 32,766 bind
/// parameters. (PostgreSQL sends each column as one array parameter instead.)
const ROWS_PER_STATEMENT: usize = 1_000;

/// What happened to one request's rows once committed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Written {
    /// Rows not stored because their game already holds an event with the same `event_id`.
    pub duplicates: u64,
}

/// The handle `/v1/track` requests write through.
pub type EventWriter = GroupCommit<EventRows>;

/// One `/v1/track` request: its rows, stored all together or not at all, and the monthly
/// quota they count against.
pub struct EventRequest {
    pub rows: Vec<events::Model>,
    pub game_id: Uuid,
    /// The quota month (`YYYY-MM`, UTC) and the game's monthly limit.
    pub month: String,
    pub limit: u64,
}

/// What became of one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Committed {
    /// Stored. `used` is the month's count after it; retried events already stored are
    /// accepted but not counted twice.
    Stored { used: u64 },
    /// The quota cannot hold the request: nothing stored. `current` is the month's count.
    OverQuota { current: u64 },
}

/// The quota reservation of a group's requests, in order, with their counters.
pub struct Reserved {
    counters: Vec<String>,
    answers: Vec<Reservation>,
}

/// Stores requests' rows, each request all or nothing, against the games' quotas.
pub struct EventRows {
    pub quotas: Arc<dyn Quotas>,
    /// The node's pool, not the writers': every writer task may be holding a connection of
    /// theirs (see `connect_writers` in `app.rs`), and a rebuild read waiting for one of them
    /// would wait until the pool gave up.
    pub reads: Db,
}

#[async_trait]
impl Batch for EventRows {
    type Item = EventRequest;
    type Outcome = Committed;
    type Prepared = Reserved;
    const KIND: &'static str = "events";
    const ROWS_PER_TRANSACTION: usize = 500;

    fn rows(item: &Self::Item) -> usize {
        item.rows.len()
    }

    async fn prepare(&self, _: &mut Lane, items: &[&EventRequest]) -> Result<Reserved, DbErr> {
        let counters: Vec<String> = items
            .iter()
            .map(|item| counter_name(item.game_id, &item.month))
            .collect();
        let answers = self.reserve(&self.reads, items, &counters).await?;
        Ok(Reserved { counters, answers })
    }

    async fn store(
        &self,
        lane: &mut Lane,
        items: &[&EventRequest],
        reserved: Reserved,
    ) -> Result<Vec<Committed>, DbErr> {
        let Reserved { counters, answers } = reserved;
        let admitted: Vec<(usize, u64)> = answers
            .iter()
            .enumerate()
            .filter_map(|(index, answer)| match answer {
                Reservation::Reserved { used } => Some((index, *used)),
                _ => None,
            })
            .collect();
        let jobs: Vec<&[events::Model]> = admitted
            .iter()
            .map(|(index, _)| items[*index].rows.as_slice())
            .collect();
        let written = if jobs.is_empty() {
            Vec::new()
        } else {
            match store(lane, &jobs).await {
                Ok(written) => written,
                Err(error) => {
                    let reserved = admitted.iter().map(|(index, _)| {
                        (counters[*index].as_str(), items[*index].rows.len() as u64)
                    });
                    self.give_back(reserved).await;
                    return Err(error);
                }
            }
        };
        // A retried event already stored is accepted but not charged twice.
        crate::telemetry::events_deduplicated(written.iter().map(|w| w.duplicates).sum());
        let duplicates = admitted
            .iter()
            .zip(&written)
            .map(|((index, _), written)| (counters[*index].as_str(), written.duplicates));
        self.give_back(duplicates).await;
        let stored = admitted.iter().zip(&written).map(|((index, _), written)| {
            let rows = items[*index].rows.len() as u64;
            (
                counters[*index].as_str(),
                rows.saturating_sub(written.duplicates),
            )
        });
        self.settle(stored);
        let mut outcomes: Vec<Committed> = answers
            .iter()
            .map(|answer| match answer {
                Reservation::Refused { current } => Committed::OverQuota { current: *current },
                // `reserve` leaves no ask missing: the rest were reserved and are filled in below.
                _ => Committed::Stored { used: 0 },
            })
            .collect();
        for ((index, used), written) in admitted.iter().zip(&written) {
            outcomes[*index] = Committed::Stored {
                used: used.saturating_sub(written.duplicates),
            };
        }
        Ok(outcomes)
    }
}

impl EventRows {
    /// Reserves every request's events, in queue order, each all or nothing. Counters missing
    /// from the hot store are rebuilt from the cold store's usage counts first.
    async fn reserve(
        &self,
        db: &Db,
        items: &[&EventRequest],
        counters: &[String],
    ) -> Result<Vec<Reservation>, DbErr> {
        let asks: Vec<Ask<'_>> = items
            .iter()
            .zip(counters)
            .map(|(item, counter)| Ask {
                counter,
                amount: item.rows.len() as u64,
                limit: item.limit,
            })
            .collect();
        let mut answers = self
            .quotas
            .reserve_all(&asks, &HashMap::new())
            .await
            .map_err(hot_unavailable)?;
        let missing: Vec<usize> = (0..answers.len())
            .filter(|index| answers[*index] == Reservation::Missing)
            .collect();
        if missing.is_empty() {
            return Ok(answers);
        }
        let retried = self.rebuild_and_reserve(db, items, &asks, &missing).await;
        match retried {
            Ok(retried) if !retried.contains(&Reservation::Missing) => {
                for (index, answer) in missing.into_iter().zip(retried) {
                    answers[index] = answer;
                }
                Ok(answers)
            }
            failed => {
                let reserved = answers.iter().zip(&asks).filter_map(|(answer, ask)| {
                    matches!(answer, Reservation::Reserved { .. })
                        .then_some((ask.counter, ask.amount))
                });
                self.give_back(reserved).await;
                Err(failed.err().unwrap_or_else(|| {
                    hot_unavailable(HotError::Reply(
                        "quota counter missing after its rebuild".into(),
                    ))
                }))
            }
        }
    }

    /// Reads the stored count of each missing counter and reserves the missing asks again with
    /// it; the first rebuild to reach the hot store wins.
    async fn rebuild_and_reserve(
        &self,
        db: &Db,
        items: &[&EventRequest],
        asks: &[Ask<'_>],
        missing: &[usize],
    ) -> Result<Vec<Reservation>, DbErr> {
        let mut rebuilt: HashMap<String, u64> = HashMap::new();
        for index in missing {
            let (item, counter) = (items[*index], asks[*index].counter);
            if !rebuilt.contains_key(counter) {
                let stored = stored_events(db, item.game_id, &item.month).await?;
                tracing::info!(game_id = %item.game_id, month = %item.month, stored, "quota counter rebuilt from the cold store");
                rebuilt.insert(counter.to_string(), stored);
            }
        }
        let again: Vec<Ask<'_>> = missing.iter().map(|index| asks[*index]).collect();
        self.quotas
            .reserve_all(&again, &rebuilt)
            .await
            .map_err(hot_unavailable)
    }

    /// Gives back amounts reserved for events not stored. Failing to give back only errs on
    /// the safe side (the game is charged for events it did not store), so it is logged.
    async fn give_back<'a>(&self, amounts: impl Iterator<Item = (&'a str, u64)>) {
        let amounts: Vec<(&str, u64)> = amounts.filter(|(_, amount)| *amount > 0).collect();
        if amounts.is_empty() {
            return;
        }
        if let Err(error) = self.quotas.release_all(&amounts).await {
            tracing::warn!(error.cause_chain = ?error, "quota release failed");
        }
    }
}

impl EventRows {
    /// Tells the hot store the reserved events are stored, so it no longer holds them for
    /// this node. Sent off beside the writer's next turn, not waited for: the events are
    /// committed and counted either way, and a hold lingering a moment only delays a reclaim.
    /// A failure is logged: the hold then lapses with the node's lease and the worker
    /// rebuilds the counter from the cold store, which holds these events.
    fn settle<'a>(&self, amounts: impl Iterator<Item = (&'a str, u64)>) {
        let amounts: Vec<(String, u64)> = amounts
            .filter(|(_, amount)| *amount > 0)
            .map(|(counter, amount)| (counter.to_string(), amount))
            .collect();
        if amounts.is_empty() {
            return;
        }
        let quotas = self.quotas.clone();
        tokio::spawn(async move {
            let amounts: Vec<(&str, u64)> = amounts.iter().map(|(c, a)| (c.as_str(), *a)).collect();
            if let Err(error) = quotas.settle_all(&amounts).await {
                tracing::warn!(error.cause_chain = ?error, "quota settle failed");
            }
        });
    }
}

/// A hot-store failure fails the group like an unreachable cold store: 503, retry.
fn hot_unavailable(error: HotError) -> DbErr {
    tracing::error!(error.cause_chain = ?error, "hot store unavailable");
    crate::telemetry::hot_store_error(error.kind());
    DbErr::Conn(RuntimeErr::Internal(format!("hot store: {error}")))
}

/// Usage shards per game and month. A node's writers each add to their own, starting at an
/// offset drawn per process so that the writers of different nodes mostly differ too.
const USAGE_SHARDS: usize = 16;

fn usage_shard(lane: usize) -> i16 {
    static NODE_OFFSET: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    let offset = *NODE_OFFSET.get_or_init(|| rand::random::<usize>() % USAGE_SHARDS);
    ((offset + lane) % USAGE_SHARDS) as i16
}

/// `YYYY-MM` of a UTC time: the quota month.
pub fn month_of(at: DateTime<Utc>) -> String {
    format!("{:04}-{:02}", at.year(), at.month())
}

/// Writes every job's rows and the usage counts in one transaction; returns each job's outcome.
async fn store(lane: &mut Lane, jobs: &[&[events::Model]]) -> Result<Vec<Written>, DbErr> {
    let shard = usage_shard(lane.index);
    match lane.db.get_database_backend() {
        DbBackend::Postgres => postgres::store(lane.postgres().await?, jobs, shard).await,
        _ => store_portable(&lane.db, jobs, shard).await,
    }
}

/// Rows without an event_id cannot conflict; rows with one may repeat an earlier event, and
/// RETURNING tells which of them were new.
fn split<'a>(jobs: &[&'a [events::Model]]) -> (Vec<&'a events::Model>, Vec<&'a events::Model>) {
    jobs.iter()
        .flat_map(|rows| rows.iter())
        .partition(|r| r.event_id.is_none())
}

/// A row with an `event_id` that is not among the ids the insert returned repeats a stored event.
fn is_duplicate(row: &events::Model, inserted_keyed: &HashSet<Uuid>) -> bool {
    row.event_id.is_some() && !inserted_keyed.contains(&row.id)
}

/// Each job's duplicates.
fn outcomes(jobs: &[&[events::Model]], inserted_keyed: &HashSet<Uuid>) -> Vec<Written> {
    jobs.iter()
        .map(|rows| Written {
            duplicates: rows
                .iter()
                .filter(|row| is_duplicate(row, inserted_keyed))
                .count() as u64,
        })
        .collect()
}

/// The stored events per (game, month), ordered so that concurrent writers lock usage rows in
/// the same order. (On PostgreSQL the statement counts them itself.)
fn usage<'a>(stored: impl Iterator<Item = &'a events::Model>) -> BTreeMap<(Uuid, String), i64> {
    let mut usage: BTreeMap<(Uuid, String), i64> = BTreeMap::new();
    for row in stored {
        *usage
            .entry((row.game_id, month_of(row.received_at)))
            .or_default() += 1;
    }
    usage
}

const ADD_USAGE: &str = "INSERT INTO event_usage_shards (game_id, month, shard, events) \
     VALUES ($1, $2, $3, $4) ON CONFLICT (game_id, month, shard) \
     DO UPDATE SET events = event_usage_shards.events + excluded.events";

/// SeaORM multi-row INSERTs, chunked under the bind parameter limits (SQLite). Rows of a game
/// deleted meanwhile are not stored, as on PostgreSQL. The transaction takes SQLite's write
/// lock from the start (IMMEDIATE): the game cannot go before the commit, and a transaction
/// that read first could not take the lock later once another writer had committed.
async fn store_portable(
    db: &Db,
    jobs: &[&[events::Model]],
    shard: i16,
) -> Result<Vec<Written>, DbErr> {
    let txn = db
        .begin_with_options(TransactionOptions {
            sqlite_transaction_mode: Some(SqliteTransactionMode::Immediate),
            ..Default::default()
        })
        .await?;
    let live = live_games(&txn, jobs).await?;
    let (mut plain, mut keyed) = split(jobs);
    plain.retain(|r| live.contains(&r.game_id));
    keyed.retain(|r| live.contains(&r.game_id));
    for chunk in plain.chunks(ROWS_PER_STATEMENT) {
        events::Entity::insert_many(
            chunk
                .iter()
                .map(|r| events::ActiveModel::from((*r).clone())),
        )
        .exec_without_returning(&txn)
        .await?;
    }
    let mut inserted_keyed: HashSet<Uuid> = HashSet::new();
    for chunk in keyed.chunks(ROWS_PER_STATEMENT) {
        let ids = events::Entity::insert_many(
            chunk
                .iter()
                .map(|r| events::ActiveModel::from((*r).clone())),
        )
        .on_conflict(
            OnConflict::columns([events::Column::GameId, events::Column::EventId])
                .do_nothing()
                .to_owned(),
        )
        .exec_with_returning_keys(&txn)
        .await?;
        inserted_keyed.extend(ids);
    }
    let stored: Vec<&events::Model> = plain
        .iter()
        .copied()
        .chain(
            keyed
                .iter()
                .copied()
                .filter(|r| inserted_keyed.contains(&r.id)),
        )
        .collect();
    add_usage(&txn, usage(stored.iter().copied()), shard).await?;
    crate::aggregates::ingest::add(&mut Tx::SeaOrm(&txn), &stored, shard).await?;
    txn.commit().await?;
    Ok(outcomes(jobs, &inserted_keyed))
}

/// The games of the group's rows that still exist.
async fn live_games(
    txn: &DatabaseTransaction,
    jobs: &[&[events::Model]],
) -> Result<HashSet<Uuid>, DbErr> {
    let wanted: HashSet<Uuid> = jobs
        .iter()
        .flat_map(|rows| rows.iter().map(|r| r.game_id))
        .collect();
    let found = games::Entity::find()
        .select_only()
        .column(games::Column::Id)
        .filter(games::Column::Id.is_in(wanted))
        .into_tuple::<Uuid>()
        .all(txn)
        .await?;
    Ok(found.into_iter().collect())
}

async fn add_usage(
    txn: &DatabaseTransaction,
    usage: BTreeMap<(Uuid, String), i64>,
    shard: i16,
) -> Result<(), DbErr> {
    let backend = txn.get_database_backend();
    for ((game_id, month), events) in usage {
        txn.execute_raw(Statement::from_sql_and_values(
            backend,
            ADD_USAGE,
            [game_id.into(), month.into(), shard.into(), events.into()],
        ))
        .await?;
    }
    Ok(())
}
