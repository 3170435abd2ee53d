//! Manual resets: boards get `reset_at`, the last time an editor reset the board by hand; the
//! period it cut short is archived like one that ended (see `leaderboards::period`).
use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Leaderboards {
    Table,
    ResetAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Leaderboards::Table)
                    .add_column(
                        ColumnDef::new(Leaderboards::ResetAt)
                            .timestamp_with_time_zone()
                            .null(),
                    )
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Leaderboards::Table)
                    .drop_column(Leaderboards::ResetAt)
                    .to_owned(),
            )
            .await
    }
}
