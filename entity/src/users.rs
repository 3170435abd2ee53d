use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "users")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    #[sea_orm(unique)]
    pub email: String,
    pub password_hash: Option<String>,
    pub status: String,
    pub is_admin: bool,
    pub failed_logins: i32,
    pub locked_until: Option<DateTimeUtc>,
    pub created_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {
    #[sea_orm(has_many = "super::game_members::Entity")]
    GameMembers,
}

impl Related<super::game_members::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::GameMembers.def()
    }
}

impl ActiveModelBehavior for ActiveModel {}
