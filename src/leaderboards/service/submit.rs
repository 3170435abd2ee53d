//! Scores in: validation, the write-through to the cold store, then the hot board.
use super::*;

/// A validated score submission.
#[derive(Debug, Clone)]
pub struct Submission {
    pub player_id: PlayerId,
    pub player_name: Option<String>,
    pub score: f64,
    pub metadata: Value,
}

impl Submission {
    pub fn parse(
        player_id: &str,
        player_name: Option<String>,
        score: f64,
        metadata: Option<Value>,
    ) -> Result<Self, LeaderboardError> {
        let player_id = PlayerId::parse(player_id)?;
        if let Some(name) = &player_name {
            if name.chars().count() > boards::MAX_PLAYER_NAME_CHARS
                || name.chars().any(char::is_control)
            {
                return Err(LeaderboardError::invalid(
                    "player_name must be at most 128 characters without control characters",
                ));
            }
        }
        if !score.is_finite() {
            return Err(LeaderboardError::invalid("score must be a finite number"));
        }
        let metadata = match metadata {
            None | Some(Value::Null) => json!({}),
            Some(value @ Value::Object(_)) => value,
            Some(_) => return Err(LeaderboardError::invalid("metadata must be an object")),
        };
        if metadata.to_string().len() > MAX_METADATA_BYTES {
            return Err(LeaderboardError::invalid(
                "metadata must be at most 4096 bytes as JSON",
            ));
        }
        Ok(Self {
            player_id,
            player_name,
            score,
            metadata,
        })
    }
}

/// The largest change an increment or decrement board takes at once (2^53, past which not
/// every whole number is a double): totals stay finite however many arrive.
const MAX_STEP: f64 = 9_007_199_254_740_992.0;

/// Records that `board` has entries in `period`, once per period, so the worker can archive it.
async fn open_period(
    state: &AppState,
    board: &Board,
    period: &str,
    now: DateTime<Utc>,
) -> Result<(), LeaderboardError> {
    if board.model.open_period.as_deref() == Some(period) {
        return Ok(());
    }
    periods::Entity::insert(periods::ActiveModel {
        board_id: Set(board.id()),
        period: Set(period.to_string()),
        opened_at: Set(now),
        archived_at: Set(None),
        entry_count: Set(None),
    })
    .on_conflict(
        OnConflict::columns([periods::Column::BoardId, periods::Column::Period])
            .do_nothing()
            .to_owned(),
    )
    .exec_without_returning(&state.db)
    .await?;
    leaderboards::Entity::update_many()
        .col_expr(
            leaderboards::Column::OpenPeriod,
            sea_orm::sea_query::Expr::value(period.to_string()),
        )
        .filter(leaderboards::Column::Id.eq(board.id()))
        .exec(&state.db)
        .await?;
    // Cached definitions still name the old period, on every node: read it again next time.
    state.game_changed(board.model.game_id).await;
    Ok(())
}

/// Submits a score: keep-best in the current period, written through to the cold store.
#[tracing::instrument(skip_all, fields(game_id = %game_id, board = %name.as_str()))]
pub async fn submit(
    state: &AppState,
    game_id: Uuid,
    name: &BoardName,
    submission: Submission,
    by_score: boards::ByScore,
) -> Result<Standing, LeaderboardError> {
    // A board deleted on another node may still be in this node's cache: the write finds it
    // gone, and the submission starts over, creating the board anew.
    for _ in 0..2 {
        let board = boards::find_or_create_cached(state, game_id, name, by_score).await?;
        match submit_to(state, &board, &submission).await? {
            Some(standing) => return Ok(standing),
            None => boards::forget(state, game_id, name),
        }
    }
    Err(LeaderboardError::NoSuchBoard)
}

