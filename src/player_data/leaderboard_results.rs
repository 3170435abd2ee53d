//! The leaderboard results deliveries (`leaderboard_result_deliveries`, see
//! `leaderboards/results.rs`) whose stored standings name one player: listed for an export,
//! and the player taken out of them for an erase.
//!
//! A payload is the JSON body of one delivery, `{..., "entries": [{rank, player_id,
//! player_name, score}, ...]}`, fixed when the period ended. An erase takes the player's entry
//! out of every stored payload, pending or not, and ranks the rest 1..n again, so a delivery
//! still to be sent carries the standings without the player (as the board now reads), and
//! no stored copy names them.
use crate::{http::timestamp, store::Db};
use entity::leaderboard_result_deliveries as deliveries;
use sea_orm::{
    sea_query::{Expr, ExprTrait, LikeExpr},
    ColumnTrait, EntityTrait, QueryFilter, QueryOrder,
};
use serde_json::{json, Value};
use uuid::Uuid;

/// Tries of one payload's rewrite when other erasures keep changing it in between.
const REWRITE_TRIES: usize = 5;

/// A stored delivery and its payload.
struct Stored {
    row: deliveries::Model,
    payload: Value,
}

/// The standings of a payload (empty when it has none).
fn standings(payload: &Value) -> &[Value] {
    payload["entries"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
}

fn names(entry: &Value, player_id: &str) -> bool {
    entry["player_id"].as_str() == Some(player_id)
}

/// The game's deliveries whose standings name the player, oldest first. The payload text is
/// narrowed in the database first (it holds `"player_id":<the id as JSON>`), then read exactly.
async fn naming(db: &Db, game_id: Uuid, player_id: &str) -> Result<Vec<Stored>, sea_orm::DbErr> {
    let as_json = serde_json::to_string(player_id).unwrap_or_default();
    let fragment = format!("\"player_id\":{as_json}")
        .replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_");
    let rows = deliveries::Entity::find()
        .filter(deliveries::Column::GameId.eq(game_id))
        .filter(
            Expr::col(deliveries::Column::Payload)
                .like(LikeExpr::new(format!("%{fragment}%")).escape('\\')),
        )
        .order_by_asc(deliveries::Column::CreatedAt)
        .order_by_asc(deliveries::Column::Id)
        .all(db)
        .await?;
    Ok(rows
        .into_iter()
        .filter_map(|row| {
            let payload: Value = serde_json::from_str(&row.payload).ok()?;
            standings(&payload)
                .iter()
                .any(|entry| names(entry, player_id))
                .then_some(Stored { row, payload })
        })
        .collect())
}

/// The player's place in each delivery that names them, as the export shows it.
pub async fn export(db: &Db, game_id: Uuid, player_id: &str) -> Result<Vec<Value>, sea_orm::DbErr> {
    let found = naming(db, game_id, player_id).await?;
    Ok(found
        .iter()
        .flat_map(|stored| {
            standings(&stored.payload)
                .iter()
                .filter(|entry| names(entry, player_id))
                .map(|entry| {
                    json!({
                        "board_name": stored.payload["board_name"],
                        "period": stored.row.period,
                        "reason": stored.row.reason,
                        "rank": entry["rank"],
                        "score": entry["score"],
                        "player_name": entry["player_name"],
                        "status": stored.row.status,
                        "created_at": timestamp(stored.row.created_at),
                        "delivered_at": stored.row.delivered_at.map(timestamp),
                    })
                })
        })
        .collect())
}

/// Takes the player out of every stored payload that names them; how many payloads changed.
/// Each rewrite applies only to the payload it read (two erasures of players of the same
/// period at once must not undo each other), and reads again when it lost that race.
pub async fn erase(db: &Db, game_id: Uuid, player_id: &str) -> Result<u64, sea_orm::DbErr> {
    let mut changed = 0;
    for stored in naming(db, game_id, player_id).await? {
        let (id, mut text, mut payload) = (stored.row.id, stored.row.payload, stored.payload);
        for _ in 0..REWRITE_TRIES {
            let Some(rewritten) = without(&payload, player_id) else {
                break; // another erase got there first
            };
            let written = deliveries::Entity::update_many()
                .col_expr(deliveries::Column::Payload, Expr::value(rewritten))
                .filter(deliveries::Column::Id.eq(id))
                .filter(deliveries::Column::Payload.eq(text.as_str()))
                .exec(db)
                .await?
                .rows_affected;
            if written == 1 {
                changed += 1;
                break;
            }
            let Some(row) = deliveries::Entity::find_by_id(id).one(db).await? else {
                break; // the board (and its deliveries) went meanwhile
            };
            payload = serde_json::from_str(&row.payload).unwrap_or(Value::Null);
            text = row.payload;
        }
    }
    Ok(changed)
}

/// The payload without the player's entries, the others ranked 1..n again; `None` when it
/// does not name the player.
fn without(payload: &Value, player_id: &str) -> Option<String> {
    let kept: Vec<Value> = standings(payload)
        .iter()
        .filter(|entry| !names(entry, player_id))
        .cloned()
        .enumerate()
        .map(|(index, mut entry)| {
            entry["rank"] = json!(index + 1);
            entry
        })
        .collect();
    if kept.len() == standings(payload).len() {
        return None;
    }
    let mut payload = payload.clone();
    payload["entries"] = Value::Array(kept);
    Some(payload.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_player_leaves_the_standings_and_the_rest_close_up() {
        let payload = json!({ "board_name": "daily", "entries": [
            { "rank": 1, "player_id": "bob", "player_name": null, "score": 9 },
            { "rank": 2, "player_id": "ann", "player_name": "Ann", "score": 5 },
            { "rank": 3, "player_id": "cid", "player_name": null, "score": 1 },
        ] });
        let rewritten: Value = serde_json::from_str(&without(&payload, "ann").unwrap()).unwrap();
        assert_eq!(
            rewritten,
            json!({ "board_name": "daily", "entries": [
                { "rank": 1, "player_id": "bob", "player_name": null, "score": 9 },
                { "rank": 2, "player_id": "cid", "player_name": null, "score": 1 },
            ] })
        );
        assert_eq!(without(&payload, "Ann"), None, "ids are matched exactly");
        assert_eq!(without(&json!({ "entries": [] }), "ann"), None);
    }
}
