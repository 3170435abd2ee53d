//! `/v1/games/{game_id}/leaderboards` (JWT): board definitions (editor to change, viewer to
//! read) and moderation: entries by status, bans and approvals (editor).
use super::{
    boards::{self, Board, BoardName, Change, PlayerId, ScoreOrder, Settings},
    error::LeaderboardError,
    game_api::{paging, submitted_view, SubmittedEntry, TournamentView},
    moderation::{self, ListingQuery, StatusFilter},
    reset_schedule::ResetSchedule,
    results,
    score::Score,
    tournament::{self, parse_max_players, TournamentSettings},
};
use crate::http::schema::Timestamp;
use crate::words::{self, EntryStatus, ResetPeriod, Word};
use crate::{
    auth::BearerAuth,
    games::{require_role, Role},
    http::ApiTags,
    http::NoContent,
    state::AppState,
};
use chrono::{DateTime, Utc};
use poem_openapi::{
    param::{Path, Query},
    payload::Json,
    types::MaybeUndefined,
    ApiResponse, Object, OpenApi,
};
use serde_json::Value;
use uuid::Uuid;

pub struct LeaderboardAdminApi {
    pub state: AppState,
}

#[derive(Object)]
#[oai(deny_unknown_fields)]
pub struct CreateLeaderboard {
    /// 1 to 255 characters, unique within the game.
    pub board_name: String,
    /// `higher` (default) or `lower`: which score is better.
    #[oai(nullable)]
    pub order: Option<Word<words::ScoreOrder>>,
    /// What a submitted score does: `best` (default: kept when better), `latest` (replaces),
    /// `increment` (added) or `decrement` (subtracted).
    #[oai(nullable)]
    pub operator: Option<Word<words::ScoreOperator>>,
    /// `daily`, `weekly` (ISO weeks, Monday 00:00 UTC), `monthly` or `all_time` (default).
    #[oai(nullable)]
    pub period: Option<Word<ResetPeriod>>,
    /// Instead of `period` (not both): a 5-field cron expression in UTC the board resets at,
    /// e.g. `0 18 * * FRI` (every Friday 18:00); at least an hour between resets.
    #[oai(nullable)]
    pub reset_schedule: Option<String>,
    /// All-time boards only: an RFC 3339 instant at which the board resets once.
    #[oai(nullable)]
    pub auto_reset_at: Option<Timestamp>,
    /// Scores below this are stored as suspicious and kept off the board until approved.
    #[oai(nullable)]
    pub min_score: Option<Score>,
    /// Scores above this are stored as suspicious and kept off the board until approved.
    #[oai(nullable)]
    pub max_score: Option<Score>,
    /// Tournament: scores are refused before this RFC 3339 instant.
    #[oai(nullable)]
    pub starts_at: Option<String>,
    /// Tournament: scores are refused from this RFC 3339 instant on; after `starts_at`.
    #[oai(nullable)]
    pub ends_at: Option<String>,
    /// Tournament: at most this many players (1 to 1,000,000) take part.
    #[oai(nullable)]
    pub max_players: Option<i64>,
    /// Tournament: only players who joined may submit scores (default false).
    #[oai(nullable)]
    pub join_required: Option<bool>,
    /// An http(s) URL the final standings of each period that ends are POSTed to (see
    /// "Results webhook" in the leaderboards docs); must reach a public address.
    #[oai(nullable)]
    pub results_webhook: Option<String>,
}

