//! Event usage counts split into shards. Every group write adds its count to the usage row in
//! the same transaction, so with one row per game and month, concurrent writers queued behind
//! each other's commit on that row. Each writer now adds to its own shard; the month's count is
//! the sum of its shards.
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(EventUsageShards::Table)
                    .if_not_exists()
                    .col(uuid(EventUsageShards::GameId))
                    .col(string(EventUsageShards::Month))
                    .col(small_integer(EventUsageShards::Shard))
                    .col(big_integer(EventUsageShards::Events))
                    .primary_key(
                        Index::create()
                            .col(EventUsageShards::GameId)
                            .col(EventUsageShards::Month)
                            .col(EventUsageShards::Shard),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(EventUsageShards::Table, EventUsageShards::GameId)
                            .to(Games::Table, Games::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .get_connection()
            .execute_unprepared(
                "INSERT INTO event_usage_shards (game_id, month, shard, events) \
                 SELECT game_id, month, 0, events FROM event_usage",
            )
            .await?;
        manager
            .drop_table(Table::drop().table(EventUsage::Table).to_owned())
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(EventUsage::Table)
                    .if_not_exists()
                    .col(uuid(EventUsage::GameId))
                    .col(string(EventUsage::Month))
                    .col(big_integer(EventUsage::Events))
                    .primary_key(
                        Index::create()
                            .col(EventUsage::GameId)
                            .col(EventUsage::Month),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(EventUsage::Table, EventUsage::GameId)
                            .to(Games::Table, Games::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .get_connection()
            .execute_unprepared(
                "INSERT INTO event_usage (game_id, month, events) \
                 SELECT game_id, month, SUM(events) FROM event_usage_shards GROUP BY game_id, month",
            )
            .await?;
        manager
            .drop_table(Table::drop().table(EventUsageShards::Table).to_owned())
            .await
    }
}

#[derive(DeriveIden)]
enum EventUsage {
    Table,
    GameId,
    Month,
    Events,
}

#[derive(DeriveIden)]
enum EventUsageShards {
    Table,
    GameId,
    Month,
    Shard,
    Events,
}

#[derive(DeriveIden)]
enum Games {
    Table,
    Id,
}
