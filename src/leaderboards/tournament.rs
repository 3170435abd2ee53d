//! Tournaments: a board that takes scores only between `starts_at` and `ends_at`, from at most
//! `max_players` players and, with `join_required`, only from players who joined it first.
//!
//! A tournament's players are rows of `leaderboard_tournament_players`, in the cold store, so
//! every node agrees on them. A player becomes one by joining, or (when joining is not required)
//! by a first accepted score. Letting a new player in locks the board's row for the rest of a
//! short transaction, then counts and inserts, so concurrent newcomers on any number of nodes
//! are counted one after another and `max_players` holds.
use super::{boards::Board, error::LeaderboardError};
use crate::{http::timestamp, state::AppState, words::TournamentState};
use chrono::{DateTime, Utc};
use entity::{leaderboard_bans as bans, leaderboard_tournament_players as players, leaderboards};
use sea_orm::{
    sea_query::Expr, ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait,
    QueryFilter, TransactionTrait,
};
use uuid::Uuid;

/// The most players a tournament may be limited to.
pub const MAX_PLAYERS_LIMIT: i64 = 1_000_000;

/// A board's tournament settings; a board with none of them set is an ordinary board.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TournamentSettings {
    pub starts_at: Option<DateTime<Utc>>,
    pub ends_at: Option<DateTime<Utc>>,
    pub max_players: Option<u32>,
    pub join_required: bool,
}

impl TournamentSettings {
    /// The settings a stored definition has.
    pub fn of(model: &leaderboards::Model) -> Self {
        Self {
            starts_at: model.starts_at,
            ends_at: model.ends_at,
            max_players: model
                .max_players
                .and_then(|limit| u32::try_from(limit).ok()),
            join_required: model.join_required,
        }
    }

    /// True when any setting makes the board a tournament.
    pub fn is_tournament(&self) -> bool {
        self.starts_at.is_some()
            || self.ends_at.is_some()
            || self.max_players.is_some()
            || self.join_required
    }

    /// 400 when `ends_at` is not after `starts_at`.
    pub fn validate(&self) -> Result<(), LeaderboardError> {
        if let (Some(starts_at), Some(ends_at)) = (self.starts_at, self.ends_at) {
            if ends_at <= starts_at {
                return Err(LeaderboardError::invalid("ends_at must be after starts_at"));
            }
        }
        Ok(())
    }

    /// Upcoming before `starts_at`, ended from `ends_at` on, live in between.
    pub fn state_at(&self, now: DateTime<Utc>) -> TournamentState {
        if self.starts_at.is_some_and(|starts_at| now < starts_at) {
            TournamentState::Upcoming
        } else if self.ends_at.is_some_and(|ends_at| now >= ends_at) {
            TournamentState::Ended
        } else {
            TournamentState::Live
        }
    }

    /// 409 unless the tournament is live at `now`.
    fn require_live(&self, now: DateTime<Utc>) -> Result<(), LeaderboardError> {
        match self.state_at(now) {
            TournamentState::Live => Ok(()),
            TournamentState::Upcoming => Err(not_started(self.starts_at)),
            TournamentState::Ended => Err(ended(self.ends_at)),
        }
    }
}

fn not_started(starts_at: Option<DateTime<Utc>>) -> LeaderboardError {
    LeaderboardError::NotStarted(starts_at.map(timestamp).unwrap_or_default())
}

fn ended(ends_at: Option<DateTime<Utc>>) -> LeaderboardError {
    LeaderboardError::Ended(ends_at.map(timestamp).unwrap_or_default())
}

/// A `max_players` as a request gives it: 400 outside 1 to 1,000,000.
pub fn parse_max_players(raw: i64) -> Result<u32, LeaderboardError> {
    if (1..=MAX_PLAYERS_LIMIT).contains(&raw) {
        Ok(raw as u32)
    } else {
        Err(LeaderboardError::invalid(
            "max_players must be an integer from 1 to 1000000",
        ))
    }
}

/// A tournament as reads show it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TournamentStatus {
    pub settings: TournamentSettings,
    pub state: TournamentState,
    /// Whole seconds until `ends_at` while live (and an end is set).
    pub seconds_left: Option<i64>,
    /// Players taking part: joined, or let in by a first score.
    pub players: u64,
}

/// The board's tournament as it stands at `now`; `None` for an ordinary board (no query then).
pub async fn status(
    state: &AppState,
    board: &Board,
    now: DateTime<Utc>,
) -> Result<Option<TournamentStatus>, LeaderboardError> {
    let settings = TournamentSettings::of(&board.model);
    if !settings.is_tournament() {
        return Ok(None);
    }
    Ok(Some(status_with(
        settings,
        now,
        count_players(&state.db, board.id()).await?,
    )))
}

fn status_with(settings: TournamentSettings, now: DateTime<Utc>, players: u64) -> TournamentStatus {
    let state = settings.state_at(now);
    let seconds_left = match (state, settings.ends_at) {
        (TournamentState::Live, Some(ends_at)) => Some((ends_at - now).num_seconds().max(0)),
        _ => None,
    };
    TournamentStatus {
        settings,
        state,
        seconds_left,
        players,
    }
}