#[derive(Object)]
#[oai(deny_unknown_fields)]
pub struct UpdateLeaderboard {
    /// Only while the board has no entries.
    #[oai(nullable)]
    pub order: Option<Word<words::ScoreOrder>>,
    /// Only while the board has no entries.
    #[oai(nullable)]
    pub operator: Option<Word<words::ScoreOperator>>,
    /// Takes effect at once: the current period changes, the old one is archived. Clears a
    /// reset schedule.
    #[oai(nullable)]
    pub period: Option<Word<ResetPeriod>>,
    /// A 5-field cron expression in UTC the board resets at instead of a period (not with
    /// `period`); takes effect at once like a period change; null clears it.
    #[oai(nullable)]
    pub reset_schedule: MaybeUndefined<String>,
    /// null clears it.
    #[oai(nullable)]
    pub auto_reset_at: MaybeUndefined<String>,
    /// null clears it.
    #[oai(nullable)]
    pub min_score: MaybeUndefined<Score>,
    /// null clears it.
    #[oai(nullable)]
    pub max_score: MaybeUndefined<Score>,
    /// Tournament start (RFC 3339); null clears it.
    #[oai(nullable)]
    pub starts_at: MaybeUndefined<String>,
    /// Tournament end (RFC 3339, after `starts_at`); null clears it.
    #[oai(nullable)]
    pub ends_at: MaybeUndefined<String>,
    /// Tournament player limit, 1 to 1,000,000; null clears it. Lowering it below the players
    /// already in keeps them in and lets nobody new in.
    #[oai(nullable)]
    pub max_players: MaybeUndefined<i64>,
    /// Tournament: only players who joined may submit scores.
    #[oai(nullable)]
    pub join_required: Option<bool>,
    /// Results webhook URL; null or "" clears it.
    #[oai(nullable)]
    pub results_webhook: MaybeUndefined<String>,
}

