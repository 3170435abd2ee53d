//! `analytics_player_days` gets `previous_last_second`: the last second of the same player's
//! row of the day before (-1 when the player was not active that day), so that a 24-hour
//! window from second s of day D, which holds a player exactly when its day-D row's last
//! second is s or later or its day-(D+1) row's first second is before s, is counted per day
//! without grouping by player: the rows of D with a last second from s, plus those of D+1
//! with a first second before s, less those of D+1 that are both (a first second before s and
//! a previous last second from s).
//!
//! Rows from before have none (null: unknown). The writers fill it in when they write a row
//! or the row of the day before it, and a window with a row of unknown previous day among the
//! ones it needs is read by grouping by player, as before. Nothing is rewritten here, so the
//! migration takes no longer on a big table than building the index.
//!
//! Not for a rolling upgrade: a node of the previous version still running would widen a day
//! without updating the day after it, leaving that row's value behind. Stop the old nodes
//! before migrating (or run `playtrace aggregates rebuild` once they are gone).
use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum AnalyticsPlayerDays {
    Table,
    PreviousLastSecond,
}

/// The read by day, before and after it held the previous day's last second. The new one has
/// its own name and is made before the old one goes (see migration 97).
const OLD_BY_DAY: &str = "analytics_player_days_by_day_seconds";
const BY_DAY: &str = "analytics_player_days_by_day_edges";

/// On PostgreSQL the player is now a key column (it was INCLUDEd): the writers look day rows
/// up by (game, scope, player, day) in statements planned once per connection, and a plan
/// made while the table was empty chose this index, as its index-only scan saves the heap
/// read the primary key needs; with the player only INCLUDEd, each look-up read every row of
/// the day. With it in the key, either index finds the row in one descent.
fn by_day_columns(backend: sea_orm::DbBackend, previous: bool) -> String {
    match (backend, previous) {
        (sea_orm::DbBackend::Postgres, true) => "(game_id, scope, day, actor_id) \
             INCLUDE (hours, first_second, last_second, previous_last_second)"
            .to_string(),
        (sea_orm::DbBackend::Postgres, false) => {
            "(game_id, scope, day) INCLUDE (actor_id, hours, first_second, last_second)".to_string()
        }
        (_, true) => "(game_id, scope, day, actor_id, hours, first_second, last_second, \
             previous_last_second)"
            .to_string(),
        (_, false) => {
            "(game_id, scope, day, actor_id, hours, first_second, last_second)".to_string()
        }
    }
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(AnalyticsPlayerDays::Table)
                    .add_column(
                        ColumnDef::new(AnalyticsPlayerDays::PreviousLastSecond)
                            .integer()
                            .null(),
                    )
                    .to_owned(),
            )
            .await?;
        let connection = manager.get_connection();
        let columns = by_day_columns(manager.get_database_backend(), true);
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
        let columns = by_day_columns(manager.get_database_backend(), false);
        connection
            .execute_unprepared(&format!(
                "CREATE INDEX IF NOT EXISTS {OLD_BY_DAY} ON analytics_player_days {columns}"
            ))
            .await?;
        connection
            .execute_unprepared(&format!("DROP INDEX IF EXISTS {BY_DAY}"))
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(AnalyticsPlayerDays::Table)
                    .drop_column(AnalyticsPlayerDays::PreviousLastSecond)
                    .to_owned(),
            )
            .await
    }
}
