//! `analytics_player_hours` gets `minutes`: the minutes of the hour (bit m for minute m) the
//! player was active in, so that a window ending in the middle of an hour (a `dau_drop` rule's
//! last 24 hours) reads who was active on each side of its edge from the aggregates, and only
//! the events of the one minute the edge splits. Rows from before have no minutes (null): a
//! read treats their hours as before, from the events, and a partial index finds those hours.
use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum AnalyticsPlayerHours {
    Table,
    Minutes,
}

const UNKNOWN_MINUTES_INDEX: &str = "idx_analytics_player_hours_unknown_minutes";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(AnalyticsPlayerHours::Table)
                    .add_column(
                        ColumnDef::new(AnalyticsPlayerHours::Minutes)
                            .big_integer()
                            .null(),
                    )
                    .to_owned(),
            )
            .await?;
        // The same statement on both backends: only the rows from before, which never change.
        manager
            .get_connection()
            .execute_unprepared(&format!(
                "CREATE INDEX {UNKNOWN_MINUTES_INDEX} ON analytics_player_hours \
                 (game_id, scope, hour) WHERE minutes IS NULL"
            ))
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .get_connection()
            .execute_unprepared(&format!("DROP INDEX {UNKNOWN_MINUTES_INDEX}"))
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(AnalyticsPlayerHours::Table)
                    .drop_column(AnalyticsPlayerHours::Minutes)
                    .to_owned(),
            )
            .await?;
        Ok(())
    }
}
