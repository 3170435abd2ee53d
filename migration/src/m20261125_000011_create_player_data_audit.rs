//! Player data rights: `player_data_audit` records every export and erase of one player's data
//! (who, when, what was found or deleted), and events get an index on `(game_id, player_id)` so
//! both find a player's events without reading the game's whole history. On a large events
//! table, build the index beforehand without blocking writes (PostgreSQL):
//! `CREATE INDEX CONCURRENTLY idx_events_game_player ON events (game_id, player_id)`; this
//! migration then keeps it.
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(PlayerDataAudit::Table)
                    .if_not_exists()
                    .col(uuid(PlayerDataAudit::Id).primary_key())
                    .col(uuid(PlayerDataAudit::GameId))
                    .col(uuid_null(PlayerDataAudit::UserId))
                    .col(string(PlayerDataAudit::UserEmail))
                    .col(string_len(PlayerDataAudit::Action, 16))
                    .col(string_len(PlayerDataAudit::PlayerId, 128))
                    .col(text(PlayerDataAudit::Counts))
                    .col(timestamp_with_time_zone(PlayerDataAudit::At))
                    .foreign_key(
                        ForeignKey::create()
                            .from(PlayerDataAudit::Table, PlayerDataAudit::GameId)
                            .to(Games::Table, Games::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_player_data_audit_game_time")
                    .table(PlayerDataAudit::Table)
                    .col(PlayerDataAudit::GameId)
                    .col(PlayerDataAudit::At)
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .if_not_exists()
                    .name("idx_events_game_player")
                    .table(Events::Table)
                    .col(Events::GameId)
                    .col(Events::PlayerId)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_index(
                Index::drop()
                    .name("idx_events_game_player")
                    .table(Events::Table)
                    .to_owned(),
            )
            .await?;
        manager
            .drop_table(Table::drop().table(PlayerDataAudit::Table).to_owned())
            .await
    }
}

#[derive(DeriveIden)]
enum Games {
    Table,
    Id,
}

#[derive(DeriveIden)]
enum Events {
    Table,
    GameId,
    PlayerId,
}

#[derive(DeriveIden)]
enum PlayerDataAudit {
    Table,
    Id,
    GameId,
    UserId,
    UserEmail,
    Action,
    PlayerId,
    Counts,
    At,
}
