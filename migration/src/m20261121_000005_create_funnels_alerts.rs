//! Funnel definitions, alert rules and the alert history.
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(Funnels::Table)
                    .if_not_exists()
                    .col(uuid(Funnels::Id).primary_key())
                    .col(uuid(Funnels::GameId))
                    .col(string(Funnels::Name))
                    .col(string(Funnels::Mode))
                    .col(json_binary(Funnels::Steps))
                    .col(integer_null(Funnels::WithinHours))
                    .col(timestamp_with_time_zone(Funnels::CreatedAt))
                    .col(timestamp_with_time_zone(Funnels::UpdatedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(Funnels::Table, Funnels::GameId)
                            .to(Games::Table, Games::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(AlertRules::Table)
                    .if_not_exists()
                    .col(uuid(AlertRules::Id).primary_key())
                    .col(uuid(AlertRules::GameId))
                    .col(string(AlertRules::Name))
                    .col(string(AlertRules::AlertType))
                    .col(double(AlertRules::Threshold))
                    .col(integer(AlertRules::ComparisonWindowHours))
                    .col(string(AlertRules::Email))
                    .col(string_null(AlertRules::DiscordWebhookUrl))
                    .col(string_null(AlertRules::Environment))
                    .col(boolean(AlertRules::Enabled))
                    .col(timestamp_with_time_zone_null(AlertRules::LastFiredAt))
                    .col(timestamp_with_time_zone(AlertRules::CreatedAt))
                    .col(timestamp_with_time_zone(AlertRules::UpdatedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(AlertRules::Table, AlertRules::GameId)
                            .to(Games::Table, Games::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        // History outlives its rule (deleting a rule keeps what it reported), not its game.
        manager
            .create_table(
                Table::create()
                    .table(AlertHistory::Table)
                    .if_not_exists()
                    .col(uuid(AlertHistory::Id).primary_key())
                    .col(uuid(AlertHistory::RuleId))
                    .col(uuid(AlertHistory::GameId))
                    .col(string(AlertHistory::Name))
                    .col(string(AlertHistory::AlertType))
                    .col(double(AlertHistory::CurrentValue))
                    .col(double(AlertHistory::BaselineValue))
                    .col(double(AlertHistory::ChangePercent))
                    .col(string(AlertHistory::EmailStatus))
                    .col(string(AlertHistory::WebhookStatus))
                    .col(text_null(AlertHistory::Error))
                    .col(timestamp_with_time_zone(AlertHistory::TriggeredAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(AlertHistory::Table, AlertHistory::GameId)
                            .to(Games::Table, Games::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_funnels_game")
                    .table(Funnels::Table)
                    .col(Funnels::GameId)
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_alert_rules_game")
                    .table(AlertRules::Table)
                    .col(AlertRules::GameId)
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_alert_history_game_time")
                    .table(AlertHistory::Table)
                    .col(AlertHistory::GameId)
                    .col(AlertHistory::TriggeredAt)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            AlertHistory::Table.into_iden(),
            AlertRules::Table.into_iden(),
            Funnels::Table.into_iden(),
        ] {
            manager
                .drop_table(Table::drop().table(table).if_exists().to_owned())
                .await?;
        }
        Ok(())
    }
}

#[derive(DeriveIden)]
enum Funnels {
    Table,
    Id,
    GameId,
    Name,
    Mode,
    Steps,
    WithinHours,
    CreatedAt,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum AlertRules {
    Table,
    Id,
    GameId,
    Name,
    AlertType,
    Threshold,
    ComparisonWindowHours,
    Email,
    DiscordWebhookUrl,
    Environment,
    Enabled,
    LastFiredAt,
    CreatedAt,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum AlertHistory {
    Table,
    Id,
    RuleId,
    GameId,
    Name,
    AlertType,
    CurrentValue,
    BaselineValue,
    ChangePercent,
    EmailStatus,
    WebhookStatus,
    Error,
    TriggeredAt,
}

#[derive(DeriveIden)]
enum Games {
    Table,
    Id,
}
