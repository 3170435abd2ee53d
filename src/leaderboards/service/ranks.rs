//! Ranks out: pages, around a player, a player's standing, for current and finished periods.
use super::*;

/// The period a read is about: `requested` when given (400 unless shaped like a period key),
/// else the current one.
fn read_period(
    board: Option<&Board>,
    requested: Option<&str>,
    now: DateTime<Utc>,
) -> Result<String, LeaderboardError> {
    match requested {
        Some(key) if crate::leaderboards::period::is_period_key(key) => Ok(key.to_string()),
        Some(_) => Err(LeaderboardError::invalid(
            "period must be a period key: YYYY-MM-DD, YYYY-Www, YYYY-MM, all_time or since-YYYY-MM-DD",
        )),
        None => Ok(board.map(|b| b.current_period(now)).unwrap_or_else(|| crate::leaderboards::period::ALL_TIME.to_string())),
    }
}

/// Where a read of the current period can be answered from this node's rendered pages: the
/// page's key and the board's hot-store version. `None` for other periods, unknown boards and
/// boards not loaded in the hot store.
pub async fn current_version(
    state: &AppState,
    game_id: Uuid,
    name: &BoardName,
    requested_period: Option<&str>,
    offset: u64,
    limit: u64,
) -> Result<Option<(crate::leaderboards::pages::PageKey, String)>, LeaderboardError> {
    let now = state.now();
    let Some(board) = boards::find_cached(state, game_id, name).await? else {
        return Ok(None);
    };
    let period = read_period(Some(&board), requested_period, now)?;
    // A tournament's state, seconds left and player count move without the board changing.
    if period != board.current_period(now)
        || tournament::TournamentSettings::of(&board.model).is_tournament()
    {
        return Ok(None);
    }
    let version = state
        .hot
        .leaderboards
        .version(&board.hot(&period, now), now)
        .await?;
    Ok(version.map(|version| ((board.id(), period, offset, limit), version)))
}

/// A page of a board in rank order. An unknown board reads as empty.
pub async fn page(
    state: &AppState,
    game_id: Uuid,
    name: &BoardName,
    requested_period: Option<&str>,
    offset: u64,
    limit: u64,
) -> Result<Page, LeaderboardError> {
    let now = state.now();
    let board = boards::find_cached(state, game_id, name).await?;
    let period = read_period(board.as_ref(), requested_period, now)?;
    let Some(board) = board else {
        return Ok(Page {
            period,
            schedule: Schedule::default(),
            tournament: None,
            total: 0,
            entries: Vec::new(),
        });
    };
    if period == board.current_period(now) {
        let hot = board.hot(&period, now);
        for _ in 0..HOT_ATTEMPTS {
            if let Some(page) = state
                .hot
                .leaderboards
                .page(&hot, offset, limit, now)
                .await?
            {
                let entries = page.entries.into_iter().map(from_hot_ranked).collect();
                return Ok(Page {
                    period,
                    schedule: board.schedule(now),
                    tournament: tournament::status(state, &board, now).await?,
                    total: page.total,
                    entries,
                });
            }
            rebuild(state, &board, &hot, now).await?;
        }
        return Err(LeaderboardError::RebuildFailed);
    }
    let (total, entries) = cold_page(state, &board, &period, offset, limit).await?;
    Ok(Page {
        period,
        schedule: board.schedule(now),
        tournament: tournament::status(state, &board, now).await?,
        total,
        entries,
    })
}

fn ranked_query(board: &Board, period: &str) -> sea_orm::Select<entries::Entity> {
    entries::Entity::find()
        .filter(entries::Column::BoardId.eq(board.id()))
        .filter(entries::Column::Period.eq(period))
        .filter(entries::Column::Status.eq(STATUS_OK))
}

fn in_rank_order(query: sea_orm::Select<entries::Entity>) -> sea_orm::Select<entries::Entity> {
    query
        .order_by_asc(entries::Column::SortScore)
        .order_by_asc(entries::Column::ReachedAt)
        .order_by_asc(entries::Column::PlayerId)
}

