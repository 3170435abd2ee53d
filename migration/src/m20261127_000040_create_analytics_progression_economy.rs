//! Progression and economy kept at ingest, for the progression and economy reads:
//! - `analytics_progression_days`: per (game, environment, day, level path, writer shard) the
//!   `progression` events that started, completed and failed the step, and of the completes
//!   those that carried `attempt` with the sum of their attempts;
//! - `analytics_resource_days`: per (game, environment, day, currency, flow, item type, writer
//!   shard) the `resource` events and the sum of their amounts.
//!
//! Both count per environment (no distinct users: the `all` scope is the sum of the two).
//! Games with `progression` or `resource` events counted (or still waiting for their
//! backfill) are queued again and all their aggregates cleared, so the backfill counts their
//! stored events again, these included; ingest goes on meanwhile.
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden, Clone, Copy)]
enum AnalyticsProgressionDays {
    Table,
    GameId,
    Environment,
    Day,
    Level1,
    Level2,
    Level3,
    Shard,
    Starts,
    Completes,
    Fails,
    AttemptCompletes,
    Attempts,
}

#[derive(DeriveIden, Clone, Copy)]
enum AnalyticsResourceDays {
    Table,
    GameId,
    Environment,
    Day,
    Currency,
    Flow,
    ItemType,
    Shard,
    Events,
    Amount,
}

/// The aggregate tables a rebuild clears (all but the backfill queue itself).
const AGGREGATES: [&str; 11] = [
    "analytics_event_counts",
    "analytics_active_users",
    "analytics_player_hours",
    "analytics_player_days",
    "analytics_players",
    "analytics_cohorts",
    "analytics_paying_days",
    "analytics_sessions",
    "analytics_session_days",
    "analytics_progression_days",
    "analytics_resource_days",
];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        use AnalyticsProgressionDays as P;
        use AnalyticsResourceDays as R;
        manager
            .create_table(
                Table::create()
                    .table(P::Table)
                    .if_not_exists()
                    .col(uuid(P::GameId))
                    .col(string(P::Environment))
                    .col(big_integer(P::Day))
                    .col(string(P::Level1))
                    .col(string(P::Level2))
                    .col(string(P::Level3))
                    .col(small_integer(P::Shard))
                    .col(big_integer(P::Starts))
                    .col(big_integer(P::Completes))
                    .col(big_integer(P::Fails))
                    .col(big_integer(P::AttemptCompletes))
                    .col(big_integer(P::Attempts))
                    .primary_key(
                        Index::create()
                            .col(P::GameId)
                            .col(P::Day)
                            .col(P::Environment)
                            .col(P::Level1)
                            .col(P::Level2)
                            .col(P::Level3)
                            .col(P::Shard),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(R::Table)
                    .if_not_exists()
                    .col(uuid(R::GameId))
                    .col(string(R::Environment))
                    .col(big_integer(R::Day))
                    .col(string(R::Currency))
                    .col(string(R::Flow))
                    .col(string(R::ItemType))
                    .col(small_integer(R::Shard))
                    .col(big_integer(R::Events))
                    .col(double(R::Amount))
                    .primary_key(
                        Index::create()
                            .col(R::GameId)
                            .col(R::Day)
                            .col(R::Environment)
                            .col(R::Currency)
                            .col(R::Flow)
                            .col(R::ItemType)
                            .col(R::Shard),
                    )
                    .to_owned(),
            )
            .await?;
        // Games whose stored events hold progression or resource events, and every game
        // still waiting for its backfill (whose cursor may be past some of them), are queued
        // again with a new boundary, and their aggregates cleared.
        let db = manager.get_connection();
        let boundary_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|since| since.as_millis() as i64)
            .unwrap_or_default();
        db.execute_unprepared(&format!(
            "INSERT INTO analytics_backfill (game_id, boundary_ms) \
             SELECT DISTINCT game_id, {boundary_ms} FROM analytics_event_counts \
             WHERE event_name IN ('progression', 'resource') \
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
            AnalyticsResourceDays::Table.into_iden(),
            AnalyticsProgressionDays::Table.into_iden(),
        ] {
            manager
                .drop_table(Table::drop().table(table).to_owned())
                .await?;
        }
        Ok(())
    }
}
