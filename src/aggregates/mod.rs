//! Analytics aggregates kept at ingest (`docs/analytics.md`): the event writer adds every
//! stored event to per-hour counts, per-hour and per-day distinct active users, each player's
//! first and last day, the retention cohorts, the distinct paying users per day and the
//! sessions started per day with their lengths, the progression steps and resource flows per
//! day, in the transaction that stores the event.
//! Metrics, event counts and alert evaluations read these, so their cost follows the buckets
//! they show, not the events behind them. Raw events stay the source of truth: `backfill`
//! rebuilds the aggregates from them. `fold` sums the writer shards of closed days into one row.
pub mod backfill;
pub mod fold;
pub mod ingest;
mod standard;
mod tx;

pub use tx::Tx;

/// The scope that counts every environment together; the others are the environments' names.
pub const ALL_ENVIRONMENTS: &str = "all";

/// Retention is kept for returns 1 to this many days after a player's first day.
pub const MAX_RETURN_DAY: i64 = 30;

pub const SECONDS_PER_HOUR: i64 = 3_600;
pub const SECONDS_PER_DAY: i64 = 86_400;
pub const HOURS_PER_DAY: i64 = SECONDS_PER_DAY / SECONDS_PER_HOUR;

/// Whole UTC hours (or days) since the epoch of a time, as the aggregates key them.
pub fn hour_of(at: chrono::DateTime<chrono::Utc>) -> i64 {
    at.timestamp().div_euclid(SECONDS_PER_HOUR)
}

pub fn day_of(at: chrono::DateTime<chrono::Utc>) -> i64 {
    at.timestamp().div_euclid(SECONDS_PER_DAY)
}

/// The scope a metric reads: one environment, or all of them.
pub fn scope_of(environment: Option<&str>) -> &str {
    environment.unwrap_or(ALL_ENVIRONMENTS)
}

/// Every aggregate table, with the column that places its rows in time and the unit of it.
const TABLES: [(&str, &str, i64); 11] = [
    ("analytics_event_counts", "hour", SECONDS_PER_HOUR),
    ("analytics_progression_days", "day", SECONDS_PER_DAY),
    ("analytics_resource_days", "day", SECONDS_PER_DAY),
    ("analytics_sessions", "day", SECONDS_PER_DAY),
    ("analytics_session_days", "day", SECONDS_PER_DAY),
    ("analytics_player_hours", "hour", SECONDS_PER_HOUR),
    ("analytics_player_days", "day", SECONDS_PER_DAY),
    ("analytics_paying_days", "day", SECONDS_PER_DAY),
    ("analytics_cohorts", "cohort_day", SECONDS_PER_DAY),
    ("analytics_players", "", 0),
    ("analytics_backfill", "", 0),
];

async fn run(
    db: &impl sea_orm::ConnectionTrait,
    sql: String,
    values: Vec<sea_orm::Value>,
) -> Result<(), sea_orm::DbErr> {
    db.execute_raw(sea_orm::Statement::from_sql_and_values(
        db.get_database_backend(),
        sql,
        values,
    ))
    .await
    .map(|_| ())
}

/// Deletes a deleted game's aggregates.
pub async fn forget_game(
    db: &impl sea_orm::ConnectionTrait,
    game_id: uuid::Uuid,
) -> Result<(), sea_orm::DbErr> {
    for table in TABLES
        .iter()
        .map(|(table, _, _)| *table)
        .chain(["analytics_active_users"])
    {
        run(
            db,
            format!("DELETE FROM {table} WHERE game_id = $1"),
            vec![game_id.into()],
        )
        .await?;
    }
    Ok(())
}

/// Deletes what the aggregates know of one erased player: which hours and days it was active
/// (and paid), its first and last day, and its sessions' ids and times. The anonymous counts (events per hour, distinct users per hour
/// and day, cohort sizes and returns) stay as they were (`docs/player-data.md`).
pub async fn forget_player(
    db: &sea_orm::DatabaseConnection,
    game_id: uuid::Uuid,
    actor_id: &str,
) -> Result<(), sea_orm::DbErr> {
    // Under the player's lock, which the writers take too: a writer that has just seen one of
    // its day rows must not find it gone when it writes it.
    let txn = sea_orm::TransactionTrait::begin(db).await?;
    ingest::lock_players(&mut tx::Tx::SeaOrm(&txn), game_id, [actor_id]).await?;
    for table in [
        "analytics_player_hours",
        "analytics_player_days",
        "analytics_paying_days",
        "analytics_players",
        "analytics_sessions",
    ] {
        run(
            &txn,
            format!("DELETE FROM {table} WHERE game_id = $1 AND actor_id = $2"),
            vec![game_id.into(), actor_id.into()],
        )
        .await?;
    }
    txn.commit().await
}

/// Deletes the aggregates of the time before `cutoff` (midnight UTC), whose events retention
/// deletes. Players' first days stay, so a player who comes back is not counted as new.
pub async fn forget_before(
    db: &impl sea_orm::ConnectionTrait,
    game_id: uuid::Uuid,
    cutoff: chrono::DateTime<chrono::Utc>,
) -> Result<(), sea_orm::DbErr> {
    let at = cutoff.timestamp();
    for (table, column, unit) in TABLES.iter().filter(|(_, column, _)| !column.is_empty()) {
        run(
            db,
            format!("DELETE FROM {table} WHERE game_id = $1 AND {column} < $2"),
            vec![game_id.into(), at.div_euclid(*unit).into()],
        )
        .await?;
    }
    // The first day kept has no day before any more.
    run(
        db,
        "UPDATE analytics_player_days SET previous_last_second = -1 \
         WHERE game_id = $1 AND day = $2 AND previous_last_second <> -1"
            .into(),
        vec![game_id.into(), at.div_euclid(SECONDS_PER_DAY).into()],
    )
    .await?;
    for (span, unit) in [
        ("hour", SECONDS_PER_HOUR),
        ("day", SECONDS_PER_DAY),
        (ingest::PAYING_DAY, SECONDS_PER_DAY),
    ] {
        run(
            db,
            "DELETE FROM analytics_active_users WHERE game_id = $1 AND span = $2 AND bucket < $3"
                .into(),
            vec![game_id.into(), span.into(), at.div_euclid(unit).into()],
        )
        .await?;
    }
    Ok(())
}
