use sea_orm::entity::prelude::*;

/// One export or erase of a player's data: who did it (`user_id` while the account exists,
/// and the e-mail it had), when, `action` (`export` or `erase`), the `player_id`, and `counts`
/// (JSON: what was found or deleted, per kind).
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "player_data_audit")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub game_id: Uuid,
    pub user_id: Option<Uuid>,
    pub user_email: String,
    pub action: String,
    pub player_id: String,
    #[sea_orm(column_type = "Text")]
    pub counts: String,
    pub at: DateTimeUtc,
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
