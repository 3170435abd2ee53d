//! The aggregate rows still kept per writer shard, indexed by game and time: the fold
//! (`src/aggregates/fold.rs`) sums a closed day's shard rows into one row of shard -1 and
//! looks for what is left to fold through these partial indexes, which hold only the rows of
//! the writers' shards (today's, and the rows late events added since the last fold), so a
//! pass costs what there is to fold, not the game's history.
use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

/// (table, the column that places its rows in time).
const TABLES: [(&str, &str); 6] = [
    ("analytics_event_counts", "hour"),
    ("analytics_active_users", "bucket"),
    ("analytics_cohorts", "cohort_day"),
    ("analytics_session_days", "day"),
    ("analytics_progression_days", "day"),
    ("analytics_resource_days", "day"),
];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for (table, column) in TABLES {
            manager
                .get_connection()
                .execute_unprepared(&format!(
                    "CREATE INDEX IF NOT EXISTS {table}_unfolded ON {table} \
                     (game_id, {column}) WHERE shard <> -1"
                ))
                .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for (table, _) in TABLES {
            manager
                .get_connection()
                .execute_unprepared(&format!("DROP INDEX IF EXISTS {table}_unfolded"))
                .await?;
        }
        Ok(())
    }
}
