//! `/v1/leaderboards` (API key): submit scores, read ranked boards, a player's standing.
use super::{
    boards::{BoardName, ByScore, PlayerId},
    error::LeaderboardError,
    score::Score,
    service::{self, Ranked, Standing, Submission},
    tournament::{self, TournamentStatus},
};
use crate::http::schema::Timestamp;
use crate::words::{EntryStatus, ScoreOperator, ScoreOrder, TournamentState, Word};
use crate::{auth::ApiKeyAuth, http::json_text::JsonText, http::ApiTags, state::AppState};
use poem_openapi::{
    param::{Path, Query},
    payload::Json,
    Object, OpenApi,
};
use serde_json::Value;

/// Entries a board read returns unless `limit` says otherwise, and the most it returns.
pub const DEFAULT_LIMIT: u64 = 50;
pub const MAX_LIMIT: u64 = 100;
/// Neighbours either side of a player unless `around` says otherwise, and the most allowed.
pub const DEFAULT_AROUND: u64 = 5;
pub const MAX_AROUND: u64 = 50;

pub struct LeaderboardsApi {
    pub state: AppState,
}

#[derive(Object)]
#[oai(deny_unknown_fields)]
pub struct SubmitScore {
    /// The board, up to 255 characters. A board with no definition is created with the
    /// defaults (higher is better, all-time).
    pub board_name: String,
    /// The board's order when this score creates it: `higher` (default) or `lower`. For an
    /// existing board it must be the board's (409 otherwise).
    #[oai(nullable)]
    pub order: Option<Word<ScoreOrder>>,
    /// The board's operator when this score creates it: `best` (default: kept when better),
    /// `latest` (replaces), `increment` (added) or `decrement` (subtracted). For an existing
    /// board it must be the board's (409 otherwise).
    #[oai(nullable)]
    pub operator: Option<Word<ScoreOperator>>,
    /// 1 to 128 characters.
    pub player_id: String,
    /// Any finite number.
    pub score: Score,
    /// Display name, up to 128 characters.
    #[oai(nullable)]
    pub player_name: Option<String>,
    /// An object stored with the entry (up to 4 KiB as JSON).
    #[oai(nullable)]
    pub metadata: Option<Value>,
}

#[derive(Object)]
#[oai(deny_unknown_fields)]
pub struct SubmitEntry {
    /// Optional; when given it must match the path.
    #[oai(nullable)]
    pub board_name: Option<String>,
    /// The board's order when this score creates it: `higher` (default) or `lower`. For an
    /// existing board it must be the board's (409 otherwise).
    #[oai(nullable)]
    pub order: Option<Word<ScoreOrder>>,
    /// The board's operator when this score creates it: `best` (default: kept when better),
    /// `latest` (replaces), `increment` (added) or `decrement` (subtracted). For an existing
    /// board it must be the board's (409 otherwise).
    #[oai(nullable)]
    pub operator: Option<Word<ScoreOperator>>,
    /// 1 to 128 characters.
    pub player_id: String,
    /// Any finite number.
    pub score: Score,
    /// Display name, up to 128 characters.
    #[oai(nullable)]
    pub player_name: Option<String>,
    /// An object stored with the entry (up to 4 KiB as JSON).
    #[oai(nullable)]
    pub metadata: Option<Value>,
}

/// The player's entry as it stands after a submission.
#[derive(Object)]
pub struct SubmittedEntry {
    pub board_name: String,
    pub player_id: String,
    #[oai(nullable)]
    pub player_name: Option<String>,
    pub score: Score,
    pub metadata: Value,
    /// Position on the board, 1 first; null while the entry is suspicious.
    #[oai(nullable)]
    pub rank: Option<u64>,
    pub updated_at: Timestamp,
    /// False when a worse or equal score left the stored entry unchanged (`best` boards; on
    /// the others every accepted score changes the entry).
    pub updated: bool,
    /// `ok`, or `suspicious` when the score is outside the board's bounds: it is then kept off
    /// the public board until a moderator approves it.
    pub status: EntryStatus,
    /// The board's order: `higher` (higher scores are better) or `lower`. A client keeping
    /// scores back (the 5-second throttle) uses it to know which of two scores is better.
    pub order: ScoreOrder,
    /// The board's operator. Only on `best` boards may a client merge scores it keeps back
    /// (the throttle); on the others every score counts.
    pub operator: ScoreOperator,
    /// When the board's current period began (RFC 3339); null for an all-time board never
    /// reset.
    #[oai(nullable)]
    pub period_start: Option<Timestamp>,
    /// When the board's current period ends and the board starts over; null when it never
    /// does (all-time).
    #[oai(nullable)]
    pub resets_at: Option<Timestamp>,
    /// The board's tournament (time window, player limit, joining); null for an ordinary
    /// board.
    #[oai(nullable)]
    pub tournament: Option<TournamentView>,
}

