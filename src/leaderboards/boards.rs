//! Board definitions: the parsed names and settings, lookups, and the dashboard's create,
//! change and delete. A score sent to a board with no definition creates it with defaults.
use super::{
    error::LeaderboardError,
    period::{PeriodKind, PeriodRule, Scheduled},
    reset_schedule::ResetSchedule,
    tournament::TournamentSettings,
};
use crate::store::node_cache::{NodeCache, Policy};
use crate::{state::AppState, store::hot::leaderboards::HotBoard, words::CorruptWord};
use chrono::{DateTime, Duration, Utc};
use entity::{leaderboard_bans, leaderboard_entries, leaderboards};
use sea_orm::{
    sea_query::{Expr, ExprTrait, Func, LikeExpr, OnConflict},
    ActiveValue::Set,
    ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder, QuerySelect,
    TransactionTrait,
};
use uuid::Uuid;

/// Longest board name (interface section 8).
pub const MAX_BOARD_NAME_CHARS: usize = 255;
/// Longest player id and display name.
pub const MAX_PLAYER_NAME_CHARS: usize = 128;
/// How long a period's hot copy outlives the period, for requests still in flight at the
/// boundary; archived periods are read from the cold store.
pub const HOT_GRACE: Duration = Duration::hours(1);

/// A board name: 1 to 255 characters, no control characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardName(String);

