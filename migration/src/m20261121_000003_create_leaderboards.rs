//! Leaderboards: board definitions, every entry of every period (the durable copy of what the
//! hot store ranks), bans, and the periods each board has had (so the worker knows what to
//! archive).
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(Leaderboards::Table)
                    .if_not_exists()
                    .col(uuid(Leaderboards::Id).primary_key())
                    .col(uuid(Leaderboards::GameId))
                    .col(string_len(Leaderboards::BoardName, 255))
                    .col(string(Leaderboards::ScoreOrder))
                    .col(string(Leaderboards::Period))
                    .col(timestamp_with_time_zone_null(Leaderboards::AutoResetAt))
                    .col(double_null(Leaderboards::MinScore))
                    .col(double_null(Leaderboards::MaxScore))
                    .col(string_null(Leaderboards::OpenPeriod))
                    .col(timestamp_with_time_zone(Leaderboards::CreatedAt))
                    .col(timestamp_with_time_zone(Leaderboards::UpdatedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(Leaderboards::Table, Leaderboards::GameId)
                            .to(Games::Table, Games::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("uq_leaderboards_game_name")
                    .table(Leaderboards::Table)
                    .col(Leaderboards::GameId)
                    .col(Leaderboards::BoardName)
                    .unique()
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(LeaderboardEntries::Table)
                    .if_not_exists()
                    .col(uuid(LeaderboardEntries::Id).primary_key())
                    .col(uuid(LeaderboardEntries::BoardId))
                    .col(string(LeaderboardEntries::Period))
                    .col(string(LeaderboardEntries::PlayerId))
                    .col(string(LeaderboardEntries::Status))
                    .col(string_null(LeaderboardEntries::PlayerName))
                    .col(double(LeaderboardEntries::Score))
                    .col(double(LeaderboardEntries::SortScore))
                    .col(big_integer(LeaderboardEntries::ReachedAt))
                    .col(text(LeaderboardEntries::Metadata))
                    .col(timestamp_with_time_zone(LeaderboardEntries::UpdatedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(LeaderboardEntries::Table, LeaderboardEntries::BoardId)
                            .to(Leaderboards::Table, Leaderboards::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        // One public (`ok`) and at most one pending (`suspicious`) entry per player and period;
        // the keep-best upsert targets this index.
        manager
            .create_index(
                Index::create()
                    .name("uq_leaderboard_entries_player")
                    .table(LeaderboardEntries::Table)
                    .col(LeaderboardEntries::BoardId)
                    .col(LeaderboardEntries::Period)
                    .col(LeaderboardEntries::PlayerId)
                    .col(LeaderboardEntries::Status)
                    .unique()
                    .to_owned(),
            )
            .await?;
        // Ranked reads of archived periods and rebuilds walk this index in rank order.
        manager
            .create_index(
                Index::create()
                    .name("idx_leaderboard_entries_rank")
                    .table(LeaderboardEntries::Table)
                    .col(LeaderboardEntries::BoardId)
                    .col(LeaderboardEntries::Period)
                    .col(LeaderboardEntries::Status)
                    .col(LeaderboardEntries::SortScore)
                    .col(LeaderboardEntries::ReachedAt)
                    .col(LeaderboardEntries::PlayerId)
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_leaderboard_entries_board_player")
                    .table(LeaderboardEntries::Table)
                    .col(LeaderboardEntries::BoardId)
                    .col(LeaderboardEntries::PlayerId)
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(LeaderboardBans::Table)
                    .if_not_exists()
                    .col(uuid(LeaderboardBans::BoardId))
                    .col(string(LeaderboardBans::PlayerId))
                    .col(uuid_null(LeaderboardBans::BannedBy))
                    .col(timestamp_with_time_zone(LeaderboardBans::BannedAt))
                    .primary_key(
                        Index::create()
                            .col(LeaderboardBans::BoardId)
                            .col(LeaderboardBans::PlayerId),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(LeaderboardBans::Table, LeaderboardBans::BoardId)
                            .to(Leaderboards::Table, Leaderboards::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(LeaderboardPeriods::Table)
                    .if_not_exists()
                    .col(uuid(LeaderboardPeriods::BoardId))
                    .col(string(LeaderboardPeriods::Period))
                    .col(timestamp_with_time_zone(LeaderboardPeriods::OpenedAt))
                    .col(timestamp_with_time_zone_null(
                        LeaderboardPeriods::ArchivedAt,
                    ))
                    .col(big_integer_null(LeaderboardPeriods::EntryCount))
                    .primary_key(
                        Index::create()
                            .col(LeaderboardPeriods::BoardId)
                            .col(LeaderboardPeriods::Period),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(LeaderboardPeriods::Table, LeaderboardPeriods::BoardId)
                            .to(Leaderboards::Table, Leaderboards::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_leaderboard_periods_archived")
                    .table(LeaderboardPeriods::Table)
                    .col(LeaderboardPeriods::ArchivedAt)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(
                Table::drop()
                    .table(LeaderboardPeriods::Table)
                    .if_exists()
                    .to_owned(),
            )
            .await?;
        manager
            .drop_table(
                Table::drop()
                    .table(LeaderboardBans::Table)
                    .if_exists()
                    .to_owned(),
            )
            .await?;
        manager
            .drop_table(
                Table::drop()
                    .table(LeaderboardEntries::Table)
                    .if_exists()
                    .to_owned(),
            )
            .await?;
        manager
            .drop_table(
                Table::drop()
                    .table(Leaderboards::Table)
                    .if_exists()
                    .to_owned(),
            )
            .await?;
        Ok(())
    }
}

#[derive(DeriveIden)]
enum Leaderboards {
    Table,
    Id,
    GameId,
    BoardName,
    ScoreOrder,
    Period,
    AutoResetAt,
    MinScore,
    MaxScore,
    OpenPeriod,
    CreatedAt,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum LeaderboardEntries {
    Table,
    Id,
    BoardId,
    Period,
    PlayerId,
    Status,
    PlayerName,
    Score,
    SortScore,
    ReachedAt,
    Metadata,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum LeaderboardBans {
    Table,
    BoardId,
    PlayerId,
    BannedBy,
    BannedAt,
}

#[derive(DeriveIden)]
enum LeaderboardPeriods {
    Table,
    BoardId,
    Period,
    OpenedAt,
    ArchivedAt,
    EntryCount,
}

#[derive(DeriveIden)]
enum Games {
    Table,
    Id,
}
