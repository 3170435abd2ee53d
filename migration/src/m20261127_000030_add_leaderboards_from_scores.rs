//! Boards created by a first score: games get `leaderboards_from_scores` (false: a score for a
//! board not defined in the dashboard is refused) and `score_board_limit` (how many boards
//! scores may create), and boards get `created_by_score`, which the limit counts.
use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Games {
    Table,
    LeaderboardsFromScores,
    ScoreBoardLimit,
}

#[derive(DeriveIden)]
enum Leaderboards {
    Table,
    CreatedByScore,
}

/// The default `score_board_limit`.
const DEFAULT_SCORE_BOARD_LIMIT: i32 = 100;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // One column per statement: SQLite adds only one at a time.
        manager
            .alter_table(
                Table::alter()
                    .table(Games::Table)
                    .add_column(
                        ColumnDef::new(Games::LeaderboardsFromScores)
                            .boolean()
                            .not_null()
                            .default(true),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(Games::Table)
                    .add_column(
                        ColumnDef::new(Games::ScoreBoardLimit)
                            .integer()
                            .not_null()
                            .default(DEFAULT_SCORE_BOARD_LIMIT),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(Leaderboards::Table)
                    .add_column(
                        ColumnDef::new(Leaderboards::CreatedByScore)
                            .boolean()
                            .not_null()
                            .default(false),
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
                    .drop_column(Leaderboards::CreatedByScore)
                    .to_owned(),
            )
            .await?;
        for column in [Games::ScoreBoardLimit, Games::LeaderboardsFromScores] {
            manager
                .alter_table(
                    Table::alter()
                        .table(Games::Table)
                        .drop_column(column)
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }
}