async fn cold_page(
    state: &AppState,
    board: &Board,
    period: &str,
    offset: u64,
    limit: u64,
) -> Result<(u64, Vec<Ranked>), LeaderboardError> {
    let total = ranked_query(board, period).count(&state.db).await?;
    let rows = in_rank_order(ranked_query(board, period))
        .offset(offset)
        .limit(limit)
        .all(&state.db)
        .await?;
    let entries = rows
        .iter()
        .enumerate()
        .map(|(index, row)| Ranked {
            rank: offset + index as u64 + 1,
            entry: from_model(row),
        })
        .collect();
    Ok((total, entries))
}

/// A player's rank and up to `radius` entries either side. 404 when the player has no public
/// entry in the period.
pub async fn around(
    state: &AppState,
    game_id: Uuid,
    name: &BoardName,
    player_id: &PlayerId,
    requested_period: Option<&str>,
    radius: u64,
) -> Result<Around, LeaderboardError> {
    let now = state.now();
    let board = boards::find_cached(state, game_id, name).await?;
    let period = read_period(board.as_ref(), requested_period, now)?;
    let no_entry = LeaderboardError::NoSuchEntry("This player has no entry on this leaderboard");
    let Some(board) = board else {
        return Err(no_entry);
    };
    if period == board.current_period(now) {
        let hot = board.hot(&period, now);
        for _ in 0..HOT_ATTEMPTS {
            if let Some(found) = state
                .hot
                .leaderboards
                .around(&hot, player_id.as_str(), radius, now)
                .await?
            {
                let player = found.player.ok_or(no_entry)?;
                return Ok(Around {
                    period,
                    schedule: board.schedule(now),
                    tournament: tournament::status(state, &board, now).await?,
                    total: found.total,
                    player: from_hot_ranked(player),
                    entries: found.entries.into_iter().map(from_hot_ranked).collect(),
                });
            }
            rebuild(state, &board, &hot, now).await?;
        }
        return Err(LeaderboardError::RebuildFailed);
    }
    let own = stored_entry(state, &board, &period, player_id.as_str(), STATUS_OK)
        .await?
        .ok_or(no_entry)?;
    let ahead = ranked_query(&board, &period)
        .filter(
            Condition::any()
                .add(entries::Column::SortScore.lt(own.sort_score))
                .add(
                    Condition::all()
                        .add(entries::Column::SortScore.eq(own.sort_score))
                        .add(entries::Column::ReachedAt.lt(own.reached_at)),
                )
                .add(
                    Condition::all()
                        .add(entries::Column::SortScore.eq(own.sort_score))
                        .add(entries::Column::ReachedAt.eq(own.reached_at))
                        .add(entries::Column::PlayerId.lt(own.player_id.clone())),
                ),
        )
        .count(&state.db)
        .await?;
    let rank = ahead + 1;
    let first = rank.saturating_sub(radius).max(1);
    let (total, entries) =
        cold_page(state, &board, &period, first - 1, rank + radius - first + 1).await?;
    Ok(Around {
        period,
        schedule: board.schedule(now),
        tournament: tournament::status(state, &board, now).await?,
        total,
        player: Ranked {
            rank,
            entry: from_model(&own),
        },
        entries,
    })
}

/// The player's public standing in `period` (from the hot store for the current period).
pub async fn public_standing(
    state: &AppState,
    board: &Board,
    period: &str,
    player_id: &PlayerId,
) -> Result<Option<Ranked>, LeaderboardError> {
    let name = BoardName::parse(board.name())?;
    match around(
        state,
        board.model.game_id,
        &name,
        player_id,
        Some(period),
        0,
    )
    .await
    {
        Ok(found) => Ok(Some(found.player)),
        Err(LeaderboardError::NoSuchEntry(_)) => Ok(None),
        Err(error) => Err(error),
    }
}
