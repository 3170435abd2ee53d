use sea_orm::entity::prelude::*;

/// One finished period of a board with a results webhook, to deliver (or delivered) there.
/// Unique by (`game_id`, `board_id`, `period`). `payload` is the JSON body, fixed when the row
/// is made so every retry sends the same standings; `status` is `pending`, `delivered` or
/// `failed`; `claimed_at` is set by the worker sending it (a claim older than a few minutes is
/// stale and may be taken over).
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "leaderboard_result_deliveries")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub game_id: Uuid,
    pub board_id: Uuid,
    pub period: String,
    /// `period_end`, `manual_reset` or `tournament_end`.
    pub reason: String,
    #[sea_orm(column_type = "Text")]
    pub payload: String,
    pub status: String,
    pub attempts: i32,
    #[sea_orm(column_type = "Text", nullable)]
    pub last_error: Option<String>,
    pub next_attempt_at: DateTimeUtc,
    pub claimed_at: Option<DateTimeUtc>,
    pub delivered_at: Option<DateTimeUtc>,
    pub created_at: DateTimeUtc,
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
