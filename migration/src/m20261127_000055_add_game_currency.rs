//! Games get `currency`: the ISO 4217 code their purchase amounts are in (the dashboard
//! formats revenue with it); `USD` for every game until its owner says otherwise.
use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Games {
    Table,
    Currency,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Games::Table)
                    .add_column(
                        ColumnDef::new(Games::Currency)
                            .string_len(3)
                            .not_null()
                            .default("USD"),
                    )
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Games::Table)
                    .drop_column(Games::Currency)
                    .to_owned(),
            )
            .await
    }
}
