//! Cron-style reset schedules: boards get `reset_schedule`, a 5-field cron expression in UTC
//! the board starts over at instead of its period (see `leaderboards::reset_schedule`).
use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Leaderboards {
    Table,
    ResetSchedule,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Leaderboards::Table)
                    .add_column(ColumnDef::new(Leaderboards::ResetSchedule).text().null())
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Leaderboards::Table)
                    .drop_column(Leaderboards::ResetSchedule)
                    .to_owned(),
            )
            .await
    }
}
