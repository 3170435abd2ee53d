//! Analytics events, indexed for the queries funnels, dashboards and alerts run; the monthly
//! per-game usage counts the quota is rebuilt from; and per-event-name JSON Schemas.
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(Events::Table)
                    .if_not_exists()
                    .col(uuid(Events::Id).primary_key())
                    .col(uuid(Events::GameId))
                    .col(uuid(Events::ApiKeyId))
                    .col(string(Events::Environment))
                    .col(string(Events::EventName))
                    .col(string_null(Events::EventId))
                    .col(string_null(Events::PlayerId))
                    .col(string(Events::SessionId))
                    .col(string(Events::ActorId))
                    .col(json_binary(Events::Properties))
                    .col(double_null(Events::RevenueAmount))
                    .col(string_null(Events::LogLevel))
                    .col(timestamp_with_time_zone(Events::OccurredAt))
                    .col(timestamp_with_time_zone(Events::ReceivedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(Events::Table, Events::GameId)
                            .to(Games::Table, Games::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        for (name, columns) in [
            (
                "idx_events_game_time",
                vec![Events::GameId, Events::OccurredAt],
            ),
            (
                "idx_events_game_name_time",
                vec![Events::GameId, Events::EventName, Events::OccurredAt],
            ),
        ] {
            let mut index = Index::create();
            index.name(name).table(Events::Table);
            for column in columns {
                index.col(column);
            }
            manager.create_index(index.to_owned()).await?;
        }
        // A retried event with the same client event_id is stored once per game (NULLs repeat freely).
        manager
            .create_index(
                Index::create()
                    .name("uq_events_game_event_id")
                    .table(Events::Table)
                    .col(Events::GameId)
                    .col(Events::EventId)
                    .unique()
                    .to_owned(),
            )
            .await?;
        // Stored events per game and UTC month, updated in the same transaction as the events
        // themselves: the exact count the hot-store quota counter is rebuilt from.
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
            .create_table(
                Table::create()
                    .table(EventSchemas::Table)
                    .if_not_exists()
                    .col(uuid(EventSchemas::GameId))
                    .col(string(EventSchemas::EventName))
                    .col(json_binary(EventSchemas::Schema))
                    .col(timestamp_with_time_zone(EventSchemas::CreatedAt))
                    .col(timestamp_with_time_zone(EventSchemas::UpdatedAt))
                    .primary_key(
                        Index::create()
                            .col(EventSchemas::GameId)
                            .col(EventSchemas::EventName),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(EventSchemas::Table, EventSchemas::GameId)
                            .to(Games::Table, Games::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(EventSchemas::Table).to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table(EventUsage::Table).to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table(Events::Table).to_owned())
            .await
    }
}

#[derive(DeriveIden)]
enum Events {
    Table,
    Id,
    GameId,
    ApiKeyId,
    Environment,
    EventName,
    EventId,
    PlayerId,
    SessionId,
    ActorId,
    Properties,
    RevenueAmount,
    LogLevel,
    OccurredAt,
    ReceivedAt,
}

#[derive(DeriveIden)]
enum EventUsage {
    Table,
    GameId,
    Month,
    Events,
}

#[derive(DeriveIden)]
enum EventSchemas {
    Table,
    GameId,
    EventName,
    Schema,
    CreatedAt,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum Games {
    Table,
    Id,
}
