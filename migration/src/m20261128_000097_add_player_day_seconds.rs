//! `analytics_player_days` gets `first_second` and `last_second`: the seconds of the day
//! (0 to 86,399) of the player's first and last event that day. A 24-hour window that starts
//! at second s of day D holds the player exactly when its day-D row's last second is s or later
//! or its day-(D+1) row's first second is before s, so a `dau_drop` rule's last 24 hours are
//! read from the day rows alone, without hour rows or events. Rows from before have no seconds
//! (null): a read whose range holds one takes the hours-and-minutes path, and a partial index
//! finds those rows.
use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum AnalyticsPlayerDays {
    Table,
    FirstSecond,
    LastSecond,
}

const UNKNOWN_SECONDS_INDEX: &str = "idx_analytics_player_days_unknown_seconds";

/// The read by day, before and after it held the seconds. The new one has its own name and is
/// made before the old one goes, so that no statement needs the old name free again (SQLite's
/// pooled connections refused to create an index of the name just dropped).
const OLD_BY_DAY: &str = "analytics_player_days_by_day";
const BY_DAY: &str = "analytics_player_days_by_day_seconds";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // One column per statement: SQLite alters a table one column at a time.
        for column in [
            AnalyticsPlayerDays::FirstSecond,
            AnalyticsPlayerDays::LastSecond,
        ] {
            manager
                .alter_table(
                    Table::alter()
                        .table(AnalyticsPlayerDays::Table)
                        .add_column(ColumnDef::new(column).integer().null())
                        .to_owned(),
                )
                .await?;
        }
        // The same statement on both backends: only the rows from before, which never widen.
        let connection = manager.get_connection();
        connection
            .execute_unprepared(&format!(
                "CREATE INDEX {UNKNOWN_SECONDS_INDEX} ON analytics_player_days \
                 (game_id, scope, day) WHERE first_second IS NULL"
            ))
            .await?;
        // The read by day holds the seconds too, so that it stays an index-only scan.
        let columns = match manager.get_database_backend() {
            sea_orm::DbBackend::Postgres => {
                "(game_id, scope, day) INCLUDE (actor_id, hours, first_second, last_second)"
            }
            _ => "(game_id, scope, day, actor_id, hours, first_second, last_second)",
        };
        connection
            .execute_unprepared(&format!(
                "CREATE INDEX IF NOT EXISTS {BY_DAY} ON analytics_player_days {columns}"
            ))
            .await?;
        connection
            .execute_unprepared(&format!("DROP INDEX IF EXISTS {OLD_BY_DAY}"))
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let connection = manager.get_connection();
        connection
            .execute_unprepared(&format!("DROP INDEX {UNKNOWN_SECONDS_INDEX}"))
            .await?;
        let columns = match manager.get_database_backend() {
            sea_orm::DbBackend::Postgres => "(game_id, scope, day) INCLUDE (actor_id, hours)",
            _ => "(game_id, scope, day, actor_id, hours)",
        };
        connection
            .execute_unprepared(&format!(
                "CREATE INDEX IF NOT EXISTS {OLD_BY_DAY} ON analytics_player_days {columns}"
            ))
            .await?;
        connection
            .execute_unprepared(&format!("DROP INDEX IF EXISTS {BY_DAY}"))
            .await?;
        for column in [
            AnalyticsPlayerDays::LastSecond,
            AnalyticsPlayerDays::FirstSecond,
        ] {
            manager
                .alter_table(
                    Table::alter()
                        .table(AnalyticsPlayerDays::Table)
                        .drop_column(column)
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }
}
