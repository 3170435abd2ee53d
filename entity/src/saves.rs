use sea_orm::entity::prelude::*;

/// One cloud save slot of one player. `data` is compact JSON text and `size_bytes` its length;
/// `version` counts the writes since the slot was created (1 after the first).
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "saves")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub game_id: Uuid,
    #[sea_orm(primary_key, auto_increment = false)]
    pub player_id: String,
    #[sea_orm(primary_key, auto_increment = false)]
    pub slot: String,
    pub version: i64,
    #[sea_orm(column_type = "Text")]
    pub data: String,
    pub size_bytes: i64,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {
    #[sea_orm(
        belongs_to = "super::games::Entity",
        from = "Column::GameId",
        to = "super::games::Column::Id",
        on_delete = "Cascade"
    )]
    Games,
}

impl Related<super::games::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Games.def()
    }
}

impl ActiveModelBehavior for ActiveModel {}
