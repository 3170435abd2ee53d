use sea_orm::entity::prelude::*;

/// A player taking part in a tournament board: joined it, or was let in by a first score.
/// Counted against the board's `max_players`.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "leaderboard_tournament_players")]
pub struct Model {
    pub game_id: Uuid,
    #[sea_orm(primary_key, auto_increment = false)]
    pub board_id: Uuid,
    #[sea_orm(primary_key, auto_increment = false)]
    pub player_id: String,
    pub joined_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {
    #[sea_orm(
        belongs_to = "super::leaderboards::Entity",
        from = "Column::BoardId",
        to = "super::leaderboards::Column::Id",
        on_delete = "Cascade"
    )]
    Leaderboards,
}

impl Related<super::leaderboards::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Leaderboards.def()
    }
}

impl ActiveModelBehavior for ActiveModel {}
