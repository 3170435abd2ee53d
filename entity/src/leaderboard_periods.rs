use sea_orm::entity::prelude::*;

/// A period a board has had scores in. `archived_at` is set by the worker once the period is
/// over, with the final `entry_count`.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "leaderboard_periods")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub board_id: Uuid,
    #[sea_orm(primary_key, auto_increment = false)]
    pub period: String,
    pub opened_at: DateTimeUtc,
    pub archived_at: Option<DateTimeUtc>,
    pub entry_count: Option<i64>,
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
