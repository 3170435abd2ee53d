//! `analytics_paying_days`: who made a purchase on which day, per scope (an environment, or
//! `all`), kept at ingest like `analytics_player_days`; inserting a row that is new adds one
//! to `analytics_active_users` under the span `paying_day`, the distinct paying users of the
//! day. The paying-user metrics (`paying_users`, `arppu`, `conversion`) read those counts.
//!
//! Purchases stored before this migration are counted by rebuilding the aggregates of every
//! game that has any (cleared and queued for the backfill, as `playtrace aggregates rebuild`
//! does): the backfill counts each stored event exactly once into every aggregate, and
//! ingest goes on meanwhile.
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden, Clone, Copy)]
enum AnalyticsPayingDays {
    Table,
    GameId,
    Scope,
    ActorId,
    Day,
}

/// The aggregate tables a rebuild clears (all but the backfill queue itself).
const AGGREGATES: [&str; 7] = [
    "analytics_event_counts",
    "analytics_active_users",
    "analytics_player_hours",
    "analytics_player_days",
    "analytics_players",
    "analytics_cohorts",
    "analytics_paying_days",
];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        use AnalyticsPayingDays as P;
        manager
            .create_table(
                Table::create()
                    .table(P::Table)
                    .if_not_exists()
                    .col(uuid(P::GameId))
                    .col(string(P::Scope))
                    .col(string(P::ActorId))
                    .col(big_integer(P::Day))
                    .primary_key(
                        Index::create()
                            .col(P::GameId)
                            .col(P::Scope)
                            .col(P::ActorId)
                            .col(P::Day),
                    )
                    .to_owned(),
            )
            .await?;
        // Retention deletes by day.
        manager
            .create_index(
                Index::create()
                    .if_not_exists()
                    .name("analytics_paying_days_by_day")
                    .table(P::Table)
                    .col(P::GameId)
                    .col(P::Day)
                    .to_owned(),
            )
            .await?;
        // Games with purchases counted at ingest, or still waiting for their backfill, are
        // queued (again) with a new boundary, and then their aggregates cleared: the queue's
        // rows with this boundary are the games to rebuild.
        let db = manager.get_connection();
        let boundary_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|since| since.as_millis() as i64)
            .unwrap_or_default();
        db.execute_unprepared(&format!(
            "INSERT INTO analytics_backfill (game_id, boundary_ms) \
             SELECT DISTINCT game_id, {boundary_ms} FROM analytics_event_counts \
             WHERE event_name = 'purchase' \
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
        manager
            .drop_table(Table::drop().table(AnalyticsPayingDays::Table).to_owned())
            .await
    }
}
