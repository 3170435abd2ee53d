//! What can go wrong with leaderboards, in its own words, and how each answers over HTTP.
use crate::store::hot::HotError;

#[derive(Debug, thiserror::Error)]
pub enum LeaderboardError {
    #[error("{0}")]
    Invalid(String),
    #[error("This player is banned from this leaderboard")]
    Banned,
    #[error("No such leaderboard")]
    NoSuchBoard,
    #[error("{0}")]
    NoSuchEntry(&'static str),
    #[error("A leaderboard with this name already exists; change it with PATCH")]
    BoardExists,
    #[error("order cannot change once the board has entries")]
    OrderLocked,
    #[error("operator cannot change once the board has entries")]
    OperatorLocked,
    #[error("No such leaderboard: this game takes scores only for leaderboards defined in the dashboard")]
    NotDefined,
    #[error("This game already has {0} leaderboards created by scores, its limit: define new leaderboards in the dashboard or raise score_board_limit")]
    ScoreBoardLimit(u32),
    #[error("{0}")]
    SettingsDiffer(String),
    #[error("the tournament has not started: it starts at {0}")]
    NotStarted(String),
    #[error("the tournament has ended: it ended at {0}")]
    Ended(String),
    #[error("the tournament is full: it takes at most {0} players")]
    Full(u32),
    #[error("join the tournament first: this leaderboard takes scores only from players who joined it (POST /v1/leaderboards/{{board_name}}/join)")]
    JoinFirst,
    #[error("this leaderboard is not a tournament: there is nothing to join")]
    NotATournament,
    #[error("the hot store kept losing the board while it was rebuilt")]
    RebuildFailed,
    #[error(transparent)]
    Stored(#[from] crate::words::CorruptWord),
    #[error(transparent)]
    Cold(#[from] sea_orm::DbErr),
    #[error(transparent)]
    Hot(#[from] HotError),
}

impl From<crate::words::InvalidWord> for LeaderboardError {
    fn from(error: crate::words::InvalidWord) -> Self {
        Self::invalid(error.to_string())
    }
}

impl From<crate::player_id::InvalidPlayerId> for LeaderboardError {
    fn from(error: crate::player_id::InvalidPlayerId) -> Self {
        Self::invalid(error.to_string())
    }
}

/// A refusal of a join or a score (a tournament's, a ban): its status, its text and its `code`.
fn refusal(status: u16, error: LeaderboardError, code: &str) -> crate::error::ApiError {
    crate::error::ApiError::with_status(status, error.to_string()).with("code", code)
}

impl LeaderboardError {
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::Invalid(message.into())
    }
}

crate::error::answers!(LeaderboardError as error {
    400: Invalid(_),
    404: NoSuchBoard | NoSuchEntry(_) | NotDefined,
    409: BoardExists | OrderLocked | OperatorLocked | ScoreBoardLimit(_) | SettingsDiffer(_),
    passes: Stored | Cold | Hot,
    other {
        // Refusals of a score carry a `code` a client can branch on without reading the text.
        Banned => refusal(403, error, "PLAYER_BANNED"),
        JoinFirst => refusal(403, error, "TOURNAMENT_JOIN_REQUIRED"),
        NotStarted(_) => refusal(409, error, "TOURNAMENT_NOT_STARTED"),
        Ended(_) => refusal(409, error, "TOURNAMENT_ENDED"),
        Full(_) => refusal(409, error, "TOURNAMENT_FULL"),
        NotATournament => refusal(409, error, "NOT_A_TOURNAMENT"),
        RebuildFailed => {
            tracing::error!("leaderboard rebuild did not stick");
            ApiError::unavailable("Storage temporarily unavailable, retry later")
        },
    }
});
