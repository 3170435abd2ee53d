use sea_orm::entity::prelude::*;

/// A board definition. `score_order` is `higher` or `lower` (which score is better); `period`
/// is `daily`, `weekly`, `monthly` or `all_time`; `open_period` is the newest period key that
/// has received a score (the worker archives periods once they are over).
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "leaderboards")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub game_id: Uuid,
    pub board_name: String,
    pub score_order: String,
    pub period: String,
    pub auto_reset_at: Option<DateTimeUtc>,
    #[sea_orm(column_type = "Double", nullable)]
    pub min_score: Option<f64>,
    #[sea_orm(column_type = "Double", nullable)]
    pub max_score: Option<f64>,
    pub open_period: Option<String>,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
    /// Created by a first score rather than defined in the dashboard (counted against the
    /// game's `score_board_limit` until the dashboard changes it).
    pub created_by_score: bool,
    /// `best`, `latest`, `increment` or `decrement`: what a submitted score does to the entry.
    pub score_operator: String,
    /// When an editor last reset the board by hand: the period it cut short ended then.
    pub reset_at: Option<DateTimeUtc>,
    /// Tournament: scores are taken from this instant on.
    pub starts_at: Option<DateTimeUtc>,
    /// Tournament: scores are refused from this instant on.
    pub ends_at: Option<DateTimeUtc>,
    /// Tournament: how many players may take part.
    pub max_players: Option<i32>,
    /// Tournament: only players who joined may submit scores.
    pub join_required: bool,
    /// Where each finished period's final standings are POSTed; `None`: nowhere.
    pub results_webhook: Option<String>,
    /// When `results_webhook` was set (from none): periods that ended before are not delivered.
    pub results_webhook_set_at: Option<DateTimeUtc>,
    /// A 5-field cron expression in UTC the board resets at instead of its period (`period`
    /// is `all_time` then); `None`: the period rules.
    pub reset_schedule: Option<String>,
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
