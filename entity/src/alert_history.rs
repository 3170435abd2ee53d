use sea_orm::entity::prelude::*;

/// One firing of an alert rule, with the delivery status of each channel (`sent`, `failed`,
/// `skipped`). Kept when the rule is deleted; removed with the game.
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "alert_history")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub rule_id: Uuid,
    pub game_id: Uuid,
    pub name: String,
    pub alert_type: String,
    /// The metric of a `metric_spike` / `metric_drop` rule when it fired.
    pub metric: Option<String>,
    #[sea_orm(column_type = "Double")]
    pub current_value: f64,
    #[sea_orm(column_type = "Double")]
    pub baseline_value: f64,
    #[sea_orm(column_type = "Double")]
    pub change_percent: f64,
    pub email_status: String,
    pub webhook_status: String,
    #[sea_orm(column_type = "Text", nullable)]
    pub error: Option<String>,
    pub triggered_at: DateTimeUtc,
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
