//! Moderation (dashboard): entries by status, bans and approvals. A score outside a board's
//! `[min_score, max_score]` is stored as `suspicious`, beside the player's public entry, and
//! stays off the public board until approved; a ban removes the player's entries on the board
//! (every period) and refuses their later submissions with 403.
use super::{
    boards::{Board, PlayerId},
    error::LeaderboardError,
    service::{self, EntryData, Ranked, Standing, STATUS_OK, STATUS_SUSPICIOUS},
};
use crate::{http::timestamp, state::AppState, words::EntryStatus};
use entity::{
    leaderboard_bans as bans, leaderboard_entries as entries, leaderboard_periods as periods,
};
use sea_orm::{
    sea_query::OnConflict, ActiveValue::Set, ColumnTrait, Condition, EntityTrait, PaginatorTrait,
    QueryFilter, QueryOrder, QuerySelect, TransactionTrait,
};
use uuid::Uuid;

/// Which entries a moderation listing shows: the `EntryFilter` word set.
pub use crate::words::EntryFilter as StatusFilter;

/// An entry as moderators see it.
#[derive(Debug, Clone)]
pub struct ModeratedEntry {
    pub entry: EntryData,
    pub status: EntryStatus,
    /// Rank among public entries (listing order) for `ok` entries.
    pub rank: Option<u64>,
}

pub struct Listing {
    pub period: String,
    pub total: u64,
    pub entries: Vec<ModeratedEntry>,
}

/// What a moderation listing shows: one period (default: the current one), entries of a
/// status, optionally one player's only.
pub struct ListingQuery<'a> {
    pub period: Option<&'a str>,
    pub status: StatusFilter,
    pub player: Option<&'a PlayerId>,
    pub offset: u64,
    pub limit: u64,
}

/// Entries of one period, best first. A player's own listing (the dashboard's player search)
/// gives the rank of their public entry on the whole board, not within the listing.
pub async fn list(
    state: &AppState,
    board: &Board,
    listing: ListingQuery<'_>,
) -> Result<Listing, LeaderboardError> {
    let ListingQuery {
        period,
        status,
        player,
        offset,
        limit,
    } = listing;
    let period = match period {
        Some(key) if super::period::is_period_key(key) => key.to_string(),
        Some(_) => return Err(LeaderboardError::invalid("period must be a period key")),
        None => board.current_period(state.now()),
    };
    let mut query = entries::Entity::find()
        .filter(entries::Column::BoardId.eq(board.id()))
        .filter(entries::Column::Period.eq(period.as_str()));
    if let Some(player) = player {
        query = query.filter(entries::Column::PlayerId.eq(player.as_str()));
    }
    match status {
        StatusFilter::All => {}
        StatusFilter::Ok => query = query.filter(entries::Column::Status.eq(STATUS_OK)),
        StatusFilter::Suspicious => {
            query = query.filter(entries::Column::Status.eq(STATUS_SUSPICIOUS))
        }
    }
    let total = query.clone().count(&state.db).await?;
    let rows = query
        .order_by_asc(entries::Column::SortScore)
        .order_by_asc(entries::Column::ReachedAt)
        .order_by_asc(entries::Column::PlayerId)
        .offset(offset)
        .limit(limit)
        .all(&state.db)
        .await?;
    let mut entries = Vec::with_capacity(rows.len());
    for (index, row) in rows.iter().enumerate() {
        let rank = match player {
            Some(_) if row.status == STATUS_OK => Some(rank_of(state, row).await?),
            Some(_) => None,
            None => (status == StatusFilter::Ok).then_some(offset + index as u64 + 1),
        };
        entries.push(ModeratedEntry {
            entry: EntryData {
                player_id: row.player_id.clone(),
                player_name: row.player_name.clone(),
                score: row.score,
                metadata: serde_json::from_str(&row.metadata)
                    .unwrap_or_else(|_| serde_json::json!({})),
                updated_at: timestamp(row.updated_at),
            },
            rank,
            status: EntryStatus::stored(&row.status)?,
        });
    }
    Ok(Listing {
        period,
        total,
        entries,
    })
}

/// The rank of a public entry in its period: one more than the public entries ahead of it
/// (the listing's order: score, then who reached it first, then player id).
async fn rank_of(state: &AppState, row: &entries::Model) -> Result<u64, LeaderboardError> {
    let ahead = Condition::any()
        .add(entries::Column::SortScore.lt(row.sort_score))
        .add(
            Condition::all()
                .add(entries::Column::SortScore.eq(row.sort_score))
                .add(
                    Condition::any()
                        .add(entries::Column::ReachedAt.lt(row.reached_at))
                        .add(
                            Condition::all()
                                .add(entries::Column::ReachedAt.eq(row.reached_at))
                                .add(entries::Column::PlayerId.lt(row.player_id.as_str())),
                        ),
                ),
        );
    let ahead = entries::Entity::find()
        .filter(entries::Column::BoardId.eq(row.board_id))
        .filter(entries::Column::Period.eq(row.period.as_str()))
        .filter(entries::Column::Status.eq(STATUS_OK))
        .filter(ahead)
        .count(&state.db)
        .await?;
    Ok(ahead + 1)
}

/// A period of a board: when it opened and, once over and archived, its final entry count.
pub struct PeriodRecord {
    pub period: String,
    pub opened_at: String,
    pub archived_at: Option<String>,
    pub entries: Option<u64>,
}

