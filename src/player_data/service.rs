//! Everything stored about one player of a game: gathered for an export, deleted for an erase,
//! and the audit list of both. Reads the other features' tables directly (they are this
//! feature's subject), and the hot store's leaderboards and presence.
use super::{leaderboard_results, PlayerDataError};
use crate::{
    http::timestamp, leaderboards::boards::Board, player_id::PlayerId,
    presence::feed::cleared_message, state::AppState, store::Db,
};
use entity::{
    achievement_unlocks, achievements, events, leaderboard_bans, leaderboard_entries,
    leaderboard_tournament_players as tournament_players, leaderboards, player_data_audit,
    player_identities, saves, users,
};
use futures_util::Stream;
use sea_orm::{
    ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter,
    QueryOrder, QuerySelect, TransactionTrait,
};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::collections::{BTreeSet, HashMap};
use uuid::Uuid;

/// Events read per query of an export.
pub const EVENT_BATCH: u64 = 1_000;

/// How much of each kind was found (export) or deleted (erase).
#[derive(Debug, Default, Clone, Serialize, Deserialize, poem_openapi::Object)]
// Audit entries recorded before a kind existed read it as 0.
#[serde(default)]
pub struct PlayerDataCounts {
    pub events: u64,
    /// Leaderboard entries of every period, current and archived.
    pub leaderboard_entries: u64,
    pub leaderboard_bans: u64,
    /// Tournaments the player takes part in (joined, or let in by a first score).
    pub tournaments: u64,
    /// Leaderboard results deliveries (pending, delivered or failed) whose standings name the
    /// player; an erase takes the player out of each.
    pub leaderboard_results: u64,
    pub achievement_unlocks: u64,
    pub saves: u64,
    /// 1 when the player had a presence entry.
    pub presence: u64,
    /// Device and custom identities that sign in as this player.
    pub player_identities: u64,
}

/// What an export holds besides the events: one JSON object per kind, as the export shows it.
pub struct PlayerRecords {
    pub parts: Map<String, Value>,
    pub counts: PlayerDataCounts,
}

/// The game's boards by id.
async fn boards(
    db: &Db,
    game_id: Uuid,
) -> Result<HashMap<Uuid, leaderboards::Model>, PlayerDataError> {
    Ok(leaderboards::Entity::find()
        .filter(leaderboards::Column::GameId.eq(game_id))
        .all(db)
        .await?
        .into_iter()
        .map(|board| (board.id, board))
        .collect())
}

