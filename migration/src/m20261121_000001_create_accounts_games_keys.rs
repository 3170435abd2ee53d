//! Accounts, password-reset tokens, games, memberships, API keys and instance settings.
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(Settings::Table)
                    .if_not_exists()
                    .col(string(Settings::Key).primary_key())
                    .col(text(Settings::Value))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(Users::Table)
                    .if_not_exists()
                    .col(uuid(Users::Id).primary_key())
                    .col(string_uniq(Users::Email))
                    .col(string_null(Users::PasswordHash))
                    .col(string(Users::Status))
                    .col(boolean(Users::IsAdmin))
                    .col(integer(Users::FailedLogins))
                    .col(timestamp_with_time_zone_null(Users::LockedUntil))
                    .col(timestamp_with_time_zone(Users::CreatedAt))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(PasswordResetTokens::Table)
                    .if_not_exists()
                    .col(string(PasswordResetTokens::TokenHash).primary_key())
                    .col(uuid(PasswordResetTokens::UserId))
                    .col(timestamp_with_time_zone(PasswordResetTokens::ExpiresAt))
                    .col(timestamp_with_time_zone_null(PasswordResetTokens::UsedAt))
                    .col(timestamp_with_time_zone(PasswordResetTokens::CreatedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(PasswordResetTokens::Table, PasswordResetTokens::UserId)
                            .to(Users::Table, Users::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(Games::Table)
                    .if_not_exists()
                    .col(uuid(Games::Id).primary_key())
                    .col(string(Games::Name))
                    .col(string(Games::Tier))
                    .col(string(Games::EventValidation))
                    .col(integer_null(Games::RateLimitPerMinute))
                    .col(timestamp_with_time_zone(Games::CreatedAt))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(GameMembers::Table)
                    .if_not_exists()
                    .col(uuid(GameMembers::GameId))
                    .col(uuid(GameMembers::UserId))
                    .col(string(GameMembers::Role))
                    .col(timestamp_with_time_zone(GameMembers::CreatedAt))
                    .primary_key(
                        Index::create()
                            .col(GameMembers::GameId)
                            .col(GameMembers::UserId),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(GameMembers::Table, GameMembers::GameId)
                            .to(Games::Table, Games::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(GameMembers::Table, GameMembers::UserId)
                            .to(Users::Table, Users::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_game_members_user")
                    .table(GameMembers::Table)
                    .col(GameMembers::UserId)
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(ApiKeys::Table)
                    .if_not_exists()
                    .col(uuid(ApiKeys::Id).primary_key())
                    .col(uuid(ApiKeys::GameId))
                    .col(string(ApiKeys::Name))
                    .col(string(ApiKeys::Environment))
                    .col(string_uniq(ApiKeys::KeyHash))
                    .col(string(ApiKeys::KeyPrefix))
                    .col(timestamp_with_time_zone(ApiKeys::CreatedAt))
                    .col(timestamp_with_time_zone_null(ApiKeys::RevokedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(ApiKeys::Table, ApiKeys::GameId)
                            .to(Games::Table, Games::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_api_keys_game")
                    .table(ApiKeys::Table)
                    .col(ApiKeys::GameId)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            ApiKeys::Table.into_iden(),
            GameMembers::Table.into_iden(),
            Games::Table.into_iden(),
            PasswordResetTokens::Table.into_iden(),
            Users::Table.into_iden(),
            Settings::Table.into_iden(),
        ] {
            manager
                .drop_table(Table::drop().table(table).to_owned())
                .await?;
        }
        Ok(())
    }
}

#[derive(DeriveIden)]
enum Settings {
    Table,
    Key,
    Value,
}

#[derive(DeriveIden)]
pub enum Users {
    Table,
    Id,
    Email,
    PasswordHash,
    Status,
    IsAdmin,
    FailedLogins,
    LockedUntil,
    CreatedAt,
}

#[derive(DeriveIden)]
enum PasswordResetTokens {
    Table,
    TokenHash,
    UserId,
    ExpiresAt,
    UsedAt,
    CreatedAt,
}

#[derive(DeriveIden)]
pub enum Games {
    Table,
    Id,
    Name,
    Tier,
    EventValidation,
    RateLimitPerMinute,
    CreatedAt,
}

#[derive(DeriveIden)]
enum GameMembers {
    Table,
    GameId,
    UserId,
    Role,
    CreatedAt,
}

#[derive(DeriveIden)]
pub enum ApiKeys {
    Table,
    Id,
    GameId,
    Name,
    Environment,
    KeyHash,
    KeyPrefix,
    CreatedAt,
    RevokedAt,
}