/// Every period the board has had scores in, newest first.
pub async fn periods(
    state: &AppState,
    board: &Board,
) -> Result<Vec<PeriodRecord>, LeaderboardError> {
    let rows = periods::Entity::find()
        .filter(periods::Column::BoardId.eq(board.id()))
        .order_by_desc(periods::Column::OpenedAt)
        .order_by_desc(periods::Column::Period)
        .all(&state.db)
        .await?;
    Ok(rows
        .into_iter()
        .map(|row| PeriodRecord {
            period: row.period,
            opened_at: timestamp(row.opened_at),
            archived_at: row.archived_at.map(timestamp),
            entries: row.entry_count.map(|count| count.max(0) as u64),
        })
        .collect())
}

/// The players banned from the board, most recent first: `(player_id, banned_at)`.
pub async fn bans(
    state: &AppState,
    board: &Board,
) -> Result<Vec<(String, String)>, LeaderboardError> {
    let rows = bans::Entity::find()
        .filter(bans::Column::BoardId.eq(board.id()))
        .order_by_desc(bans::Column::BannedAt)
        .order_by_asc(bans::Column::PlayerId)
        .all(&state.db)
        .await?;
    Ok(rows
        .into_iter()
        .map(|row| (row.player_id, timestamp(row.banned_at)))
        .collect())
}

pub struct Banned {
    pub banned_at: String,
    pub removed_entries: u64,
}

/// Bans `player_id` from the board: removes every entry of theirs and refuses later ones.
pub async fn ban(
    state: &AppState,
    board: &Board,
    player_id: &PlayerId,
    by: Uuid,
) -> Result<Banned, LeaderboardError> {
    let now = state.now();
    bans::Entity::insert(bans::ActiveModel {
        board_id: Set(board.id()),
        player_id: Set(player_id.as_str().to_string()),
        banned_by: Set(Some(by)),
        banned_at: Set(now),
    })
    .on_conflict(
        OnConflict::columns([bans::Column::BoardId, bans::Column::PlayerId])
            .do_nothing()
            .to_owned(),
    )
    .exec_without_returning(&state.db)
    .await?;
    let removed = entries::Entity::delete_many()
        .filter(entries::Column::BoardId.eq(board.id()))
        .filter(entries::Column::PlayerId.eq(player_id.as_str()))
        .exec(&state.db)
        .await?;
    let hot = board.hot(&board.current_period(now), now);
    state
        .hot
        .leaderboards
        .remove(&hot, player_id.as_str(), now)
        .await?;
    let banned_at = bans::Entity::find_by_id((board.id(), player_id.as_str().to_string()))
        .one(&state.db)
        .await?
        .map(|b| b.banned_at)
        .unwrap_or(now);
    Ok(Banned {
        banned_at: timestamp(banned_at),
        removed_entries: removed.rows_affected,
    })
}

/// Lifts a ban. False when the player was not banned.
pub async fn unban(
    state: &AppState,
    board: &Board,
    player_id: &PlayerId,
) -> Result<bool, LeaderboardError> {
    let deleted = bans::Entity::delete_by_id((board.id(), player_id.as_str().to_string()))
        .exec(&state.db)
        .await?;
    Ok(deleted.rows_affected > 0)
}

/// Approves the player's suspicious entry in `period` (default: current): it joins the public
/// board under the usual keep-best rule, keeping the time it was first reached.
pub async fn approve(
    state: &AppState,
    board: &Board,
    player_id: &PlayerId,
    period: Option<&str>,
) -> Result<Standing, LeaderboardError> {
    let now = state.now();
    let current = board.current_period(now);
    let period = match period {
        Some(key) if super::period::is_period_key(key) => key.to_string(),
        Some(_) => return Err(LeaderboardError::invalid("period must be a period key")),
        None => current.clone(),
    };
    let suspicious =
        service::stored_entry(state, board, &period, player_id.as_str(), STATUS_SUSPICIOUS)
            .await?
            .ok_or(LeaderboardError::NoSuchEntry(
                "This player has no suspicious entry on this leaderboard",
            ))?;
    let apply = super::writer::Apply::of(board.operator());
    let approved = entries::Model {
        id: Uuid::now_v7(),
        status: STATUS_OK.to_string(),
        revision: i64::from(apply != super::writer::Apply::KeepBest),
        ..suspicious.clone()
    };
    let transaction = state.db.begin().await?;
    // Applied with the board's operator: kept when better, or as the last score, or added.
    let updated = !matches!(
        super::writer::store_checked(&transaction, &[&approved], apply).await?[0],
        super::writer::Kept::NotBetter
    );
    entries::Entity::delete_by_id(suspicious.id)
        .exec(&transaction)
        .await?;
    transaction.commit().await?;
    if period == current {
        if let Some(stored) =
            service::stored_entry(state, board, &period, player_id.as_str(), STATUS_OK).await?
        {
            service::hot_submit(state, board, &period, &service::hot_entry_of(&stored), now)
                .await?;
        }
    }
    let Some(Ranked { rank, entry }) =
        service::public_standing(state, board, &period, player_id).await?
    else {
        return Err(LeaderboardError::NoSuchEntry(
            "This player has no entry on this leaderboard",
        ));
    };
    Ok(Standing {
        entry,
        rank: Some(rank),
        status: EntryStatus::Ok,
        updated,
        order: board.order(),
        operator: board.operator(),
        schedule: board.schedule(now),
        tournament: super::tournament::status(state, board, now).await?,
    })
}