async fn count_players(db: &impl ConnectionTrait, board_id: Uuid) -> Result<u64, sea_orm::DbErr> {
    players::Entity::find()
        .filter(players::Column::BoardId.eq(board_id))
        .count(db)
        .await
}

async fn is_player(
    db: &impl ConnectionTrait,
    board_id: Uuid,
    player_id: &str,
) -> Result<bool, sea_orm::DbErr> {
    Ok(
        players::Entity::find_by_id((board_id, player_id.to_string()))
            .one(db)
            .await?
            .is_some(),
    )
}

/// Whether a score from `player_id` may go to `board` now: 409 outside the tournament's time
/// or when it is full, 403 when joining is required and the player has not joined. A first
/// score on a board that needs no joining lets the player in (counted against `max_players`).
/// Ordinary boards cost nothing here.
pub async fn admit_score(
    state: &AppState,
    board: &Board,
    player_id: &str,
    now: DateTime<Utc>,
) -> Result<(), LeaderboardError> {
    let settings = TournamentSettings::of(&board.model);
    if !settings.is_tournament() {
        return Ok(());
    }
    settings.require_live(now)?;
    if is_player(&state.db, board.id(), player_id).await? {
        return Ok(());
    }
    if settings.join_required {
        return Err(LeaderboardError::JoinFirst);
    }
    enter(state, board, player_id, now, false).await?;
    Ok(())
}

/// Joins `player_id` to the tournament `board` (idempotent): the number of players after it.
/// 409 when the board is no tournament, has ended or is full; 403 when the player is banned.
/// Joining before the start is allowed (sign-up ahead of the tournament).
pub async fn join(
    state: &AppState,
    board: &Board,
    player_id: &str,
    now: DateTime<Utc>,
) -> Result<TournamentStatus, LeaderboardError> {
    let settings = TournamentSettings::of(&board.model);
    if !settings.is_tournament() {
        return Err(LeaderboardError::NotATournament);
    }
    if settings.state_at(now) == TournamentState::Ended {
        return Err(ended(settings.ends_at));
    }
    if !is_player(&state.db, board.id(), player_id).await? {
        enter(state, board, player_id, now, true).await?;
    }
    Ok(status_with(
        settings,
        now,
        count_players(&state.db, board.id()).await?,
    ))
}

/// How many locks the node's newcomers are spread over (by board), in `enter`.
const ENTRY_STRIPES: usize = 64;

/// One node's newcomers of a board wait for each other here before they take a connection.
/// Without it, each waited for the board's row lock inside its own transaction, holding one of
/// the pool's connections: a burst of newcomers to one board took the whole pool, and the
/// requests beyond it waited past the pool's acquire limit and got 503 (seen in CI on a loaded
/// machine). Boards share a lock only when their ids fall on the same stripe.
static ENTRY_LOCKS: std::sync::LazyLock<Vec<tokio::sync::Mutex<()>>> =
    std::sync::LazyLock::new(|| {
        (0..ENTRY_STRIPES)
            .map(|_| tokio::sync::Mutex::new(()))
            .collect()
    });

/// Lets a new player in, unless the tournament is full, in one transaction that holds the
/// board's row: concurrent newcomers (on any node) count one after another. The settings are
/// read again inside it, so a limit changed on another node applies at once.
async fn enter(
    state: &AppState,
    board: &Board,
    player_id: &str,
    now: DateTime<Utc>,
    joining: bool,
) -> Result<(), LeaderboardError> {
    let stripe = (board.id().as_u128() % ENTRY_STRIPES as u128) as usize;
    let _turn = ENTRY_LOCKS[stripe].lock().await;
    let txn = state.db.begin().await?;
    // The row lock is held until commit: a concurrent newcomer waits here, then counts this
    // one's row. (On SQLite the write takes the database's write lock, to the same effect.)
    leaderboards::Entity::update_many()
        .col_expr(
            leaderboards::Column::Id,
            Expr::col(leaderboards::Column::Id),
        )
        .filter(leaderboards::Column::Id.eq(board.id()))
        .exec(&txn)
        .await?;
    let Some(model) = leaderboards::Entity::find_by_id(board.id())
        .one(&txn)
        .await?
    else {
        return Err(LeaderboardError::NoSuchBoard);
    };
    let settings = TournamentSettings::of(&model);
    if is_player(&txn, board.id(), player_id).await? {
        return Ok(());
    }
    if settings.join_required && !joining {
        return Err(LeaderboardError::JoinFirst);
    }
    let banned = bans::Entity::find_by_id((board.id(), player_id.to_string()))
        .one(&txn)
        .await?
        .is_some();
    if banned {
        return Err(LeaderboardError::Banned);
    }
    if let Some(limit) = settings.max_players {
        if count_players(&txn, board.id()).await? >= u64::from(limit) {
            return Err(LeaderboardError::Full(limit));
        }
    }
    players::Entity::insert(players::ActiveModel {
        game_id: Set(model.game_id),
        board_id: Set(board.id()),
        player_id: Set(player_id.to_string()),
        joined_at: Set(now),
    })
    .exec_without_returning(&txn)
    .await?;
    txn.commit().await?;
    Ok(())
}
