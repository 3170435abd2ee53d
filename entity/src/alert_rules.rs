use sea_orm::entity::prelude::*;

/// An alert rule. `alert_type` is the wire field `type`; `last_fired_at` enforces the cooldown.
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "alert_rules")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub game_id: Uuid,
    pub name: String,
    pub alert_type: String,
    /// The metric a `metric_spike` / `metric_drop` rule watches; null for the fixed kinds.
    pub metric: Option<String>,
    #[sea_orm(column_type = "Double")]
    pub threshold: f64,
    pub comparison_window_hours: i32,
    pub email: String,
    pub discord_webhook_url: Option<String>,
    pub environment: Option<String>,
    pub enabled: bool,
    pub last_fired_at: Option<DateTimeUtc>,
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