/// Everything about the player except the events (which are streamed), and every count.
#[tracing::instrument(skip_all, fields(game_id = %game_id))]
pub async fn records(
    state: &AppState,
    game_id: Uuid,
    player: &PlayerId,
) -> Result<PlayerRecords, PlayerDataError> {
    let db = &state.db;
    let player_id = player.as_str();
    let boards = boards(db, game_id).await?;
    let board_ids: Vec<Uuid> = boards.keys().copied().collect();
    let board_name = |id: &Uuid| {
        boards
            .get(id)
            .map(|b| b.board_name.clone())
            .unwrap_or_default()
    };

    let entries = leaderboard_entries::Entity::find()
        .filter(leaderboard_entries::Column::BoardId.is_in(board_ids.clone()))
        .filter(leaderboard_entries::Column::PlayerId.eq(player_id))
        .order_by_asc(leaderboard_entries::Column::BoardId)
        .order_by_asc(leaderboard_entries::Column::Period)
        .all(db)
        .await?;
    let bans = leaderboard_bans::Entity::find()
        .filter(leaderboard_bans::Column::BoardId.is_in(board_ids))
        .filter(leaderboard_bans::Column::PlayerId.eq(player_id))
        .all(db)
        .await?;
    let tournaments = tournament_players::Entity::find()
        .filter(tournament_players::Column::GameId.eq(game_id))
        .filter(tournament_players::Column::PlayerId.eq(player_id))
        .order_by_asc(tournament_players::Column::JoinedAt)
        .all(db)
        .await?;
    let results = leaderboard_results::export(db, game_id, player_id).await?;
    let unlocks = achievement_unlocks::Entity::find()
        .filter(achievement_unlocks::Column::GameId.eq(game_id))
        .filter(achievement_unlocks::Column::PlayerId.eq(player_id))
        .find_also_related(achievements::Entity)
        .all(db)
        .await?;
    let saves = saves::Entity::find()
        .filter(saves::Column::GameId.eq(game_id))
        .filter(saves::Column::PlayerId.eq(player_id))
        .order_by_asc(saves::Column::Slot)
        .all(db)
        .await?;
    let identities = player_identities::Entity::find()
        .filter(player_identities::Column::GameId.eq(game_id))
        .filter(player_identities::Column::PlayerId.eq(player_id))
        .all(db)
        .await?;
    let presence = state
        .hot
        .presence
        .get(game_id, player_id, state.now())
        .await?;
    let events = count_events(db, game_id, player_id).await?;

    let counts = PlayerDataCounts {
        events,
        leaderboard_entries: entries.len() as u64,
        leaderboard_bans: bans.len() as u64,
        tournaments: tournaments.len() as u64,
        leaderboard_results: results.len() as u64,
        achievement_unlocks: unlocks.len() as u64,
        saves: saves.len() as u64,
        presence: u64::from(presence.is_some()),
        player_identities: identities.len() as u64,
    };
    let mut parts = Map::new();
    parts.insert(
        "leaderboard_entries".into(),
        entries
            .iter()
            .map(|entry| {
                json!({
                    "board_name": board_name(&entry.board_id),
                    "period": entry.period,
                    "score": entry.score,
                    "player_name": entry.player_name,
                    "status": entry.status,
                    "metadata": serde_json::from_str::<Value>(&entry.metadata).unwrap_or(Value::Null),
                    "updated_at": timestamp(entry.updated_at),
                })
            })
            .collect(),
    );
    parts.insert(
        "leaderboard_bans".into(),
        bans.iter()
            .map(|ban| json!({ "board_name": board_name(&ban.board_id), "banned_at": timestamp(ban.banned_at) }))
            .collect(),
    );
    parts.insert(
        "tournaments".into(),
        tournaments
            .iter()
            .map(|place| json!({ "board_name": board_name(&place.board_id), "joined_at": timestamp(place.joined_at) }))
            .collect(),
    );
    parts.insert("leaderboard_results".into(), results.into());
    parts.insert(
        "achievement_unlocks".into(),
        unlocks
            .iter()
            .map(|(unlock, achievement)| {
                json!({
                    "achievement_key": achievement.as_ref().map(|a| a.key.clone()),
                    "unlocked_at": timestamp(unlock.unlocked_at),
                })
            })
            .collect(),
    );
    parts.insert(
        "saves".into(),
        saves
            .iter()
            .map(|save| {
                json!({
                    "slot": save.slot,
                    "version": save.version,
                    "data": serde_json::from_str::<Value>(&save.data).unwrap_or(Value::String(save.data.clone())),
                    "created_at": timestamp(save.created_at),
                    "updated_at": timestamp(save.updated_at),
                })
            })
            .collect(),
    );
    parts.insert(
        "presence".into(),
        presence.map_or(Value::Null, |entry| {
            json!({
                "status": entry.status.as_str(),
                "activity": entry.activity,
                "details": entry.data,
                "session_id": entry.session_id,
                "updated_at": timestamp(entry.updated_at),
            })
        }),
    );
    parts.insert(
        "player_identities".into(),
        identities
            .iter()
            .map(|identity| json!({ "kind": identity.kind, "created_at": timestamp(identity.created_at) }))
            .collect(),
    );
    Ok(PlayerRecords { parts, counts })
}

async fn count_events(db: &Db, game_id: Uuid, player_id: &str) -> Result<u64, PlayerDataError> {
    Ok(events::Entity::find()
        .filter(events::Column::GameId.eq(game_id))
        .filter(events::Column::PlayerId.eq(player_id))
        .count(db)
        .await?)
}

