//! Score operators: boards get `score_operator` (`best`, `latest`, `increment`, `decrement`;
//! `best` for every board so far), and entries get `revision`, counted up by every change an
//! operator other than `best` makes, so the hot store keeps the newest of concurrent changes.
use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Leaderboards {
    Table,
    ScoreOperator,
}

#[derive(DeriveIden)]
enum LeaderboardEntries {
    Table,
    Revision,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Leaderboards::Table)
                    .add_column(
                        ColumnDef::new(Leaderboards::ScoreOperator)
                            .string()
                            .not_null()
                            .default("best"),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(LeaderboardEntries::Table)
                    .add_column(
                        ColumnDef::new(LeaderboardEntries::Revision)
                            .big_integer()
                            .not_null()
                            .default(0),
                    )
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(LeaderboardEntries::Table)
                    .drop_column(LeaderboardEntries::Revision)
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(Leaderboards::Table)
                    .drop_column(Leaderboards::ScoreOperator)
                    .to_owned(),
            )
            .await
    }
}
