//! Results webhooks: boards get `results_webhook` (where a finished period's standings are
//! POSTed) and `results_webhook_set_at` (periods that ended before it are not delivered);
//! `leaderboard_result_deliveries` holds one row per finished period to deliver, unique by
//! (game, board, period) so that nodes and workers create it exactly once.
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Leaderboards {
    Table,
    Id,
    ResultsWebhook,
    ResultsWebhookSetAt,
}

#[derive(DeriveIden)]
enum LeaderboardResultDeliveries {
    Table,
    Id,
    GameId,
    BoardId,
    Period,
    Reason,
    Payload,
    Status,
    Attempts,
    LastError,
    NextAttemptAt,
    ClaimedAt,
    DeliveredAt,
    CreatedAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // One column per statement: SQLite adds only one at a time.
        for column in [
            // Text: a URL of 2,048 characters may grow when normalised (percent-encoding).
            ColumnDef::new(Leaderboards::ResultsWebhook)
                .text()
                .null()
                .to_owned(),
            ColumnDef::new(Leaderboards::ResultsWebhookSetAt)
                .timestamp_with_time_zone()
                .null()
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
                    .table(LeaderboardResultDeliveries::Table)
                    .if_not_exists()
                    .col(uuid(LeaderboardResultDeliveries::Id).primary_key())
                    .col(uuid(LeaderboardResultDeliveries::GameId))
                    .col(uuid(LeaderboardResultDeliveries::BoardId))
                    .col(string(LeaderboardResultDeliveries::Period))
                    .col(string(LeaderboardResultDeliveries::Reason))
                    .col(text(LeaderboardResultDeliveries::Payload))
                    .col(string(LeaderboardResultDeliveries::Status))
                    .col(integer(LeaderboardResultDeliveries::Attempts).default(0))
                    .col(text_null(LeaderboardResultDeliveries::LastError))
                    .col(timestamp_with_time_zone(
                        LeaderboardResultDeliveries::NextAttemptAt,
                    ))
                    .col(timestamp_with_time_zone_null(
                        LeaderboardResultDeliveries::ClaimedAt,
                    ))
                    .col(timestamp_with_time_zone_null(
                        LeaderboardResultDeliveries::DeliveredAt,
                    ))
                    .col(timestamp_with_time_zone(
                        LeaderboardResultDeliveries::CreatedAt,
                    ))
                    .foreign_key(
                        ForeignKey::create()
                            .from(
                                LeaderboardResultDeliveries::Table,
                                LeaderboardResultDeliveries::BoardId,
                            )
                            .to(Leaderboards::Table, Leaderboards::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        // The one-delivery-per-period guarantee: a second insert of the same period is a no-op.
        manager
            .create_index(
                Index::create()
                    .name("ux_result_deliveries_game_board_period")
                    .table(LeaderboardResultDeliveries::Table)
                    .col(LeaderboardResultDeliveries::GameId)
                    .col(LeaderboardResultDeliveries::BoardId)
                    .col(LeaderboardResultDeliveries::Period)
                    .unique()
                    .to_owned(),
            )
            .await?;
        // The worker's "what is due" scan.
        manager
            .create_index(
                Index::create()
                    .name("ix_result_deliveries_status_next")
                    .table(LeaderboardResultDeliveries::Table)
                    .col(LeaderboardResultDeliveries::Status)
                    .col(LeaderboardResultDeliveries::NextAttemptAt)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(
                Table::drop()
                    .table(LeaderboardResultDeliveries::Table)
                    .to_owned(),
            )
            .await?;
        for column in [
            Leaderboards::ResultsWebhookSetAt,
            Leaderboards::ResultsWebhook,
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
