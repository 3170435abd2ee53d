use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "games")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub name: String,
    pub tier: String,
    pub event_validation: String,
    pub rate_limit_per_minute: Option<i32>,
    #[sea_orm(column_type = "Text", nullable)]
    pub allowed_origins: Option<String>,
    pub created_at: DateTimeUtc,
    /// `off`, `optional` or `required`: player tokens (see `player_identities`).
    pub player_auth: String,
    /// The secret a studio's backend signs custom player ids with (HMAC-SHA256).
    #[sea_orm(column_type = "Text", nullable)]
    pub player_secret: Option<String>,
    /// Whether a bare game key may read reports not about one player (funnels, presence list).
    pub key_reads: bool,
    pub player_rate_limit_per_minute: Option<i32>,
    /// The highest rate limits the game's owner may set (admin); none: the instance default.
    pub max_rate_limit_per_minute: Option<i32>,
    /// Events older than this many days are deleted by the worker; none: kept for good.
    pub retention_days: Option<i32>,
    /// Monthly event quota the instance admin set instead of the tier's; none: the tier's.
    pub event_quota: Option<i64>,
    /// Whether a score may create a board the dashboard has not defined (else 404).
    pub leaderboards_from_scores: bool,
    /// How many boards scores may create (boards defined in the dashboard do not count).
    pub score_board_limit: i32,
    /// ISO 4217 code of the game's purchase amounts (`USD` unless the owner set another).
    pub currency: String,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {
    #[sea_orm(has_many = "super::game_members::Entity")]
    GameMembers,
    #[sea_orm(has_many = "super::api_keys::Entity")]
    ApiKeys,
}

impl Related<super::game_members::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::GameMembers.def()
    }
}

impl Related<super::api_keys::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::ApiKeys.def()
    }
}

impl ActiveModelBehavior for ActiveModel {}

impl Model {
    /// The web origins the game allows its API keys from (`allowed_origins` holds them as a JSON
    /// array; none stored, none allowed).
    pub fn origins(&self) -> Vec<String> {
        self.allowed_origins
            .as_deref()
            .and_then(|json| serde_json::from_str(json).ok())
            .unwrap_or_default()
    }
}
