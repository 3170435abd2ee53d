use sea_orm::entity::prelude::*;

/// One analytics event. `actor_id` is the active-user identity (`player_id`, else
/// `session_id`); `revenue_amount` is a `purchase` event's numeric `properties.amount`;
/// `log_level` a `log` event's `properties.level`. Both are copied out at ingest so metric
/// queries stay plain SQL on SQLite and PostgreSQL alike.
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "events")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub game_id: Uuid,
    pub api_key_id: Uuid,
    pub environment: String,
    pub event_name: String,
    pub event_id: Option<String>,
    pub player_id: Option<String>,
    pub session_id: String,
    pub actor_id: String,
    #[sea_orm(column_type = "JsonBinary")]
    pub properties: Json,
    #[sea_orm(column_type = "Double", nullable)]
    pub revenue_amount: Option<f64>,
    pub log_level: Option<String>,
    pub occurred_at: DateTimeUtc,
    pub received_at: DateTimeUtc,
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
