//! Moderation (dashboard): entries by status, bans and approvals. A score outside a board's
//! `[min_score, max_score]` is stored as `suspicious`, beside the player's public entry, and
//! stays off the public board until approved; a ban removes the player's entries on the board
//! (every period) and refuses their later submissions with 403.
use super::{
    boards::{Board, PlayerId},
    error::LeaderboardError,
    service::{self, EntryData, Ranked, Standing, STATUS_OK, STATUS_SUSPICIOUS},
};
use crate::{http::timestamp, state::AppState};
use entity::{leaderboard_bans as bans, leaderboard_entries as entries};
use sea_orm::{
    sea_query::OnConflict, ActiveValue::Set, ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter,
    QueryOrder, QuerySelect, TransactionTrait,
};
use uuid::Uuid;

/// Which entries a moderation listing shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusFilter {
    All,
    Ok,
    Suspicious,
}

impl StatusFilter {
    pub fn parse(raw: Option<&str>) -> Result<Self, LeaderboardError> {
        match raw {
            None | Some("all") => Ok(Self::All),
            Some("ok") => Ok(Self::Ok),
            Some("suspicious") => Ok(Self::Suspicious),
            Some(_) => Err(LeaderboardError::invalid(
                "status must be ok, suspicious or all",
            )),
        }
    }
}

/// An entry as moderators see it.
#[derive(Debug, Clone)]
pub struct ModeratedEntry {
    pub entry: EntryData,
    pub status: String,
    /// Rank among public entries (listing order) for `ok` entries.
    pub rank: Option<u64>,
}

pub struct Listing {
    pub period: String,
    pub total: u64,
    pub entries: Vec<ModeratedEntry>,
}

/// Entries of one period (default: the current one), best first.
pub async fn list(
    state: &AppState,
    board: &Board,
    period: Option<&str>,
    status: StatusFilter,
    offset: u64,
    limit: u64,
) -> Result<Listing, LeaderboardError> {
    let period = match period {
        Some(key) if super::period::is_period_key(key) => key.to_string(),
        Some(_) => return Err(LeaderboardError::invalid("period must be a period key")),
        None => board.current_period(state.now()),
    };
    let mut query = entries::Entity::find()
        .filter(entries::Column::BoardId.eq(board.id()))
        .filter(entries::Column::Period.eq(period.as_str()));
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
    let entries = rows
        .iter()
        .enumerate()
        .map(|(index, row)| ModeratedEntry {
            entry: EntryData {
                player_id: row.player_id.clone(),
                player_name: row.player_name.clone(),
                score: row.score,
                metadata: serde_json::from_str(&row.metadata)
                    .unwrap_or_else(|_| serde_json::json!({})),
                updated_at: timestamp(row.updated_at),
            },
            rank: (status == StatusFilter::Ok).then_some(offset + index as u64 + 1),
            status: row.status.clone(),
        })
        .collect();
    Ok(Listing {
        period,
        total,
        entries,
    })
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
    let approved = entries::Model {
        id: Uuid::now_v7(),
        status: STATUS_OK.to_string(),
        ..suspicious.clone()
    };
    let transaction = state.db.begin().await?;
    let updated = super::writer::keep_best(&transaction, &[&approved]).await?[0];
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
        status: STATUS_OK,
        updated,
    })
}
