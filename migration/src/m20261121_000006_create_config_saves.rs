//! Remote config (one row per game) and cloud saves (one row per game, player and slot).
//!
//! A save is a single row that every write replaces in one statement, so a crash or a lost race
//! can never leave half of one behind. `data` and `values_json` are text holding compact JSON:
//! the stored bytes are what the size limits measure and what reads send back unchanged.
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(GameConfigs::Table)
                    .if_not_exists()
                    .col(uuid(GameConfigs::GameId).primary_key())
                    .col(text(GameConfigs::ValuesJson))
                    .col(timestamp_with_time_zone(GameConfigs::UpdatedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(GameConfigs::Table, GameConfigs::GameId)
                            .to(Games::Table, Games::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        // The primary key is also the index behind "list a player's slots" (game, player prefix),
        // and the unique constraint that lets exactly one of many racing creators insert.
        manager
            .create_table(
                Table::create()
                    .table(Saves::Table)
                    .if_not_exists()
                    .col(uuid(Saves::GameId))
                    .col(string_len(Saves::PlayerId, 128))
                    .col(string_len(Saves::Slot, 64))
                    .col(big_integer(Saves::Version))
                    .col(text(Saves::Data))
                    .col(big_integer(Saves::SizeBytes))
                    .col(timestamp_with_time_zone(Saves::CreatedAt))
                    .col(timestamp_with_time_zone(Saves::UpdatedAt))
                    .primary_key(
                        Index::create()
                            .col(Saves::GameId)
                            .col(Saves::PlayerId)
                            .col(Saves::Slot),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(Saves::Table, Saves::GameId)
                            .to(Games::Table, Games::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(Saves::Table).to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table(GameConfigs::Table).to_owned())
            .await
    }
}

#[derive(DeriveIden)]
enum GameConfigs {
    Table,
    GameId,
    ValuesJson,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum Saves {
    Table,
    GameId,
    PlayerId,
    Slot,
    Version,
    Data,
    SizeBytes,
    CreatedAt,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum Games {
    Table,
    Id,
}
