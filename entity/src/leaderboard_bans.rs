use sea_orm::entity::prelude::*;

/// A player banned from a board: their entries are gone and their submissions refused.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "leaderboard_bans")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub board_id: Uuid,
    #[sea_orm(primary_key, auto_increment = false)]
    pub player_id: String,
    pub banned_by: Option<Uuid>,
    pub banned_at: DateTimeUtc,
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
