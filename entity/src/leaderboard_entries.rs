use sea_orm::entity::prelude::*;

/// One player's best score on one board in one period. `status` is `ok` (ranked publicly) or
/// `suspicious` (outside the board's bounds, hidden until approved). `sort_score` is the score
/// oriented so that lower always ranks first; `reached_at` (microseconds since the epoch) is
/// when the stored score was reached, the tie-break.
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "leaderboard_entries")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub board_id: Uuid,
    pub period: String,
    pub player_id: String,
    pub status: String,
    pub player_name: Option<String>,
    #[sea_orm(column_type = "Double")]
    pub score: f64,
    #[sea_orm(column_type = "Double")]
    pub sort_score: f64,
    pub reached_at: i64,
    /// A JSON object, kept as text.
    #[sea_orm(column_type = "Text")]
    pub metadata: String,
    pub updated_at: DateTimeUtc,
    /// Counted up by every change of a `latest`, `increment` or `decrement` board's entry (0 on
    /// `best` boards): the hot store keeps the entry of the highest revision.
    pub revision: i64,
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