/// The player's events in storage order, `EVENT_BATCH` rows per query (keyset on the id), so
/// an export holds one batch at a time however many events the player has.
pub fn player_events(
    db: Db,
    game_id: Uuid,
    player: PlayerId,
) -> impl Stream<Item = Result<Vec<events::Model>, sea_orm::DbErr>> + Send {
    futures_util::stream::unfold(Some(None::<Uuid>), move |after| {
        let db = db.clone();
        let player = player.clone();
        async move {
            let after = after?;
            let mut query = events::Entity::find()
                .filter(events::Column::GameId.eq(game_id))
                .filter(events::Column::PlayerId.eq(player.as_str()));
            if let Some(last) = after {
                query = query.filter(events::Column::Id.gt(last));
            }
            match query
                .order_by_asc(events::Column::Id)
                .limit(EVENT_BATCH)
                .all(&db)
                .await
            {
                Ok(batch) if batch.is_empty() => None,
                Ok(batch) => {
                    let next =
                        (batch.len() as u64 == EVENT_BATCH).then(|| batch.last().map(|e| e.id));
                    Some((Ok(batch), next))
                }
                Err(error) => Some((Err(error), None)),
            }
        }
    })
}

/// Deletes everything stored about the player in the game: events (in batches), leaderboard
/// entries of every period, tournament places and bans, unlocks, saves and identities in one
/// transaction, then the player's place in stored results payloads, their hot leaderboard
/// entries and presence.
#[tracing::instrument(skip_all, fields(game_id = %game_id))]
pub async fn erase(
    state: &AppState,
    game_id: Uuid,
    player: &PlayerId,
) -> Result<PlayerDataCounts, PlayerDataError> {
    let db = &state.db;
    let player_id = player.as_str();
    let mut counts = PlayerDataCounts {
        events: erase_events(db, game_id, player_id).await?,
        ..Default::default()
    };
    let boards = boards(db, game_id).await?;
    let board_ids: Vec<Uuid> = boards.keys().copied().collect();
    let periods: Vec<(Uuid, String)> = leaderboard_entries::Entity::find()
        .select_only()
        .column(leaderboard_entries::Column::BoardId)
        .column(leaderboard_entries::Column::Period)
        .filter(leaderboard_entries::Column::BoardId.is_in(board_ids.clone()))
        .filter(leaderboard_entries::Column::PlayerId.eq(player_id))
        .into_tuple()
        .all(db)
        .await?;

    let txn = db.begin().await?;
    counts.leaderboard_entries = leaderboard_entries::Entity::delete_many()
        .filter(leaderboard_entries::Column::BoardId.is_in(board_ids.clone()))
        .filter(leaderboard_entries::Column::PlayerId.eq(player_id))
        .exec(&txn)
        .await?
        .rows_affected;
    counts.tournaments = tournament_players::Entity::delete_many()
        .filter(tournament_players::Column::GameId.eq(game_id))
        .filter(tournament_players::Column::PlayerId.eq(player_id))
        .exec(&txn)
        .await?
        .rows_affected;
    counts.leaderboard_bans = leaderboard_bans::Entity::delete_many()
        .filter(leaderboard_bans::Column::BoardId.is_in(board_ids))
        .filter(leaderboard_bans::Column::PlayerId.eq(player_id))
        .exec(&txn)
        .await?
        .rows_affected;
    counts.achievement_unlocks = achievement_unlocks::Entity::delete_many()
        .filter(achievement_unlocks::Column::GameId.eq(game_id))
        .filter(achievement_unlocks::Column::PlayerId.eq(player_id))
        .exec(&txn)
        .await?
        .rows_affected;
    counts.saves = saves::Entity::delete_many()
        .filter(saves::Column::GameId.eq(game_id))
        .filter(saves::Column::PlayerId.eq(player_id))
        .exec(&txn)
        .await?
        .rows_affected;
    counts.player_identities = player_identities::Entity::delete_many()
        .filter(player_identities::Column::GameId.eq(game_id))
        .filter(player_identities::Column::PlayerId.eq(player_id))
        .exec(&txn)
        .await?
        .rows_affected;
    txn.commit().await?;
    // After the entries: a period ending meanwhile makes its payload without the player.
    counts.leaderboard_results = leaderboard_results::erase(db, game_id, player_id).await?;

    // The hot copies: every period the player had a stored entry in, and every board's
    // current period (a hot entry whose cold write was still queued).
    let now = state.now();
    let mut hot: BTreeSet<(Uuid, String)> = periods.into_iter().collect();
    for board in boards.values() {
        let board = Board::new(board.clone())?;
        hot.insert((board.id(), board.current_period(now)));
    }
    for (board_id, period) in hot {
        if let Some(model) = boards.get(&board_id) {
            let board = Board::new(model.clone())?;
            state
                .hot
                .leaderboards
                .remove(&board.hot(&period, now), player_id, now)
                .await?;
        }
    }
    let cleared = state
        .hot
        .presence
        .clear(game_id, player_id, &cleared_message(player_id, now))
        .await?;
    counts.presence = u64::from(cleared);
    Ok(counts)
}