/// A tournament board's settings and where it stands.
#[derive(Object)]
pub struct TournamentView {
    /// `upcoming` (before `starts_at`), `live` or `ended` (from `ends_at` on).
    pub state: TournamentState,
    /// Scores are taken from this instant on; null: from the start.
    #[oai(nullable)]
    pub starts_at: Option<Timestamp>,
    /// Scores are refused from this instant on; null: no end.
    #[oai(nullable)]
    pub ends_at: Option<Timestamp>,
    /// Whole seconds until `ends_at` while live; null otherwise (or without an end).
    #[oai(nullable)]
    pub seconds_left: Option<i64>,
    /// How many players may take part; null: no limit.
    #[oai(nullable)]
    pub max_players: Option<u32>,
    /// Players taking part: those who joined, or whose first score let them in.
    pub players: u64,
    /// True: only players who joined (`POST /v1/leaderboards/{board_name}/join`) may submit.
    pub join_required: bool,
}

impl From<TournamentStatus> for TournamentView {
    fn from(status: TournamentStatus) -> Self {
        Self {
            state: status.state,
            starts_at: status.settings.starts_at.map(Timestamp::from),
            ends_at: status.settings.ends_at.map(Timestamp::from),
            seconds_left: status.seconds_left,
            max_players: status.settings.max_players,
            players: status.players,
            join_required: status.settings.join_required,
        }
    }
}

#[derive(Object)]
#[oai(deny_unknown_fields)]
pub struct JoinTournament {
    /// 1 to 128 characters.
    pub player_id: String,
}

#[derive(Object)]
pub struct TournamentJoined {
    pub board_name: String,
    pub player_id: String,
    /// Always true: the player takes part (joining again changes nothing).
    pub joined: bool,
    /// Players taking part, this one included.
    pub players: u64,
    pub tournament: TournamentView,
}

#[derive(Object)]
pub struct LeaderboardEntry {
    /// Position on the board, 1 first. Equal scores rank by who reached them first.
    pub rank: u64,
    pub player_id: String,
    #[oai(nullable)]
    pub player_name: Option<String>,
    pub score: Score,
    pub metadata: Value,
    pub updated_at: Timestamp,
}

#[derive(Object)]
pub struct LeaderboardPage {
    pub board_name: String,
    /// The same as `board_name`.
    pub leaderboard: String,
    /// The period read: `YYYY-MM-DD`, `YYYY-Www`, `YYYY-MM`, `all_time` or `since-...`.
    pub period: String,
    /// When the board's current period began (RFC 3339); null for an all-time board never
    /// reset.
    #[oai(nullable)]
    pub period_start: Option<Timestamp>,
    /// When the board's current period ends and the board starts over; null when it never
    /// does (all-time).
    #[oai(nullable)]
    pub resets_at: Option<Timestamp>,
    /// The board's tournament (time window, player limit, joining); null for an ordinary
    /// board.
    #[oai(nullable)]
    pub tournament: Option<TournamentView>,
    /// Entries on the board in this period.
    pub total: u64,
    pub limit: u64,
    pub offset: u64,
    /// Ordered by rank.
    pub entries: Vec<LeaderboardEntry>,
}

#[derive(Object)]
pub struct PlayerStanding {
    pub board_name: String,
    pub period: String,
    /// When the board's current period began (RFC 3339); null for an all-time board never
    /// reset.
    #[oai(nullable)]
    pub period_start: Option<Timestamp>,
    /// When the board's current period ends and the board starts over; null when it never
    /// does (all-time).
    #[oai(nullable)]
    pub resets_at: Option<Timestamp>,
    /// The board's tournament (time window, player limit, joining); null for an ordinary
    /// board.
    #[oai(nullable)]
    pub tournament: Option<TournamentView>,
    /// Entries on the board in this period.
    pub total: u64,
    /// The player's rank.
    pub rank: u64,
    /// The player's entry.
    pub entry: LeaderboardEntry,
    /// The player's neighbours and the player, ordered by rank.
    pub entries: Vec<LeaderboardEntry>,
}

pub fn entry_view(ranked: Ranked) -> LeaderboardEntry {
    LeaderboardEntry {
        rank: ranked.rank,
        player_id: ranked.entry.player_id,
        player_name: ranked.entry.player_name,
        score: Score(ranked.entry.score),
        metadata: ranked.entry.metadata,
        updated_at: ranked.entry.updated_at.into(),
    }
}

