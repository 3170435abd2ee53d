//! Achievement definitions and per-player unlocks. Presence has no table: it lives in the hot
//! store only (ephemeral by nature, see DESIGN 2).
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(Achievements::Table)
                    .if_not_exists()
                    .col(uuid(Achievements::Id).primary_key())
                    .col(uuid(Achievements::GameId))
                    .col(string(Achievements::Key))
                    .col(string(Achievements::Name))
                    .col(text(Achievements::Description))
                    .col(text(Achievements::IconUrl))
                    .col(integer(Achievements::Points))
                    .col(boolean(Achievements::Hidden))
                    // Kept by the unlock transaction so listing never counts the unlocks table.
                    .col(big_integer(Achievements::UnlockCount).default(0))
                    .col(timestamp_with_time_zone(Achievements::CreatedAt))
                    .col(timestamp_with_time_zone(Achievements::UpdatedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(Achievements::Table, Achievements::GameId)
                            .to(Games::Table, Games::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("uq_achievements_game_key")
                    .table(Achievements::Table)
                    .col(Achievements::GameId)
                    .col(Achievements::Key)
                    .unique()
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(AchievementUnlocks::Table)
                    .if_not_exists()
                    .col(uuid(AchievementUnlocks::AchievementId))
                    .col(string(AchievementUnlocks::PlayerId))
                    .col(uuid(AchievementUnlocks::GameId))
                    .col(timestamp_with_time_zone(AchievementUnlocks::UnlockedAt))
                    // The primary key is what makes concurrent unlocks of one pair unlock once.
                    .primary_key(
                        Index::create()
                            .col(AchievementUnlocks::AchievementId)
                            .col(AchievementUnlocks::PlayerId),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(AchievementUnlocks::Table, AchievementUnlocks::AchievementId)
                            .to(Achievements::Table, Achievements::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(AchievementUnlocks::Table, AchievementUnlocks::GameId)
                            .to(Games::Table, Games::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_achievement_unlocks_game_player")
                    .table(AchievementUnlocks::Table)
                    .col(AchievementUnlocks::GameId)
                    .col(AchievementUnlocks::PlayerId)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(AchievementUnlocks::Table).to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table(Achievements::Table).to_owned())
            .await
    }
}

#[derive(DeriveIden)]
enum Achievements {
    Table,
    Id,
    GameId,
    Key,
    Name,
    Description,
    IconUrl,
    Points,
    Hidden,
    UnlockCount,
    CreatedAt,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum AchievementUnlocks {
    Table,
    AchievementId,
    PlayerId,
    GameId,
    UnlockedAt,
}

#[derive(DeriveIden)]
enum Games {
    Table,
    Id,
}
