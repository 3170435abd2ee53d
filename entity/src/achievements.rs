use sea_orm::entity::prelude::*;

/// An achievement defined in the dashboard. `unlock_count` is kept by the unlock transaction.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "achievements")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub game_id: Uuid,
    pub key: String,
    pub name: String,
    #[sea_orm(column_type = "Text")]
    pub description: String,
    #[sea_orm(column_type = "Text")]
    pub icon_url: String,
    pub points: i32,
    pub hidden: bool,
    pub unlock_count: i64,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {
    #[sea_orm(has_many = "super::achievement_unlocks::Entity")]
    AchievementUnlocks,
    #[sea_orm(
        belongs_to = "super::games::Entity",
        from = "Column::GameId",
        to = "super::games::Column::Id",
        on_delete = "Cascade"
    )]
    Games,
}

impl Related<super::achievement_unlocks::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::AchievementUnlocks.def()
    }
}

impl Related<super::games::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Games.def()
    }
}

impl ActiveModelBehavior for ActiveModel {}
