//! The admin's reads: pages of accounts with their game counts, and pages of games ordered by
//! the events they stored this month.
use super::AdminError;
use crate::store::Db;
use entity::{game_members, games, users};
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder,
    QuerySelect, Statement,
};
use std::collections::HashMap;
use uuid::Uuid;

/// One page of a list, and how many there are in all.
pub struct Page<T> {
    pub rows: Vec<T>,
    pub total: u64,
}

/// An account and the games it is a member of (and owns).
pub struct UserRow {
    pub user: users::Model,
    pub games: u64,
    pub owned_games: u64,
}

/// Accounts, oldest first (the admin, the first registered, leads).
pub async fn users(db: &Db, offset: u64, limit: u64) -> Result<Page<UserRow>, AdminError> {
    let total = users::Entity::find().count(db).await?;
    let page = users::Entity::find()
        .order_by_asc(users::Column::CreatedAt)
        .order_by_asc(users::Column::Id)
        .offset(offset)
        .limit(limit)
        .all(db)
        .await?;
    let ids: Vec<Uuid> = page.iter().map(|u| u.id).collect();
    let games = member_counts(db, &ids, None).await?;
    let owned = member_counts(db, &ids, Some("owner")).await?;
    let rows = page
        .into_iter()
        .map(|user| UserRow {
            games: games.get(&user.id).copied().unwrap_or(0),
            owned_games: owned.get(&user.id).copied().unwrap_or(0),
            user,
        })
        .collect();
    Ok(Page { rows, total })
}

/// How many games each of `ids` is a member of (with `role`, when given).
async fn member_counts(
    db: &Db,
    ids: &[Uuid],
    role: Option<&str>,
) -> Result<HashMap<Uuid, u64>, AdminError> {
    let mut query = game_members::Entity::find()
        .select_only()
        .column(game_members::Column::UserId)
        .column_as(game_members::Column::GameId.count(), "games")
        .filter(game_members::Column::UserId.is_in(ids.iter().copied()))
        .group_by(game_members::Column::UserId);
    if let Some(role) = role {
        query = query.filter(game_members::Column::Role.eq(role));
    }
    let counts: Vec<(Uuid, i64)> = query.into_tuple().all(db).await?;
    Ok(counts
        .into_iter()
        .map(|(id, n)| (id, n.max(0) as u64))
        .collect())
}

/// Games, those that stored the most events in `month` first (then oldest first), with the
/// count the cold store holds for the month.
pub async fn games_by_usage(
    db: &Db,
    month: &str,
    offset: u64,
    limit: u64,
) -> Result<Page<(games::Model, u64)>, AdminError> {
    let total = games::Entity::find().count(db).await?;
    let backend = db.get_database_backend();
    let rows = db
        .query_all_raw(Statement::from_sql_and_values(
            backend,
            "SELECT g.id AS id, CAST(COALESCE(SUM(u.events), 0) AS BIGINT) AS stored \
             FROM games g LEFT JOIN event_usage_shards u ON u.game_id = g.id AND u.month = $1 \
             GROUP BY g.id, g.created_at \
             ORDER BY stored DESC, g.created_at, g.id LIMIT $2 OFFSET $3",
            [month.into(), (limit as i64).into(), (offset as i64).into()],
        ))
        .await?;
    let mut order = Vec::with_capacity(rows.len());
    for row in rows {
        let id: Uuid = row.try_get("", "id")?;
        let stored: i64 = row.try_get("", "stored")?;
        order.push((id, stored.max(0) as u64));
    }
    let mut found: HashMap<Uuid, games::Model> = games::Entity::find()
        .filter(games::Column::Id.is_in(order.iter().map(|(id, _)| *id)))
        .all(db)
        .await?
        .into_iter()
        .map(|g| (g.id, g))
        .collect();
    let rows = order
        .into_iter()
        .filter_map(|(id, stored)| found.remove(&id).map(|g| (g, stored)))
        .collect();
    Ok(Page { rows, total })
}
