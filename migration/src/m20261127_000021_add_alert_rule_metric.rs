//! Alert rules and their history get `metric`: the metric a `metric_spike` or `metric_drop`
//! rule watches (any metric of `GET /v1/games/{id}/metrics`, by day). The five fixed kinds
//! leave it null.
use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum AlertRules {
    Table,
}

#[derive(DeriveIden)]
enum AlertHistory {
    Table,
}

#[derive(DeriveIden)]
enum Column {
    Metric,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // One column per statement: SQLite alters a table one column at a time.
        for table in [
            AlertRules::Table.into_iden(),
            AlertHistory::Table.into_iden(),
        ] {
            manager
                .alter_table(
                    Table::alter()
                        .table(table)
                        .add_column(ColumnDef::new(Column::Metric).string_len(32).null())
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            AlertRules::Table.into_iden(),
            AlertHistory::Table.into_iden(),
        ] {
            manager
                .alter_table(
                    Table::alter()
                        .table(table)
                        .drop_column(Column::Metric)
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }
}
