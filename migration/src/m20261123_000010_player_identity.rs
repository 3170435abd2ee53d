//! Player identity (opt-in per game): games get `player_auth` (`off`, `optional`, `required`),
//! the secret the studio's backend signs custom ids with, `key_reads` (whether a bare game key
//! may read reports that are not about one player: funnels, the presence list), a per-player
//! rate limit and the cap the admin puts on the limits an owner may set. `player_identities`
//! maps each identity (a device id, or a custom id of the studio's) to the player it stands for;
//! the identity is kept as a SHA-256 hash, since a device id is the device's credential.
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // One column per statement: SQLite alters one thing at a time.
        let columns = [
            ColumnDef::new(Games::PlayerAuth)
                .string_len(16)
                .not_null()
                .default("off")
                .to_owned(),
            ColumnDef::new(Games::PlayerSecret).text().null().to_owned(),
            ColumnDef::new(Games::KeyReads)
                .boolean()
                .not_null()
                .default(true)
                .to_owned(),
            ColumnDef::new(Games::PlayerRateLimitPerMinute)
                .integer()
                .null()
                .to_owned(),
            ColumnDef::new(Games::MaxRateLimitPerMinute)
                .integer()
                .null()
                .to_owned(),
        ];
        for column in columns {
            manager
                .alter_table(
                    Table::alter()
                        .table(Games::Table)
                        .add_column(column)
                        .to_owned(),
                )
                .await?;
        }
        manager
            .create_table(
                Table::create()
                    .table(PlayerIdentities::Table)
                    .if_not_exists()
                    .col(uuid(PlayerIdentities::Id).primary_key())
                    .col(uuid(PlayerIdentities::GameId))
                    .col(string_len(PlayerIdentities::Kind, 16))
                    .col(string_len(PlayerIdentities::SubjectHash, 64))
                    .col(string_len(PlayerIdentities::PlayerId, 128))
                    .col(timestamp_with_time_zone(PlayerIdentities::CreatedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(PlayerIdentities::Table, PlayerIdentities::GameId)
                            .to(Games::Table, Games::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        // One player per identity: of two racing first sign-ins, one inserts, the other reads it.
        manager
            .create_index(
                Index::create()
                    .name("player_identities_subject")
                    .table(PlayerIdentities::Table)
                    .col(PlayerIdentities::GameId)
                    .col(PlayerIdentities::Kind)
                    .col(PlayerIdentities::SubjectHash)
                    .unique()
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("player_identities_player")
                    .table(PlayerIdentities::Table)
                    .col(PlayerIdentities::GameId)
                    .col(PlayerIdentities::PlayerId)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(PlayerIdentities::Table).to_owned())
            .await?;
        for column in [
            Games::PlayerAuth,
            Games::PlayerSecret,
            Games::KeyReads,
            Games::PlayerRateLimitPerMinute,
            Games::MaxRateLimitPerMinute,
        ] {
            manager
                .alter_table(
                    Table::alter()
                        .table(Games::Table)
                        .drop_column(column)
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }
}

#[derive(DeriveIden)]
enum Games {
    Table,
    Id,
    PlayerAuth,
    PlayerSecret,
    KeyReads,
    PlayerRateLimitPerMinute,
    MaxRateLimitPerMinute,
}

#[derive(DeriveIden)]
enum PlayerIdentities {
    Table,
    Id,
    GameId,
    Kind,
    SubjectHash,
    PlayerId,
    CreatedAt,
}
