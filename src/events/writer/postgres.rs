//! PostgreSQL: each column travels as one array and `UNNEST` turns them back into rows, so a
//! batch of any size is one statement with 14 parameters whose plan stays prepared; the
//! aggregates follow in the same transaction.
use super::{outcomes, split, Written};
use crate::aggregates::Tx;
use crate::store::pg::db_error;
use chrono::{DateTime, Utc};
use entity::events;
use sea_orm::{
    sqlx::{self, postgres::PgArguments, query::Query, PgConnection, Postgres},
    DbErr,
};
use std::{collections::HashSet, sync::LazyLock};
use uuid::Uuid;

const COLUMNS: &str = "id, game_id, api_key_id, environment, event_name, event_id, \
     player_id, session_id, actor_id, properties, revenue_amount, log_level, occurred_at, \
     received_at";
const ARRAY_TYPES: [&str; 14] = [
    "uuid",
    "uuid",
    "uuid",
    "text",
    "text",
    "text",
    "text",
    "text",
    "text",
    "text",
    "float8",
    "text",
    "timestamptz",
    "timestamptz",
];

/// An INSERT of the rows whose 14 columns are the arrays `$first` onwards, but for rows of
/// games missing from `live`.
fn insert_from_arrays(first: usize) -> String {
    let arrays: Vec<String> = ARRAY_TYPES
        .iter()
        .enumerate()
        .map(|(i, kind)| format!("${}::{kind}[]", first + i))
        .collect();
    let selected = COLUMNS.replace("properties,", "properties::jsonb,");
    format!(
        "INSERT INTO events ({COLUMNS}) SELECT {selected} FROM UNNEST({}) AS t({COLUMNS}) \
         WHERE t.game_id IN (SELECT id FROM live)",
        arrays.join(", ")
    )
}

/// The games of the rows whose `game_id` arrays are `games`, locked against deletion until
/// the statement's transaction ends. Events have no foreign key to their game on
/// PostgreSQL (it would look the game up once per row); this is the same check and lock
/// once per game. A game deleted meanwhile is not there, and its rows are not stored.
fn live(games: &str) -> String {
    format!("live AS (SELECT id FROM games WHERE id = ANY({games}) FOR KEY SHARE)")
}

/// The players of the rows `stored` (game_id, actor_id) locked until the transaction ends
/// (`aggregates::ingest::lock_players_sql`), before the aggregates read their day rows. Taken
/// in this statement, the locks cost the group commit no round trip of their own; taken from
/// the rows it inserted (sorted, so all of them first), they are taken once the events are
/// in, so that concurrent writers of the same players store their events side by side and
/// take turns only for the aggregates (taken first, they cost batches of 100 a fifth of their
/// rate on two cores). The statement's result reads `locked`, so that PostgreSQL runs it.
fn locked(stored: &str) -> String {
    format!(
        "locked AS ({})",
        crate::aggregates::ingest::lock_players_sql(
            "game_id",
            "actor_id",
            &format!("({stored}) stored")
        )
    )
}

/// Adds the rows of `source` (game_id, received_at) to the usage counts, per game and UTC
/// month (as `month_of`), locked in key order, in the shard `$shard`.
fn add_usage(source: &str, shard: usize) -> String {
    format!(
        "INSERT INTO event_usage_shards (game_id, month, shard, events) \
         SELECT game_id, to_char(received_at AT TIME ZONE 'UTC', 'YYYY-MM'), ${shard}::int2, \
         count(*) FROM ({source}) s GROUP BY 1, 2 ORDER BY 1, 2 \
         ON CONFLICT (game_id, month, shard) DO UPDATE SET \
         events = event_usage_shards.events + excluded.events"
    )
}

/// Rows without an `event_id` ($1-$14) cannot conflict; rows with one ($15-$28) may repeat
/// a stored event, and the ids returned are those that were new (`false`), with the games
/// that still exist (`true`). The usage counts take every stored row, in this writer's shard
/// ($29).
static STORE: LazyLock<String> = LazyLock::new(|| {
    format!(
        "WITH {}, plain AS ({} RETURNING game_id, received_at, actor_id), \
         keyed AS ({} ON CONFLICT (game_id, event_id) WHERE event_id IS NOT NULL DO NOTHING \
         RETURNING id, game_id, received_at, actor_id), {}, usage AS ({}) \
         SELECT id, false FROM keyed UNION ALL SELECT id, true FROM live CROSS JOIN locked",
        live("$2::uuid[] || $16::uuid[]"),
        insert_from_arrays(1),
        insert_from_arrays(15),
        locked("SELECT game_id, actor_id FROM plain UNION ALL SELECT game_id, actor_id FROM keyed"),
        add_usage(
            "SELECT game_id, received_at FROM plain \
             UNION ALL SELECT game_id, received_at FROM keyed",
            29
        )
    )
});

