//! Sessions kept at ingest, for the `sessions` and `session_length` metrics:
//! - `analytics_sessions`: one row per (game, scope, session id) with the session's first and
//!   last event times and the `length` its `session_end` event reported, if any (milliseconds);
//!   `day` (of the first event) and `length_ms` are what the day counts hold for it, and
//!   `prev_day` / `prev_length_ms` what they held before the row's last change, so the writer
//!   can move the difference without reading the row first;
//! - `analytics_session_days`: per (game, scope, day, writer shard) the sessions that started
//!   that day and the sum of their lengths.
//!
//! Sessions stored before this migration are counted by rebuilding the aggregates of every
//! game with counted or pending events (cleared and queued for the backfill, as
//! `playtrace aggregates rebuild` does); ingest goes on meanwhile.
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden, Clone, Copy)]
enum AnalyticsSessions {
    Table,
    GameId,
    Scope,
    SessionId,
    ActorId,
    FirstMs,
    LastMs,
    ReportedMs,
    Day,
    LengthMs,
    PrevDay,
    PrevLengthMs,
}

#[derive(DeriveIden, Clone, Copy)]
enum AnalyticsSessionDays {
    Table,
    GameId,
    Scope,
    Day,
    Shard,
    Sessions,
    LengthMs,
}

/// The aggregate tables a rebuild clears (all but the backfill queue itself).
const AGGREGATES: [&str; 9] = [
    "analytics_event_counts",
    "analytics_active_users",
    "analytics_player_hours",
    "analytics_player_days",
    "analytics_players",
    "analytics_cohorts",
    "analytics_paying_days",
    "analytics_sessions",
    "analytics_session_days",
];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        use AnalyticsSessionDays as D;
        use AnalyticsSessions as S;
        manager
            .create_table(
                Table::create()
                    .table(S::Table)
                    .if_not_exists()
                    .col(uuid(S::GameId))
                    .col(string(S::Scope))
                    .col(string(S::SessionId))
                    .col(string(S::ActorId))
                    .col(big_integer(S::FirstMs))
                    .col(big_integer(S::LastMs))
                    .col(big_integer_null(S::ReportedMs))
                    .col(big_integer(S::Day))
                    .col(big_integer(S::LengthMs))
                    .col(big_integer_null(S::PrevDay))
                    .col(big_integer_null(S::PrevLengthMs))
                    .primary_key(
                        Index::create()
                            .col(S::GameId)
                            .col(S::Scope)
                            .col(S::SessionId),
                    )
                    .to_owned(),
            )
            .await?;
        // Retention deletes by day; erasure by player.
        for (name, column) in [
            ("analytics_sessions_by_day", S::Day),
            ("analytics_sessions_by_actor", S::ActorId),
        ] {
            manager
                .create_index(
                    Index::create()
                        .if_not_exists()
                        .name(name)
                        .table(S::Table)
                        .col(S::GameId)
                        .col(column)
                        .to_owned(),
                )
                .await?;
        }
        manager
            .create_table(
                Table::create()
                    .table(D::Table)
                    .if_not_exists()
                    .col(uuid(D::GameId))
                    .col(string(D::Scope))
                    .col(big_integer(D::Day))
                    .col(small_integer(D::Shard))
                    .col(big_integer(D::Sessions))
                    .col(big_integer(D::LengthMs))
                    .primary_key(
                        Index::create()
                            .col(D::GameId)
                            .col(D::Scope)
                            .col(D::Day)
                            .col(D::Shard),
                    )
                    .to_owned(),
            )
            .await?;
        // Every game with aggregates (or still waiting for its backfill) is queued again
        // with a new boundary, and its aggregates cleared.
        let db = manager.get_connection();
        let boundary_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|since| since.as_millis() as i64)
            .unwrap_or_default();
        db.execute_unprepared(&format!(
            "INSERT INTO analytics_backfill (game_id, boundary_ms) \
             SELECT DISTINCT game_id, {boundary_ms} FROM analytics_event_counts WHERE true \
             ON CONFLICT (game_id) DO UPDATE SET boundary_ms = excluded.boundary_ms, cursor = NULL"
        ))
        .await?;
        db.execute_unprepared(&format!(
            "UPDATE analytics_backfill SET boundary_ms = {boundary_ms}, cursor = NULL"
        ))
        .await?;
        for table in AGGREGATES {
            db.execute_unprepared(&format!(
                "DELETE FROM {table} WHERE game_id IN \
                 (SELECT game_id FROM analytics_backfill WHERE boundary_ms = {boundary_ms})"
            ))
            .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            AnalyticsSessionDays::Table.into_iden(),
            AnalyticsSessions::Table.into_iden(),
        ] {
            manager
                .drop_table(Table::drop().table(table).to_owned())
                .await?;
        }
        Ok(())
    }
}