pub fn submitted_view(board_name: &str, standing: Standing) -> SubmittedEntry {
    SubmittedEntry {
        board_name: board_name.to_string(),
        player_id: standing.entry.player_id,
        player_name: standing.entry.player_name,
        score: Score(standing.entry.score),
        metadata: standing.entry.metadata,
        rank: standing.rank,
        updated_at: standing.entry.updated_at.into(),
        updated: standing.updated,
        status: standing.status,
        order: standing.order,
        operator: standing.operator,
        period_start: standing.schedule.period_start.map(Timestamp::from),
        resets_at: standing.schedule.resets_at.map(Timestamp::from),
        tournament: standing.tournament.map(TournamentView::from),
    }
}

/// `limit` and `offset` of a paged read: 400 outside 1..=100 and 0.. respectively.
pub fn paging(limit: Option<i64>, offset: Option<i64>) -> Result<(u64, u64), LeaderboardError> {
    let limit = match limit {
        None => DEFAULT_LIMIT,
        Some(limit) if (1..=MAX_LIMIT as i64).contains(&limit) => limit as u64,
        Some(_) => {
            return Err(LeaderboardError::invalid(
                "limit must be an integer from 1 to 100",
            ))
        }
    };
    let offset = match offset {
        None => 0,
        Some(offset) if offset >= 0 => offset as u64,
        Some(_) => {
            return Err(LeaderboardError::invalid(
                "offset must be a non-negative integer",
            ))
        }
    };
    Ok((limit, offset))
}

impl LeaderboardsApi {
    /// Either submit route's last step: the player token must be the submission's player.
    async fn submit_as_player(
        &self,
        auth: &ApiKeyAuth,
        name: BoardName,
        submission: Submission,
        order: Option<Word<ScoreOrder>>,
        operator: Option<Word<ScoreOperator>>,
    ) -> poem::Result<Json<SubmittedEntry>> {
        let by_score = ByScore {
            order: order.as_ref().map(Word::parse).transpose()?,
            operator: operator.as_ref().map(Word::parse).transpose()?,
            allowed: auth.0.leaderboards_from_scores,
            limit: auth.0.score_board_limit,
        };
        auth.acts_as(submission.player_id.as_str())?;
        let standing =
            service::submit(&self.state, auth.0.game_id, &name, submission, by_score).await?;
        Ok(Json(submitted_view(name.as_str(), standing)))
    }
}

/// What each operation here answers beyond the universal statuses (`http::error_responses`):
/// 404: an unknown board, or a player without an entry; 409: a closed, full or differently set
/// board, or the cap on boards scores create.
pub const STATUSES: crate::http::Statuses = crate::http::statuses! {
    submitScore: [404, 409],
    submitScoreToBoard: [404, 409],
    joinTournament: [404, 409],
    getLeaderboard: [],
    getPlayerStanding: [404],
};

#[OpenApi(prefix_path = "/v1/leaderboards", tag = "ApiTags::Leaderboards")]
impl LeaderboardsApi {
    /// Submit a score. Only a better score (higher, or lower on a lower-is-better board)
    /// replaces the player's stored one; the answer is the entry as it stands, with its rank.
    #[oai(path = "/", method = "post", operation_id = "submitScore")]
    async fn submit(
        &self,
        auth: ApiKeyAuth,
        body: Json<SubmitScore>,
    ) -> poem::Result<Json<SubmittedEntry>> {
        let body = body.0;
        let name = BoardName::parse(&body.board_name)?;
        let submission = Submission::parse(
            &body.player_id,
            body.player_name,
            body.score.0,
            body.metadata,
        )?;
        self.submit_as_player(&auth, name, submission, body.order, body.operator)
            .await
    }