/// The same for a group where no event carries an `event_id` (most groups): one insert
/// fewer for PostgreSQL to set up on every execution. Rows $1-$14, shard $15; returns the
/// games that still exist.
static STORE_PLAIN: LazyLock<String> = LazyLock::new(|| {
    format!(
        "WITH {}, plain AS ({} RETURNING game_id, received_at, actor_id), {}, usage AS ({}) \
         SELECT id, true FROM live CROSS JOIN locked",
        live("$2::uuid[]"),
        insert_from_arrays(1),
        locked("SELECT game_id, actor_id FROM plain"),
        add_usage("SELECT game_id, received_at FROM plain", 15)
    )
});

#[derive(Default)]
struct Columns {
    id: Vec<Uuid>,
    game_id: Vec<Uuid>,
    api_key_id: Vec<Uuid>,
    environment: Vec<String>,
    event_name: Vec<String>,
    event_id: Vec<Option<String>>,
    player_id: Vec<Option<String>>,
    session_id: Vec<String>,
    actor_id: Vec<String>,
    properties: Vec<String>,
    revenue_amount: Vec<Option<f64>>,
    log_level: Vec<Option<String>>,
    occurred_at: Vec<DateTime<Utc>>,
    received_at: Vec<DateTime<Utc>>,
}

impl Columns {
    fn of(rows: &[&events::Model]) -> Self {
        let mut c = Self::default();
        for r in rows {
            c.id.push(r.id);
            c.game_id.push(r.game_id);
            c.api_key_id.push(r.api_key_id);
            c.environment.push(r.environment.clone());
            c.event_name.push(r.event_name.clone());
            c.event_id.push(r.event_id.clone());
            c.player_id.push(r.player_id.clone());
            c.session_id.push(r.session_id.clone());
            c.actor_id.push(r.actor_id.clone());
            c.properties.push(r.properties.to_string());
            c.revenue_amount.push(r.revenue_amount);
            c.log_level.push(r.log_level.clone());
            c.occurred_at.push(r.occurred_at);
            c.received_at.push(r.received_at);
        }
        c
    }

    fn bind(self, query: Query<'_, Postgres, PgArguments>) -> Query<'_, Postgres, PgArguments> {
        query
            .bind(self.id)
            .bind(self.game_id)
            .bind(self.api_key_id)
            .bind(self.environment)
            .bind(self.event_name)
            .bind(self.event_id)
            .bind(self.player_id)
            .bind(self.session_id)
            .bind(self.actor_id)
            .bind(self.properties)
            .bind(self.revenue_amount)
            .bind(self.log_level)
            .bind(self.occurred_at)
            .bind(self.received_at)
    }
}

/// Both inserts and the usage counts are one statement (data-modifying CTEs); the aggregates
/// of the stored rows follow in the same transaction.
pub async fn store(
    connection: &mut PgConnection,
    jobs: &[&[events::Model]],
    shard: i16,
) -> Result<Vec<Written>, DbErr> {
    let (plain, keyed) = split(jobs);
    let mut txn = sqlx::Connection::begin(connection)
        .await
        .map_err(db_error)?;
    let query = if keyed.is_empty() {
        Columns::of(&plain).bind(sqlx::query(STORE_PLAIN.as_str()))
    } else {
        Columns::of(&keyed).bind(Columns::of(&plain).bind(sqlx::query(STORE.as_str())))
    };
    let rows = query
        .bind(shard)
        .fetch_all(&mut *txn)
        .await
        .map_err(db_error)?;
    let mut inserted_keyed = HashSet::with_capacity(rows.len());
    let mut live = HashSet::new();
    for row in rows {
        let id = sqlx::Row::try_get::<Uuid, _>(&row, 0).map_err(db_error)?;
        if sqlx::Row::try_get::<bool, _>(&row, 1).map_err(db_error)? {
            live.insert(id);
        } else {
            inserted_keyed.insert(id);
        }
    }
    let stored: Vec<&events::Model> = plain
        .iter()
        .copied()
        .filter(|row| live.contains(&row.game_id))
        .chain(
            keyed
                .iter()
                .copied()
                .filter(|row| inserted_keyed.contains(&row.id)),
        )
        .collect();
    crate::aggregates::ingest::add(&mut Tx::Postgres(&mut txn), &stored, shard).await?;
    txn.commit().await.map_err(db_error)?;
    Ok(outcomes(jobs, &inserted_keyed))
}
