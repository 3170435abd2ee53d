//! Tournaments: boards get `starts_at`, `ends_at` (scores only in between), `max_players` and
//! `join_required`; `leaderboard_tournament_players` holds each board's players (joined, or
//! let in by their first score), one row per player, which the `max_players` check counts.
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Leaderboards {
    Table,
    Id,
    StartsAt,
    EndsAt,
    MaxPlayers,
    JoinRequired,
}

#[derive(DeriveIden)]
enum LeaderboardTournamentPlayers {
    Table,
    GameId,
    BoardId,
    PlayerId,
    JoinedAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // One column per statement: SQLite adds only one at a time.
        for column in [
            ColumnDef::new(Leaderboards::StartsAt)
                .timestamp_with_time_zone()
                .null()
                .to_owned(),
            ColumnDef::new(Leaderboards::EndsAt)
                .timestamp_with_time_zone()
                .null()
                .to_owned(),
            ColumnDef::new(Leaderboards::MaxPlayers)
                .integer()
                .null()
                .to_owned(),
            ColumnDef::new(Leaderboards::JoinRequired)
                .boolean()
                .not_null()
                .default(false)
                .to_owned(),
        ] {
            manager
                .alter_table(
                    Table::alter()
                        .table(Leaderboards::Table)
                        .add_column(column)
                        .to_owned(),
                )
                .await?;
        }
        manager
            .create_table(
                Table::create()
                    .table(LeaderboardTournamentPlayers::Table)
                    .if_not_exists()
                    .col(uuid(LeaderboardTournamentPlayers::GameId))
                    .col(uuid(LeaderboardTournamentPlayers::BoardId))
                    .col(string(LeaderboardTournamentPlayers::PlayerId))
                    .col(timestamp_with_time_zone(
                        LeaderboardTournamentPlayers::JoinedAt,
                    ))
                    .primary_key(
                        Index::create()
                            .col(LeaderboardTournamentPlayers::BoardId)
                            .col(LeaderboardTournamentPlayers::PlayerId),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(
                                LeaderboardTournamentPlayers::Table,
                                LeaderboardTournamentPlayers::BoardId,
                            )
                            .to(Leaderboards::Table, Leaderboards::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(
                Table::drop()
                    .table(LeaderboardTournamentPlayers::Table)
                    .to_owned(),
            )
            .await?;
        for column in [
            Leaderboards::JoinRequired,
            Leaderboards::MaxPlayers,
            Leaderboards::EndsAt,
            Leaderboards::StartsAt,
        ] {
            manager
                .alter_table(
                    Table::alter()
                        .table(Leaderboards::Table)
                        .drop_column(column)
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }
}
