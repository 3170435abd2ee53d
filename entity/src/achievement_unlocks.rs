use sea_orm::entity::prelude::*;

/// One player's unlock of one achievement (at most one row per pair).
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "achievement_unlocks")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub achievement_id: Uuid,
    #[sea_orm(primary_key, auto_increment = false)]
    pub player_id: String,
    pub game_id: Uuid,
    pub unlocked_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {
    #[sea_orm(
        belongs_to = "super::achievements::Entity",
        from = "Column::AchievementId",
        to = "super::achievements::Column::Id",
        on_delete = "Cascade"
    )]
    Achievements,
    #[sea_orm(
        belongs_to = "super::games::Entity",
        from = "Column::GameId",
        to = "super::games::Column::Id",
        on_delete = "Cascade"
    )]
    Games,
}

impl Related<super::achievements::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Achievements.def()
    }
}

impl Related<super::games::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Games.def()
    }
}

impl ActiveModelBehavior for ActiveModel {}