impl BoardName {
    pub fn parse(raw: &str) -> Result<Self, LeaderboardError> {
        let length = raw.chars().count();
        if length == 0 || length > MAX_BOARD_NAME_CHARS || raw.chars().any(char::is_control) {
            return Err(LeaderboardError::invalid(
                "board_name must be 1 to 255 characters without control characters",
            ));
        }
        Ok(Self(raw.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

pub use crate::player_id::PlayerId;

pub use crate::words::{ScoreOperator, ScoreOrder};

/// The refusal of a board given both a period and a reset schedule.
pub const SCHEDULE_OR_PERIOD: &str =
    "reset_schedule and period are exclusive: give a period or a reset_schedule, not both";

pub fn parse_period(raw: &str) -> Result<PeriodKind, LeaderboardError> {
    Ok(PeriodKind::parse(raw)?)
}

/// A board as stored, with its settings read.
#[derive(Debug, Clone)]
pub struct Board {
    pub model: leaderboards::Model,
    order: ScoreOrder,
    period: PeriodKind,
    operator: ScoreOperator,
    reset_schedule: Option<ResetSchedule>,
}

impl Board {
    /// A stored definition, its words (order, period) parsed once, here.
    pub fn new(model: leaderboards::Model) -> Result<Self, CorruptWord> {
        Ok(Self {
            order: ScoreOrder::stored(&model.score_order)?,
            period: PeriodKind::stored(&model.period)?,
            operator: ScoreOperator::stored(&model.score_operator)?,
            reset_schedule: model
                .reset_schedule
                .as_deref()
                .map(ResetSchedule::stored)
                .transpose()?,
            model,
        })
    }

    pub fn id(&self) -> Uuid {
        self.model.id
    }

    pub fn name(&self) -> &str {
        &self.model.board_name
    }

    pub fn lower_is_better(&self) -> bool {
        self.order == ScoreOrder::Lower
    }

    pub fn order(&self) -> ScoreOrder {
        self.order
    }

    pub fn operator(&self) -> ScoreOperator {
        self.operator
    }

    pub fn rule(&self) -> PeriodRule {
        PeriodRule {
            kind: self.period,
            auto_reset_at: self.model.auto_reset_at,
            reset_at: self.model.reset_at,
            schedule: self.reset_schedule.clone().map(|cron| Scheduled {
                cron,
                since: self.model.created_at,
            }),
        }
    }

    /// The cron reset schedule, on a board that resets by one instead of a period.
    pub fn reset_schedule(&self) -> Option<&ResetSchedule> {
        self.reset_schedule.as_ref()
    }

    /// The current period's start and scheduled end (`None`: all-time, never reset / never
    /// ending), as every board read and submission answer shows them.
    pub fn schedule(&self, now: DateTime<Utc>) -> Schedule {
        let rule = self.rule();
        Schedule {
            period_start: rule.starts_at(now),
            resets_at: rule.ends_after(now),
        }
    }

    pub fn period_kind(&self) -> PeriodKind {
        self.period
    }

    pub fn current_period(&self, now: DateTime<Utc>) -> String {
        self.rule().key_at(now)
    }

    /// The hot store's handle on one period of this board.
    pub fn hot(&self, period: &str, now: DateTime<Utc>) -> HotBoard {
        let expires_at = if period == self.current_period(now) {
            self.rule().ends_after(now).map(|end| end + HOT_GRACE)
        } else {
            Some(now + HOT_GRACE)
        };
        HotBoard {
            board_id: self.model.id.to_string(),
            period: period.to_string(),
            lower_is_better: self.lower_is_better(),
            by_revision: self.operator != ScoreOperator::Best,
            expires_at,
        }
    }

    /// True when `score` falls outside the board's `[min_score, max_score]`.
    pub fn out_of_bounds(&self, score: f64) -> bool {
        self.model.min_score.is_some_and(|min| score < min)
            || self.model.max_score.is_some_and(|max| score > max)
    }
}

/// The current period's start and end as clients see them.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Schedule {
    pub period_start: Option<DateTime<Utc>>,
    pub resets_at: Option<DateTime<Utc>>,
}

/// Resets a board by hand (editor): the current period ends now and is archived like one that
/// ended on schedule; scores go to a new period (`since-<now>`) until the scheduled end.
pub async fn reset(
    state: &AppState,
    game_id: Uuid,
    name: &BoardName,
) -> Result<Board, LeaderboardError> {
    let board = get(state, game_id, name).await?;
    let now = state.now();
    let model = leaderboards::Entity::update(leaderboards::ActiveModel {
        id: Set(board.id()),
        reset_at: Set(Some(now)),
        updated_at: Set(now),
        ..Default::default()
    })
    .exec(&state.db)
    .await?;
    state.game_changed(game_id).await;
    Ok(Board::new(model)?)
}

pub async fn find(
    state: &AppState,
    game_id: Uuid,
    name: &BoardName,
) -> Result<Option<Board>, LeaderboardError> {
    let model = leaderboards::Entity::find()
        .filter(leaderboards::Column::GameId.eq(game_id))
        .filter(leaderboards::Column::BoardName.eq(name.as_str()))
        .one(&state.db)
        .await?;
    Ok(model.map(Board::new).transpose()?)
}

/// How long a node trusts its cached copy of a definition. Changes made on this node apply at
/// once; changes made on another node (order, period, bounds) reach this one within this time.
pub const READ_CACHE_TTL: std::time::Duration = std::time::Duration::from_secs(2);

const READ_CACHE_MAX: usize = 10_000;

/// Definitions recently read by this node, so reads and submissions cost no cold-store round
/// trip for them.
pub type BoardCache = NodeCache<BoardDefinitions>;

/// What `BoardCache` holds: a board by its game and name, for `READ_CACHE_TTL`; never a
/// missing board. Emptied when it is still full of fresh entries at `READ_CACHE_MAX`.
pub struct BoardDefinitions;

impl Policy for BoardDefinitions {
    type Key = (Uuid, String);
    type Value = Board;
    type Moment = std::time::Instant;
    const TTL: std::time::Duration = READ_CACHE_TTL;
    const SWEEP_AT: usize = READ_CACHE_MAX;
    const CLEAR_WHEN_FULL: bool = true;
    fn game((game_id, _): &(Uuid, String), _: &Board) -> Option<Uuid> {
        Some(*game_id)
    }
}

/// Like `find`, through the short per-node cache.
pub async fn find_cached(
    state: &AppState,
    game_id: Uuid,
    name: &BoardName,
) -> Result<Option<Board>, LeaderboardError> {
    let key = (game_id, name.as_str().to_string());
    let cache = &state.parts.boards;
    if let Some(board) = cache.get(&key) {
        return Ok(Some(board));
    }
    let generation = cache.generation();
    let found = find(state, game_id, name).await?;
    if let Some(board) = &found {
        cache.put(key, board.clone(), generation);
    }
    Ok(found)
}

pub async fn get(
    state: &AppState,
    game_id: Uuid,
    name: &BoardName,
) -> Result<Board, LeaderboardError> {
    find(state, game_id, name)
        .await?
        .ok_or(LeaderboardError::NoSuchBoard)
}

/// Boards a list shows unless `limit` says otherwise, and the most it shows.
pub const DEFAULT_LIST_LIMIT: u64 = 100;
pub const MAX_LIST_LIMIT: u64 = 500;

/// One page of a game's boards by name, those whose name contains `search` (any case) only.
pub struct BoardList {
    pub total: u64,
    pub boards: Vec<Board>,
}

pub async fn list(
    state: &AppState,
    game_id: Uuid,
    search: Option<&str>,
    offset: u64,
    limit: u64,
) -> Result<BoardList, LeaderboardError> {
    let mut query = leaderboards::Entity::find().filter(leaderboards::Column::GameId.eq(game_id));
    if let Some(search) = search.filter(|s| !s.is_empty()) {
        // LIKE with its wildcards escaped, on lowercased names: the same on SQLite and PostgreSQL.
        let escaped: String = search
            .to_lowercase()
            .chars()
            .flat_map(|c| match c {
                '%' | '_' | '\\' => vec!['\\', c],
                c => vec![c],
            })
            .collect();
        query = query.filter(
            Expr::expr(Func::lower(Expr::col(leaderboards::Column::BoardName)))
                .like(LikeExpr::new(format!("%{escaped}%")).escape('\\')),
        );
    }
    let total = query.clone().count(&state.db).await?;
    let models = query
        .order_by_asc(leaderboards::Column::BoardName)
        .offset(offset)
        .limit(limit)
        .all(&state.db)
        .await?;
    Ok(BoardList {
        total,
        boards: models
            .into_iter()
            .map(Board::new)
            .collect::<Result<_, _>>()?,
    })
}

/// The settings a board is created or changed with.
#[derive(Debug, Clone)]
pub struct Settings {
    pub order: ScoreOrder,
    pub operator: ScoreOperator,
    pub period: PeriodKind,
    /// Resets at its firings instead of `period` (then `all_time`).
    pub reset_schedule: Option<ResetSchedule>,
    pub auto_reset_at: Option<DateTime<Utc>>,
    pub min_score: Option<f64>,
    pub max_score: Option<f64>,
    pub tournament: TournamentSettings,
    /// Where finished periods' standings are POSTed (checked by `results::parse_webhook`).
    pub results_webhook: Option<String>,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            order: ScoreOrder::Higher,
            operator: ScoreOperator::Best,
            period: PeriodKind::AllTime,
            reset_schedule: None,
            auto_reset_at: None,
            min_score: None,
            max_score: None,
            tournament: TournamentSettings::default(),
            results_webhook: None,
        }
    }
}

impl Settings {
    pub fn validate(&self) -> Result<(), LeaderboardError> {
        if self.reset_schedule.is_some() {
            if self.period != PeriodKind::AllTime {
                return Err(LeaderboardError::invalid(SCHEDULE_OR_PERIOD));
            }
            if self.auto_reset_at.is_some() {
                return Err(LeaderboardError::invalid(
                    "auto_reset_at applies to boards without a reset_schedule only",
                ));
            }
        }
        if self.auto_reset_at.is_some() && self.period != PeriodKind::AllTime {
            return Err(LeaderboardError::invalid(
                "auto_reset_at applies to all_time boards only",
            ));
        }
        for bound in [self.min_score, self.max_score].into_iter().flatten() {
            if !bound.is_finite() {
                return Err(LeaderboardError::invalid(
                    "min_score and max_score must be finite numbers",
                ));
            }
        }
        if let (Some(min), Some(max)) = (self.min_score, self.max_score) {
            if min > max {
                return Err(LeaderboardError::invalid(
                    "min_score must not be greater than max_score",
                ));
            }
        }
        self.tournament.validate()
    }