/// Deletes the player's events, in batches as retention does.
async fn erase_events(db: &Db, game_id: Uuid, player_id: &str) -> Result<u64, PlayerDataError> {
    let which = sea_orm::Condition::all()
        .add(events::Column::GameId.eq(game_id))
        .add(events::Column::PlayerId.eq(player_id));
    let deleted = crate::events::retention::delete_in_batches(db, which).await?;
    crate::aggregates::forget_player(db, game_id, player_id).await?;
    Ok(deleted)
}

/// What an audit entry records.
pub enum Action {
    Export,
    Erase,
}

impl Action {
    fn as_str(&self) -> &'static str {
        match self {
            Self::Export => "export",
            Self::Erase => "erase",
        }
    }
}

/// Records an export or erase by `user_id` in the game's audit list.
pub async fn record(
    db: &impl ConnectionTrait,
    game_id: Uuid,
    user_id: Uuid,
    action: Action,
    player: &PlayerId,
    counts: &PlayerDataCounts,
    at: chrono::DateTime<chrono::Utc>,
) -> Result<(), PlayerDataError> {
    let email = users::Entity::find_by_id(user_id)
        .one(db)
        .await?
        .map(|user| user.email)
        .unwrap_or_default();
    player_data_audit::Entity::insert(player_data_audit::ActiveModel {
        id: Set(Uuid::now_v7()),
        game_id: Set(game_id),
        user_id: Set(Some(user_id)),
        user_email: Set(email),
        action: Set(action.as_str().into()),
        player_id: Set(player.as_str().into()),
        counts: Set(serde_json::to_string(counts).unwrap_or_else(|_| "{}".into())),
        at: Set(at),
    })
    .exec_without_returning(db)
    .await?;
    Ok(())
}

/// A page of the game's audit list, newest first, and whether more follow.
pub async fn audit(
    db: &Db,
    game_id: Uuid,
    offset: u64,
    limit: u64,
) -> Result<(Vec<player_data_audit::Model>, bool), PlayerDataError> {
    let mut rows = player_data_audit::Entity::find()
        .filter(player_data_audit::Column::GameId.eq(game_id))
        .order_by_desc(player_data_audit::Column::At)
        .order_by_desc(player_data_audit::Column::Id)
        .offset(offset)
        .limit(limit + 1)
        .all(db)
        .await?;
    let more = rows.len() as u64 > limit;
    rows.truncate(limit as usize);
    Ok((rows, more))
}

/// The counts an audit entry stored.
pub fn stored_counts(row: &player_data_audit::Model) -> PlayerDataCounts {
    serde_json::from_str(&row.counts).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_audit_entry_from_before_a_kind_was_counted_reads_it_as_zero() {
        let row = player_data_audit::Model {
            id: Uuid::nil(),
            game_id: Uuid::nil(),
            user_id: None,
            user_email: String::new(),
            action: "erase".into(),
            player_id: "ana".into(),
            counts: r#"{"events":2,"leaderboard_entries":1,"leaderboard_bans":0}"#.into(),
            at: chrono::Utc::now(),
        };
        let counts = stored_counts(&row);
        assert_eq!((counts.events, counts.leaderboard_entries), (2, 1));
        assert_eq!((counts.tournaments, counts.leaderboard_results), (0, 0));
    }
}