#[derive(Object)]
pub struct LeaderboardDefinition {
    pub board_name: String,
    pub order: words::ScoreOrder,
    /// `best`, `latest`, `increment` or `decrement`.
    pub operator: words::ScoreOperator,
    /// `all_time` on a board with a `reset_schedule`: the schedule replaces the period.
    pub period: ResetPeriod,
    /// The cron expression (UTC) the board resets at; null: its period rules.
    #[oai(nullable)]
    pub reset_schedule: Option<String>,
    #[oai(nullable)]
    pub auto_reset_at: Option<Timestamp>,
    #[oai(nullable)]
    pub min_score: Option<Score>,
    #[oai(nullable)]
    pub max_score: Option<Score>,
    /// The key of the period scores go to now.
    pub current_period: String,
    /// When the current period began; null for an all-time board never reset.
    #[oai(nullable)]
    pub period_start: Option<Timestamp>,
    /// When the current period ends; null when it never does.
    #[oai(nullable)]
    pub resets_at: Option<Timestamp>,
    /// The board's tournament (time window, player limit, joining); null for an ordinary
    /// board.
    #[oai(nullable)]
    pub tournament: Option<TournamentView>,
    /// Where the final standings of each period that ends are POSTed; null: nowhere.
    #[oai(nullable)]
    pub results_webhook: Option<String>,
    /// True for a board a first score created and the dashboard has not changed since: those
    /// count against the game's `score_board_limit`.
    pub created_by_score: bool,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// When a reset schedule would reset a board, as the definition form shows it before saving.
#[derive(Object)]
pub struct ResetSchedulePreview {
    /// The expression as it would be stored.
    pub reset_schedule: String,
    /// Its next three firings after now, UTC.
    pub next_resets: Vec<Timestamp>,
}

#[derive(Object)]
pub struct LeaderboardDefinitions {
    /// By name.
    pub leaderboards: Vec<LeaderboardDefinition>,
    /// Boards matching `search` (all the game's without it).
    pub total: u64,
    pub limit: u64,
    pub offset: u64,
}

#[derive(Object)]
pub struct ModeratedEntry {
    pub player_id: String,
    #[oai(nullable)]
    pub player_name: Option<String>,
    pub score: Score,
    pub metadata: Value,
    /// `ok` (on the public board) or `suspicious` (outside the bounds, awaiting review).
    pub status: EntryStatus,
    /// Rank on the public board; given when listing `status=ok`.
    #[oai(nullable)]
    pub rank: Option<u64>,
    pub updated_at: Timestamp,
}

#[derive(Object)]
pub struct ModeratedEntries {
    pub board_name: String,
    pub period: String,
    pub status: words::EntryFilter,
    pub total: u64,
    pub limit: u64,
    pub offset: u64,
    /// Best first.
    pub entries: Vec<ModeratedEntry>,
}

#[derive(Object)]
pub struct BoardPeriod {
    /// The period key (see the board's `period`).
    pub period: String,
    pub opened_at: Timestamp,
    /// Set once the period is over and the worker archived it.
    #[oai(nullable)]
    pub archived_at: Option<Timestamp>,
    /// The period's final entry count, once archived.
    #[oai(nullable)]
    pub entries: Option<u64>,
}

#[derive(Object)]
pub struct BoardPeriods {
    pub board_name: String,
    pub current_period: String,
    /// Newest first.
    pub periods: Vec<BoardPeriod>,
}

#[derive(Object)]
pub struct BannedPlayer {
    pub player_id: String,
    pub banned_at: Timestamp,
}

#[derive(Object)]
pub struct BanList {
    pub board_name: String,
    /// Most recent first.
    pub bans: Vec<BannedPlayer>,
}

#[derive(Object)]
pub struct PlayerBanned {
    pub board_name: String,
    pub player_id: String,
    pub banned: bool,
    pub banned_at: Timestamp,
    /// Entries of the player removed from the board (all periods).
    pub removed_entries: u64,
}

#[derive(ApiResponse)]
pub enum DefinitionCreated {
    #[oai(status = 201)]
    Created(Json<LeaderboardDefinition>),
}

/// A board's definition as the dashboard shows it (its tournament's players counted).
async fn definition_of(
    state: &AppState,
    board: &Board,
) -> Result<LeaderboardDefinition, LeaderboardError> {
    let now = state.now();
    let tournament = tournament::status(state, board, now).await?;
    Ok(definition_view(
        board,
        now,
        tournament.map(TournamentView::from),
    ))
}

fn definition_view(
    board: &Board,
    now: DateTime<Utc>,
    tournament: Option<TournamentView>,
) -> LeaderboardDefinition {
    LeaderboardDefinition {
        board_name: board.model.board_name.clone(),
        order: board.order(),
        operator: board.operator(),
        period: board.period_kind(),
        reset_schedule: board.reset_schedule().map(|s| s.as_str().to_string()),
        auto_reset_at: board.model.auto_reset_at.map(Timestamp::from),
        min_score: board.model.min_score.map(Score),
        max_score: board.model.max_score.map(Score),
        current_period: board.current_period(now),
        period_start: board.schedule(now).period_start.map(Timestamp::from),
        resets_at: board.schedule(now).resets_at.map(Timestamp::from),
        tournament,
        results_webhook: board.model.results_webhook.clone(),
        created_by_score: board.model.created_by_score,
        created_at: Timestamp::from(board.model.created_at),
        updated_at: Timestamp::from(board.model.updated_at),
    }
}

fn parse_instant(raw: &str) -> Result<DateTime<Utc>, LeaderboardError> {
    parse_instant_of("auto_reset_at", raw)
}

/// An RFC 3339 instant; 400 naming `field` otherwise.
fn parse_instant_of(field: &str, raw: &str) -> Result<DateTime<Utc>, LeaderboardError> {
    DateTime::parse_from_rfc3339(raw)
        .map(|at| at.with_timezone(&Utc))
        .map_err(|_| {
            LeaderboardError::invalid(format!(
                "{field} must be an RFC 3339 timestamp, e.g. 2026-12-01T00:00:00Z"
            ))
        })
}

fn maybe<T, U>(
    value: MaybeUndefined<T>,
    convert: impl FnOnce(T) -> Result<U, LeaderboardError>,
) -> Result<Option<Option<U>>, LeaderboardError> {
    Ok(match value {
        MaybeUndefined::Undefined => None,
        MaybeUndefined::Null => Some(None),
        MaybeUndefined::Value(value) => Some(Some(convert(value)?)),
    })
}

/// What each operation here answers beyond the universal statuses (`http::error_responses`):
/// 403: not a member, or a role below the one needed; 404: an unknown board or entry; 409: a
/// taken name, or a locked order or operator.
pub const STATUSES: crate::http::Statuses = crate::http::statuses! {
    createLeaderboard: [403, 409],
    listLeaderboards: [403],
    getLeaderboardDefinition: [403, 404],
    updateLeaderboard: [403, 404, 409],
    resetLeaderboard: [403, 404],
    deleteLeaderboard: [403, 404],
    listLeaderboardEntries: [403, 404],
    listLeaderboardPeriods: [403, 404],
    listLeaderboardBans: [403, 404],
    banLeaderboardPlayer: [403, 404],
    unbanLeaderboardPlayer: [403, 404],
    approveLeaderboardEntry: [403, 404],
    previewResetSchedule: [403],
};

#[OpenApi(prefix_path = "/v1/games", tag = "ApiTags::Leaderboards")]
impl LeaderboardAdminApi {
    /// Define a leaderboard (editor): which score is better, its period or cron reset schedule,
    /// an optional one-time reset date (all-time boards) and score bounds. 409 when the name is
    /// taken.
    #[oai(
        path = "/:game_id/leaderboards",
        method = "post",
        operation_id = "createLeaderboard"
    )]
    async fn create(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        body: Json<CreateLeaderboard>,
    ) -> poem::Result<DefinitionCreated> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Editor).await?;
        let body = body.0;
        let name = BoardName::parse(&body.board_name)?;
        if body.period.is_some() && body.reset_schedule.is_some() {
            return Err(LeaderboardError::invalid(boards::SCHEDULE_OR_PERIOD).into());
        }
        let settings = Settings {
            order: body
                .order
                .as_ref()
                .map_or(Ok(ScoreOrder::Higher), Word::parse)?,
            operator: body
                .operator
                .as_ref()
                .map_or(Ok(words::ScoreOperator::Best), Word::parse)?,
            period: body
                .period
                .as_ref()
                .map_or(Ok(ResetPeriod::AllTime), Word::parse)?,
            reset_schedule: match body.reset_schedule {
                Some(raw) => Some(ResetSchedule::parse_blocking(raw).await?),
                None => None,
            },
            auto_reset_at: body
                .auto_reset_at
                .as_deref()
                .map(parse_instant)
                .transpose()?,
            min_score: body.min_score.map(|s| s.0),
            max_score: body.max_score.map(|s| s.0),
            tournament: TournamentSettings {
                starts_at: body
                    .starts_at
                    .as_deref()
                    .map(|raw| parse_instant_of("starts_at", raw))
                    .transpose()?,
                ends_at: body
                    .ends_at
                    .as_deref()
                    .map(|raw| parse_instant_of("ends_at", raw))
                    .transpose()?,
                max_players: body.max_players.map(parse_max_players).transpose()?,
                join_required: body.join_required.unwrap_or(false),
            },
            results_webhook: match body.results_webhook.as_deref() {
                Some(raw) => results::parse_webhook(raw, self.allow_private()).await?,
                None => None,
            },
        };
        let board = boards::create(&self.state, game_id.0, &name, settings).await?;
        Ok(DefinitionCreated::Created(Json(
            definition_of(&self.state, &board).await?,
        )))
    }

    /// The game's leaderboards by name (viewer), including those created by a first score:
    /// `search` keeps those whose name contains it (any case); `limit` 1 to 500 (default 100).
    #[oai(
        path = "/:game_id/leaderboards",
        method = "get",
        operation_id = "listLeaderboards"
    )]
    async fn list(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        /// Part of a board name, any case.
        search: Query<Option<String>>,
        /// 1 to 500 (default 100).
        limit: Query<Option<i64>>,
        /// Boards to skip (default 0).
        offset: Query<Option<i64>>,
    ) -> poem::Result<Json<LeaderboardDefinitions>> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Viewer).await?;
        let limit = match limit.0 {
            None => boards::DEFAULT_LIST_LIMIT,
            Some(limit) if (1..=boards::MAX_LIST_LIMIT as i64).contains(&limit) => limit as u64,
            Some(_) => {
                return Err(
                    LeaderboardError::invalid("limit must be an integer from 1 to 500").into(),
                )
            }
        };
        let (_, offset) = paging(None, offset.0)?;
        if search
            .0
            .as_deref()
            .is_some_and(|s| s.chars().count() > boards::MAX_BOARD_NAME_CHARS)
        {
            return Err(LeaderboardError::invalid("search must be at most 255 characters").into());
        }
        let found =
            boards::list(&self.state, game_id.0, search.0.as_deref(), offset, limit).await?;
        let mut leaderboards = Vec::with_capacity(found.boards.len());
        for board in &found.boards {
            leaderboards.push(definition_of(&self.state, board).await?);
        }
        Ok(Json(LeaderboardDefinitions {
            leaderboards,
            total: found.total,
            limit,
            offset,
        }))
    }

    /// One leaderboard's definition (viewer).
    #[oai(
        path = "/:game_id/leaderboards/:board_name",
        method = "get",
        operation_id = "getLeaderboardDefinition"
    )]
    async fn get(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        board_name: Path<String>,
    ) -> poem::Result<Json<LeaderboardDefinition>> {
        let board = self
            .board(&auth, &game_id, &board_name, Role::Viewer)
            .await?;
        Ok(Json(definition_of(&self.state, &board).await?))
    }

    /// Change a leaderboard (editor). `order` may change only while the board has no entries.
    #[oai(
        path = "/:game_id/leaderboards/:board_name",
        method = "patch",
        operation_id = "updateLeaderboard"
    )]
    async fn update(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        board_name: Path<String>,
        body: Json<UpdateLeaderboard>,
    ) -> poem::Result<Json<LeaderboardDefinition>> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Editor).await?;
        let body = body.0;
        let change = Change {
            order: body.order.as_ref().map(Word::parse).transpose()?,
            operator: body.operator.as_ref().map(Word::parse).transpose()?,
            period: body.period.as_ref().map(Word::parse).transpose()?,
            reset_schedule: match body.reset_schedule {
                MaybeUndefined::Undefined => None,
                MaybeUndefined::Null => Some(None),
                MaybeUndefined::Value(raw) => Some(Some(ResetSchedule::parse_blocking(raw).await?)),
            },
            auto_reset_at: maybe(body.auto_reset_at, |raw| parse_instant(&raw))?,
            min_score: maybe(body.min_score, |score| Ok(score.0))?,
            max_score: maybe(body.max_score, |score| Ok(score.0))?,
            starts_at: maybe(body.starts_at, |raw| parse_instant_of("starts_at", &raw))?,
            ends_at: maybe(body.ends_at, |raw| parse_instant_of("ends_at", &raw))?,
            max_players: maybe(body.max_players, parse_max_players)?,
            join_required: body.join_required,
            results_webhook: match body.results_webhook {
                MaybeUndefined::Undefined => None,
                MaybeUndefined::Null => Some(None),
                MaybeUndefined::Value(raw) => {
                    Some(results::parse_webhook(&raw, self.allow_private()).await?)
                }
            },
        };
        let board = boards::update(
            &self.state,
            game_id.0,
            &BoardName::parse(&board_name.0)?,
            change,
        )
        .await?;
        Ok(Json(definition_of(&self.state, &board).await?))
    }

    /// Reset a leaderboard by hand (editor): the current period ends now and is archived as
    /// one that ended on schedule; scores go to a new period until the scheduled end.
    #[oai(
        path = "/:game_id/leaderboards/:board_name/reset",
        method = "post",
        operation_id = "resetLeaderboard"
    )]
    async fn reset(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        board_name: Path<String>,
    ) -> poem::Result<Json<LeaderboardDefinition>> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Editor).await?;
        let board =
            boards::reset(&self.state, game_id.0, &BoardName::parse(&board_name.0)?).await?;
        Ok(Json(definition_of(&self.state, &board).await?))
    }

    /// Delete a leaderboard with all its entries, bans and archives (editor).
    #[oai(
        path = "/:game_id/leaderboards/:board_name",
        method = "delete",
        operation_id = "deleteLeaderboard"
    )]
    async fn delete(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        board_name: Path<String>,
    ) -> poem::Result<NoContent> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Editor).await?;
        boards::delete(&self.state, game_id.0, &BoardName::parse(&board_name.0)?).await?;
        Ok(NoContent::Done)
    }

    /// Check a cron reset schedule without saving it (viewer): its next three firings, or the
    /// 400 a board created or changed with it would get.
    #[oai(
        path = "/:game_id/leaderboard-schedule",
        method = "get",
        operation_id = "previewResetSchedule"
    )]
    async fn preview_schedule(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        /// A 5-field cron expression in UTC, e.g. `0 18 * * FRI`.
        reset_schedule: Query<String>,
    ) -> poem::Result<Json<ResetSchedulePreview>> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Viewer).await?;
        let schedule = ResetSchedule::parse_blocking(reset_schedule.0).await?;
        let next_resets = std::iter::successors(schedule.next_after(self.state.now()), |at| {
            schedule.next_after(*at)
        })
        .take(3)
        .map(Timestamp::from)
        .collect();
        Ok(Json(ResetSchedulePreview {
            reset_schedule: schedule.as_str().to_string(),
            next_resets,
        }))
    }

    /// A board's entries for review (viewer), best first: `status` `suspicious`, `ok` or `all`
    /// (default), of the current period unless `period` names another. `player_id` lists one
    /// player's entries only (the player search), each public one with its rank on the board.
    #[oai(
        path = "/:game_id/leaderboards/:board_name/entries",
        method = "get",
        operation_id = "listLeaderboardEntries"
    )]
    #[allow(clippy::too_many_arguments)]
    async fn entries(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        board_name: Path<String>,
        status: Query<Option<String>>,
        period: Query<Option<String>>,
        /// Only this player's entries.
        player_id: Query<Option<String>>,
        /// 1 to 100 (default 50).
        limit: Query<Option<i64>>,
        offset: Query<Option<i64>>,
    ) -> poem::Result<Json<ModeratedEntries>> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Viewer).await?;
        let filter = status
            .0
            .as_deref()
            .map_or(Ok(StatusFilter::All), StatusFilter::parse)
            .map_err(LeaderboardError::from)?;
        let (limit, offset) = paging(limit.0, offset.0)?;
        let player = player_id.0.as_deref().map(PlayerId::parse).transpose()?;
        let board = boards::get(&self.state, game_id.0, &BoardName::parse(&board_name.0)?).await?;
        let listing = moderation::list(
            &self.state,
            &board,
            ListingQuery {
                period: period.0.as_deref(),
                status: filter,
                player: player.as_ref(),
                offset,
                limit,
            },
        )
        .await?;
        Ok(Json(ModeratedEntries {
            board_name: board.name().to_string(),
            period: listing.period,
            status: filter,
            total: listing.total,
            limit,
            offset,
            entries: listing
                .entries
                .into_iter()
                .map(|e| ModeratedEntry {
                    player_id: e.entry.player_id,
                    player_name: e.entry.player_name,
                    score: Score(e.entry.score),
                    metadata: e.entry.metadata,
                    status: e.status,
                    rank: e.rank,
                    updated_at: e.entry.updated_at.into(),
                })
                .collect(),
        }))
    }

    /// The periods a board has had scores in (viewer), newest first: the current one and the
    /// finished ones, with their final entry counts once archived. Any of them can be read with
    /// `?period=` on the entries route.
    #[oai(
        path = "/:game_id/leaderboards/:board_name/periods",
        method = "get",
        operation_id = "listLeaderboardPeriods"
    )]
    async fn periods(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        board_name: Path<String>,
    ) -> poem::Result<Json<BoardPeriods>> {
        let board = self
            .board(&auth, &game_id, &board_name, Role::Viewer)
            .await?;
        let periods = moderation::periods(&self.state, &board).await?;
        Ok(Json(BoardPeriods {
            board_name: board.name().to_string(),
            current_period: board.current_period(self.state.now()),
            periods: periods
                .into_iter()
                .map(|p| BoardPeriod {
                    period: p.period,
                    opened_at: p.opened_at.into(),
                    archived_at: p.archived_at.map(Timestamp::from),
                    entries: p.entries,
                })
                .collect(),
        }))
    }

    /// The players banned from a board (viewer), most recent first.
    #[oai(
        path = "/:game_id/leaderboards/:board_name/bans",
        method = "get",
        operation_id = "listLeaderboardBans"
    )]
    async fn bans(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        board_name: Path<String>,
    ) -> poem::Result<Json<BanList>> {
        let board = self
            .board(&auth, &game_id, &board_name, Role::Viewer)
            .await?;
        let bans = moderation::bans(&self.state, &board).await?;
        Ok(Json(BanList {
            board_name: board.name().to_string(),
            bans: bans
                .into_iter()
                .map(|(player_id, banned_at)| BannedPlayer {
                    player_id,
                    banned_at: banned_at.into(),
                })
                .collect(),
        }))
    }

    /// Ban a player from the board (editor): their entries are removed (every period) and their
    /// later submissions to it are refused with 403.
    #[oai(
        path = "/:game_id/leaderboards/:board_name/entries/:player_id/ban",
        method = "post",
        operation_id = "banLeaderboardPlayer"
    )]
    async fn ban(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        board_name: Path<String>,
        player_id: Path<String>,
    ) -> poem::Result<Json<PlayerBanned>> {
        let board = self
            .board(&auth, &game_id, &board_name, Role::Editor)
            .await?;
        let player = PlayerId::parse(&player_id.0)?;
        let banned = moderation::ban(&self.state, &board, &player, auth.0).await?;
        Ok(Json(PlayerBanned {
            board_name: board.name().to_string(),
            player_id: player.as_str().to_string(),
            banned: true,
            banned_at: banned.banned_at.into(),
            removed_entries: banned.removed_entries,
        }))
    }

    /// Lift a ban (editor). 404 when the player is not banned.
    #[oai(
        path = "/:game_id/leaderboards/:board_name/entries/:player_id/ban",
        method = "delete",
        operation_id = "unbanLeaderboardPlayer"
    )]
    async fn unban(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        board_name: Path<String>,
        player_id: Path<String>,
    ) -> poem::Result<NoContent> {
        let board = self
            .board(&auth, &game_id, &board_name, Role::Editor)
            .await?;
        if !moderation::unban(&self.state, &board, &PlayerId::parse(&player_id.0)?).await? {
            return Err(LeaderboardError::NoSuchEntry(
                "This player is not banned from this leaderboard",
            )
            .into());
        }
        Ok(NoContent::Done)
    }

    /// Approve a player's suspicious entry (editor): it joins the public board if it beats the
    /// player's public entry. 404 when there is no suspicious entry.
    #[oai(
        path = "/:game_id/leaderboards/:board_name/entries/:player_id/approve",
        method = "post",
        operation_id = "approveLeaderboardEntry"
    )]
    async fn approve(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        board_name: Path<String>,
        player_id: Path<String>,
        /// The period of the entry; default the current one.
        period: Query<Option<String>>,
    ) -> poem::Result<Json<SubmittedEntry>> {
        let board = self
            .board(&auth, &game_id, &board_name, Role::Editor)
            .await?;
        let standing = moderation::approve(
            &self.state,
            &board,
            &PlayerId::parse(&player_id.0)?,
            period.0.as_deref(),
        )
        .await?;
        Ok(Json(submitted_view(board.name(), standing)))
    }
}

impl LeaderboardAdminApi {
    /// Whether webhooks may reach private addresses (`--allow-private-webhooks`).
    fn allow_private(&self) -> bool {
        self.state.settings.allow_private_webhooks
    }

    /// The board a route names, once the caller is known to hold `role` on its game.
    async fn board(
        &self,
        auth: &BearerAuth,
        game_id: &Path<Uuid>,
        board_name: &Path<String>,
        role: Role,
    ) -> poem::Result<Board> {
        require_role(&self.state.db, auth.0, game_id.0, role).await?;
        let name = BoardName::parse(&board_name.0)?;
        Ok(boards::get(&self.state, game_id.0, &name).await?)
    }
}