    fn of(board: &Board) -> Self {
        Self {
            order: if board.lower_is_better() {
                ScoreOrder::Lower
            } else {
                ScoreOrder::Higher
            },
            operator: board.operator(),
            period: board.rule().kind,
            reset_schedule: board.reset_schedule.clone(),
            auto_reset_at: board.model.auto_reset_at,
            min_score: board.model.min_score,
            max_score: board.model.max_score,
            tournament: TournamentSettings::of(&board.model),
            results_webhook: board.model.results_webhook.clone(),
        }
    }
}

fn new_model(
    game_id: Uuid,
    name: &BoardName,
    settings: &Settings,
    now: DateTime<Utc>,
    created_by_score: bool,
) -> leaderboards::Model {
    leaderboards::Model {
        id: Uuid::now_v7(),
        game_id,
        board_name: name.as_str().to_string(),
        score_order: settings.order.as_str().to_string(),
        score_operator: settings.operator.as_str().to_string(),
        period: settings.period.as_str().to_string(),
        reset_schedule: settings
            .reset_schedule
            .as_ref()
            .map(|schedule| schedule.as_str().to_string()),
        auto_reset_at: settings.auto_reset_at,
        min_score: settings.min_score,
        max_score: settings.max_score,
        open_period: None,
        reset_at: None,
        created_at: now,
        updated_at: now,
        created_by_score,
        starts_at: settings.tournament.starts_at,
        ends_at: settings.tournament.ends_at,
        max_players: settings.tournament.max_players.map(|limit| limit as i32),
        join_required: settings.tournament.join_required,
        results_webhook: settings.results_webhook.clone(),
        results_webhook_set_at: settings.results_webhook.as_ref().map(|_| now),
    }
}

/// Inserts a board unless the game has one of that name; the number of boards inserted.
async fn insert_if_absent(
    db: &impl sea_orm::ConnectionTrait,
    model: leaderboards::Model,
) -> Result<u64, sea_orm::DbErr> {
    leaderboards::Entity::insert(leaderboards::ActiveModel::from(model))
        .on_conflict(
            OnConflict::columns([
                leaderboards::Column::GameId,
                leaderboards::Column::BoardName,
            ])
            .do_nothing()
            .to_owned(),
        )
        .exec_without_returning(db)
        .await
}

/// Defines a board (dashboard). 409 when the name is taken, even by a board a score created.
pub async fn create(
    state: &AppState,
    game_id: Uuid,
    name: &BoardName,
    settings: Settings,
) -> Result<Board, LeaderboardError> {
    settings.validate()?;
    let model = new_model(game_id, name, &settings, state.now(), false);
    let inserted = insert_if_absent(&state.db, model.clone()).await?;
    if inserted == 0 {
        return Err(LeaderboardError::BoardExists);
    }
    Ok(Board::new(model)?)
}

/// What a submission asks of its board: the settings a first score creates it with (the
/// defaults for those it leaves out), and the game's rules for boards made by scores.
#[derive(Debug, Clone, Copy)]
pub struct ByScore {
    pub order: Option<ScoreOrder>,
    pub operator: Option<ScoreOperator>,
    /// False: only boards that exist take scores (the game's `leaderboards_from_scores`).
    pub allowed: bool,
    /// How many boards made by scores the game may have (`score_board_limit`).
    pub limit: u32,
}

impl ByScore {
    /// 409 when the submission names settings the existing board does not have: its scores
    /// would be ranked otherwise than the game expects.
    fn check(&self, board: &Board) -> Result<(), LeaderboardError> {
        if let Some(order) = self.order {
            if order != board.order() {
                return Err(LeaderboardError::SettingsDiffer(format!(
                    "this leaderboard's order is {}, not {}: its order is set by its first score \
                     or in the dashboard",
                    board.order(),
                    order
                )));
            }
        }
        if let Some(operator) = self.operator {
            if operator != board.operator() {
                return Err(LeaderboardError::SettingsDiffer(format!(
                    "this leaderboard's operator is {}, not {}: its operator is set by its first \
                     score or in the dashboard",
                    board.operator(),
                    operator
                )));
            }
        }
        Ok(())
    }
}

/// The board a score is sent to, through the per-node cache; created with the settings the
/// submission names when it has no definition yet, unless the game refuses boards made by
/// scores (404) or already has its limit of them (409). (Bans are checked by the score write
/// itself, never from a cache.)
pub async fn find_or_create_cached(
    state: &AppState,
    game_id: Uuid,
    name: &BoardName,
    by_score: ByScore,
) -> Result<Board, LeaderboardError> {
    if let Some(board) = find_cached(state, game_id, name).await? {
        by_score.check(&board)?;
        return Ok(board);
    }
    if !by_score.allowed {
        return Err(LeaderboardError::NotDefined);
    }
    let settings = Settings {
        order: by_score.order.unwrap_or(ScoreOrder::Higher),
        operator: by_score.operator.unwrap_or(ScoreOperator::Best),
        ..Settings::default()
    };
    let model = new_model(game_id, name, &settings, state.now(), true);
    let txn = state.db.begin().await?;
    // The game's row is locked until commit, so concurrent first scores of new boards count
    // one after another and never pass the limit together.
    entity::games::Entity::update_many()
        .col_expr(
            entity::games::Column::Id,
            Expr::col(entity::games::Column::Id),
        )
        .filter(entity::games::Column::Id.eq(game_id))
        .exec(&txn)
        .await?;
    let exists = leaderboards::Entity::find()
        .filter(leaderboards::Column::GameId.eq(game_id))
        .filter(leaderboards::Column::BoardName.eq(name.as_str()))
        .count(&txn)
        .await?
        > 0;
    if !exists {
        let made_by_scores = leaderboards::Entity::find()
            .filter(leaderboards::Column::GameId.eq(game_id))
            .filter(leaderboards::Column::CreatedByScore.eq(true))
            .count(&txn)
            .await?;
        if made_by_scores >= u64::from(by_score.limit) {
            return Err(LeaderboardError::ScoreBoardLimit(by_score.limit));
        }
        insert_if_absent(&txn, model).await?;
    }
    txn.commit().await?;
    let board = find_cached(state, game_id, name)
        .await?
        .ok_or(LeaderboardError::NoSuchBoard)?;
    by_score.check(&board)?;
    Ok(board)
}

/// Drops this node's cached copy of a definition, so the next use reads it again.
pub fn forget(state: &AppState, game_id: Uuid, name: &BoardName) {
    state
        .parts
        .boards
        .forget(&(game_id, name.as_str().to_string()));
}

/// A change to a board's settings; `None` leaves a setting as it is, `Some(None)` clears it.
#[derive(Debug, Clone, Default)]
pub struct Change {
    pub order: Option<ScoreOrder>,
    pub operator: Option<ScoreOperator>,
    /// A new period clears the reset schedule.
    pub period: Option<PeriodKind>,
    /// A schedule in place of the period (`Some(None)` clears it, leaving the period as is).
    pub reset_schedule: Option<Option<ResetSchedule>>,
    pub auto_reset_at: Option<Option<DateTime<Utc>>>,
    pub min_score: Option<Option<f64>>,
    pub max_score: Option<Option<f64>>,
    pub starts_at: Option<Option<DateTime<Utc>>>,
    pub ends_at: Option<Option<DateTime<Utc>>>,
    pub max_players: Option<Option<u32>>,
    pub join_required: Option<bool>,
    pub results_webhook: Option<Option<String>>,
}

/// Changes a board. The order may change only while the board has no entries at all: stored
/// entries were kept-best and ranked under the old order.
pub async fn update(
    state: &AppState,
    game_id: Uuid,
    name: &BoardName,
    change: Change,
) -> Result<Board, LeaderboardError> {
    let board = get(state, game_id, name).await?;
    let mut settings = Settings::of(&board);
    let has_entries = || async {
        Ok::<_, LeaderboardError>(
            leaderboard_entries::Entity::find()
                .filter(leaderboard_entries::Column::BoardId.eq(board.id()))
                .one(&state.db)
                .await?
                .is_some(),
        )
    };
    if let Some(order) = change.order {
        if order != settings.order && has_entries().await? {
            return Err(LeaderboardError::OrderLocked);
        }
        settings.order = order;
    }
    // Stored entries were made under the old operator (a best score, a total, a last score).
    if let Some(operator) = change.operator {
        if operator != settings.operator && has_entries().await? {
            return Err(LeaderboardError::OperatorLocked);
        }
        settings.operator = operator;
    }
    if change.period.is_some() && matches!(change.reset_schedule, Some(Some(_))) {
        return Err(LeaderboardError::invalid(SCHEDULE_OR_PERIOD));
    }
    if let Some(period) = change.period {
        settings.period = period;
        settings.reset_schedule = None;
    }
    if let Some(schedule) = change.reset_schedule {
        if schedule.is_some() {
            settings.period = PeriodKind::AllTime;
        }
        settings.reset_schedule = schedule;
    }
    if let Some(at) = change.auto_reset_at {
        settings.auto_reset_at = at;
    }
    if let Some(min) = change.min_score {
        settings.min_score = min;
    }
    if let Some(max) = change.max_score {
        settings.max_score = max;
    }
    if let Some(at) = change.starts_at {
        settings.tournament.starts_at = at;
    }
    if let Some(at) = change.ends_at {
        settings.tournament.ends_at = at;
    }
    if let Some(limit) = change.max_players {
        settings.tournament.max_players = limit;
    }
    if let Some(required) = change.join_required {
        settings.tournament.join_required = required;
    }
    if let Some(webhook) = change.results_webhook {
        settings.results_webhook = webhook;
    }
    settings.validate()?;
    let now = state.now();
    // A webhook set where there was none counts from now; a changed URL keeps its start, so
    // no period falls between the two.
    let results_webhook_set_at = match (&board.model.results_webhook, &settings.results_webhook) {
        (_, None) => None,
        (None, Some(_)) => Some(now),
        (Some(_), Some(_)) => board.model.results_webhook_set_at.or(Some(now)),
    };
    let updated = leaderboards::ActiveModel {
        id: Set(board.id()),
        score_order: Set(settings.order.as_str().to_string()),
        score_operator: Set(settings.operator.as_str().to_string()),
        period: Set(settings.period.as_str().to_string()),
        reset_schedule: Set(settings
            .reset_schedule
            .as_ref()
            .map(|schedule| schedule.as_str().to_string())),
        auto_reset_at: Set(settings.auto_reset_at),
        min_score: Set(settings.min_score),
        max_score: Set(settings.max_score),
        starts_at: Set(settings.tournament.starts_at),
        ends_at: Set(settings.tournament.ends_at),
        max_players: Set(settings.tournament.max_players.map(|limit| limit as i32)),
        join_required: Set(settings.tournament.join_required),
        results_webhook: Set(settings.results_webhook.clone()),
        results_webhook_set_at: Set(results_webhook_set_at),
        updated_at: Set(now),
        // Changed in the dashboard, the board is defined there: no longer one of the boards
        // scores made (so it leaves the game's count of those).
        created_by_score: Set(false),
        ..Default::default()
    };
    let model = leaderboards::Entity::update(updated)
        .exec(&state.db)
        .await?;
    state.game_changed(game_id).await;
    Ok(Board::new(model)?)
}

/// Deletes a board with every entry, ban and archived period, and drops its hot copy.
pub async fn delete(
    state: &AppState,
    game_id: Uuid,
    name: &BoardName,
) -> Result<(), LeaderboardError> {
    let board = get(state, game_id, name).await?;
    let now = state.now();
    // Explicit deletes rather than relying on cascades, which SQLite enforces only when asked.
    leaderboard_entries::Entity::delete_many()
        .filter(leaderboard_entries::Column::BoardId.eq(board.id()))
        .exec(&state.db)
        .await?;
    leaderboard_bans::Entity::delete_many()
        .filter(leaderboard_bans::Column::BoardId.eq(board.id()))
        .exec(&state.db)
        .await?;
    entity::leaderboard_periods::Entity::delete_many()
        .filter(entity::leaderboard_periods::Column::BoardId.eq(board.id()))
        .exec(&state.db)
        .await?;
    entity::leaderboard_result_deliveries::Entity::delete_many()
        .filter(entity::leaderboard_result_deliveries::Column::BoardId.eq(board.id()))
        .exec(&state.db)
        .await?;
    entity::leaderboard_tournament_players::Entity::delete_many()
        .filter(entity::leaderboard_tournament_players::Column::BoardId.eq(board.id()))
        .exec(&state.db)
        .await?;
    leaderboards::Entity::delete_by_id(board.id())
        .exec(&state.db)
        .await?;
    state.game_changed(game_id).await;
    let hot = board.hot(&board.current_period(now), now);
    state.hot.leaderboards.expire(&hot, 0, now).await?;
    Ok(())
}