    /// Submit a score to the board in the path (same rules as `POST /v1/leaderboards`).
    #[oai(
        path = "/:board_name/entries",
        method = "post",
        operation_id = "submitScoreToBoard"
    )]
    async fn submit_entry(
        &self,
        auth: ApiKeyAuth,
        board_name: Path<String>,
        body: Json<SubmitEntry>,
    ) -> poem::Result<Json<SubmittedEntry>> {
        let body = body.0;
        let name = BoardName::parse(&board_name.0)?;
        if body
            .board_name
            .as_deref()
            .is_some_and(|given| given != name.as_str())
        {
            return Err(LeaderboardError::invalid(
                "board_name in the body does not match the path",
            )
            .into());
        }
        let submission = Submission::parse(
            &body.player_id,
            body.player_name,
            body.score.0,
            body.metadata,
        )?;
        self.submit_as_player(&auth, name, submission, body.order, body.operator)
            .await
    }

    /// Join a tournament board as a player: required before scoring when the board has
    /// `join_required`, allowed on any tournament until it ends. Joining again is harmless.
    /// 409 when the board is not a tournament, has ended or is full; 404 unknown board.
    #[oai(
        path = "/:board_name/join",
        method = "post",
        operation_id = "joinTournament"
    )]
    async fn join(
        &self,
        auth: ApiKeyAuth,
        board_name: Path<String>,
        body: Json<JoinTournament>,
    ) -> poem::Result<Json<TournamentJoined>> {
        let name = BoardName::parse(&board_name.0)?;
        let player = PlayerId::parse(&body.0.player_id)?;
        auth.acts_as(player.as_str())?;
        let state = &self.state;
        let board = super::boards::find_cached(state, auth.0.game_id, &name)
            .await?
            .ok_or(LeaderboardError::NoSuchBoard)?;
        let status = tournament::join(state, &board, player.as_str(), state.now()).await?;
        Ok(Json(TournamentJoined {
            board_name: name.as_str().to_string(),
            player_id: player.as_str().to_string(),
            joined: true,
            players: status.players,
            tournament: status.into(),
        }))
    }

    /// Read a board, ranked 1..n (ties: who reached the score first ranks higher). Reads the
    /// current period unless `period` names another (e.g. yesterday's `2026-11-20`).
    #[oai(path = "/:board_name", method = "get", operation_id = "getLeaderboard")]
    async fn get(
        &self,
        auth: ApiKeyAuth,
        board_name: Path<String>,
        /// Entries to return, 1 to 100 (default 50).
        limit: Query<Option<i64>>,
        /// Entries to skip (default 0).
        offset: Query<Option<i64>>,
        /// A period key; default the current period.
        period: Query<Option<String>>,
    ) -> poem::Result<JsonText<LeaderboardPage>> {
        let name = BoardName::parse(&board_name.0)?;
        let (limit, offset) = paging(limit.0, offset.0)?;
        let state = &self.state;
        let cached = service::current_version(
            state,
            auth.0.game_id,
            &name,
            period.0.as_deref(),
            offset,
            limit,
        )
        .await?;
        if let Some((key, version)) = &cached {
            if let Some(page) = pages(state).get(key, version) {
                return Ok(page);
            }
        }
        let page = service::page(
            &self.state,
            auth.0.game_id,
            &name,
            period.0.as_deref(),
            offset,
            limit,
        )
        .await?;
        let rendered = JsonText::render(&LeaderboardPage {
            board_name: name.as_str().to_string(),
            leaderboard: name.as_str().to_string(),
            period: page.period,
            period_start: page.schedule.period_start.map(Timestamp::from),
            resets_at: page.schedule.resets_at.map(Timestamp::from),
            tournament: page.tournament.map(TournamentView::from),
            total: page.total,
            limit,
            offset,
            entries: page.entries.into_iter().map(entry_view).collect(),
        });
        if let Some((key, version)) = cached {
            pages(state).put(key, version, rendered.clone());
        }
        Ok(rendered)
    }

    /// A player's rank on a board and the entries around it (`around` either side, default 5,
    /// at most 50). 404 when the player has no entry in the period.
    #[oai(
        path = "/:board_name/players/:player_id",
        method = "get",
        operation_id = "getPlayerStanding"
    )]
    async fn standing(
        &self,
        auth: ApiKeyAuth,
        board_name: Path<String>,
        player_id: Path<String>,
        /// Neighbours either side, 0 to 50 (default 5).
        around: Query<Option<i64>>,
        /// A period key; default the current period.
        period: Query<Option<String>>,
    ) -> poem::Result<Json<PlayerStanding>> {
        let name = BoardName::parse(&board_name.0)?;
        let player = PlayerId::parse(&player_id.0)?;
        let radius = match around.0 {
            None => DEFAULT_AROUND,
            Some(radius) if (0..=MAX_AROUND as i64).contains(&radius) => radius as u64,
            Some(_) => {
                return Err(
                    LeaderboardError::invalid("around must be an integer from 0 to 50").into(),
                )
            }
        };
        let found = service::around(
            &self.state,
            auth.0.game_id,
            &name,
            &player,
            period.0.as_deref(),
            radius,
        )
        .await?;
        Ok(Json(PlayerStanding {
            board_name: name.as_str().to_string(),
            period: found.period,
            period_start: found.schedule.period_start.map(Timestamp::from),
            resets_at: found.schedule.resets_at.map(Timestamp::from),
            tournament: found.tournament.map(TournamentView::from),
            total: found.total,
            rank: found.player.rank,
            entry: entry_view(found.player),
            entries: found.entries.into_iter().map(entry_view).collect(),
        }))
    }
}

/// This node's rendered pages.
fn pages(state: &AppState) -> &super::pages::PageCache<LeaderboardPage> {
    &state.parts.pages
}