/// `submit` once the board is known; `None` when the board no longer exists.
async fn submit_to(
    state: &AppState,
    board: &Board,
    submission: &Submission,
) -> Result<Option<Standing>, LeaderboardError> {
    let now = state.now();
    let operator = board.operator();
    if matches!(
        operator,
        ScoreOperator::Increment | ScoreOperator::Decrement
    ) && submission.score.abs() > MAX_STEP
    {
        return Err(LeaderboardError::invalid(
            "score must be at most 9007199254740992 in magnitude on increment and decrement boards",
        ));
    }
    // Tournaments: the time window, joining and the player limit, before anything is stored.
    match tournament::admit_score(state, board, submission.player_id.as_str(), now).await {
        Err(LeaderboardError::NoSuchBoard) => return Ok(None),
        admitted => admitted?,
    }
    let period = board.current_period(now);
    open_period(state, board, &period, now).await?;
    // Bounds apply to the score as sent (on increment and decrement boards: to each change).
    let status = if board.out_of_bounds(submission.score) {
        EntryStatus::Suspicious
    } else {
        EntryStatus::Ok
    };
    // A suspicious entry is the last flagged score on the other boards, which a moderator's
    // approval then applies with the board's operator.
    let apply = match (status, Apply::of(operator)) {
        (EntryStatus::Suspicious, Apply::Add) => Apply::Replace,
        (_, apply) => apply,
    };
    let score = if operator == ScoreOperator::Decrement {
        -submission.score
    } else {
        submission.score
    } + 0.0;
    let row = entries::Model {
        id: Uuid::now_v7(),
        board_id: board.id(),
        period: period.clone(),
        player_id: submission.player_id.as_str().to_string(),
        status: status.as_str().to_string(),
        player_name: submission.player_name.clone(),
        score,
        sort_score: sort_score(score, board.lower_is_better()),
        reached_at: now.timestamp_micros(),
        metadata: submission.metadata.to_string(),
        updated_at: now,
        // The first change of an entry; the upsert counts it up from the stored one.
        revision: i64::from(apply != Apply::KeepBest),
    };
    // The write also checks the ban list, in the same snapshot as the keep-best upsert.
    let kept = crate::leaderboards::writer::scores(state)
        .write(ScoreRow {
            row: row.clone(),
            apply,
        })
        .await
        .map_err(|error| match error {
            WriteError::Store(error) => LeaderboardError::Cold(error),
            WriteError::Closed => LeaderboardError::Cold(sea_orm::DbErr::Conn(
                sea_orm::RuntimeErr::Internal("the node is shutting down".into()),
            )),
        })?;
    let mut hot_entry = hot_entry_of(&row);
    let updated = match kept {
        Kept::Stored => true,
        Kept::NotBetter => false,
        Kept::Applied { score, revision } => {
            hot_entry.score = score;
            hot_entry.revision = revision;
            true
        }
        Kept::Banned => return Err(LeaderboardError::Banned),
        Kept::NoBoard => return Ok(None),
    };
    if status == EntryStatus::Suspicious {
        let stored = stored_entry(
            state,
            board,
            &period,
            submission.player_id.as_str(),
            STATUS_SUSPICIOUS,
        )
        .await?
        .unwrap_or(row);
        return Ok(Some(Standing {
            entry: from_model(&stored),
            rank: None,
            status,
            updated,
            order: board.order(),
            operator,
            schedule: board.schedule(now),
            tournament: tournament::status(state, board, now).await?,
        }));
    }
    let submitted = hot_submit(state, board, &period, &hot_entry, now).await?;
    Ok(Some(Standing {
        entry: from_hot(submitted.standing.entry),
        rank: Some(submitted.standing.rank),
        status,
        updated,
        order: board.order(),
        operator,
        schedule: board.schedule(now),
        tournament: tournament::status(state, board, now).await?,
    }))
}

pub async fn stored_entry(
    state: &AppState,
    board: &Board,
    period: &str,
    player_id: &str,
    status: &str,
) -> Result<Option<entries::Model>, LeaderboardError> {
    Ok(entries::Entity::find()
        .filter(entries::Column::BoardId.eq(board.id()))
        .filter(entries::Column::Period.eq(period))
        .filter(entries::Column::PlayerId.eq(player_id))
        .filter(entries::Column::Status.eq(status))
        .one(&state.db)
        .await?)
}

/// Keep-best in the hot store, rebuilding the board first when it is not loaded.
pub async fn hot_submit(
    state: &AppState,
    board: &Board,
    period: &str,
    entry: &HotEntry,
    now: DateTime<Utc>,
) -> Result<Submitted, LeaderboardError> {
    let hot = board.hot(period, now);
    for _ in 0..HOT_ATTEMPTS {
        if let Some(submitted) = state.hot.leaderboards.submit(&hot, entry, now).await? {
            return Ok(submitted);
        }
        rebuild(state, board, &hot, now).await?;
    }
    Err(LeaderboardError::RebuildFailed)
}
