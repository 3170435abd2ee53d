//! Reading a game's stored events for the dashboard: pages of recent events by cursor, counts
//! by event name over a range (from the aggregates), and the newest events of one name (for
//! trying a schema).
//!
//! "Newest" is the order of `occurred_at`, the time the metrics and funnels read, with the
//! event's id breaking ties: (game_id, occurred_at) and (game_id, event_name, occurred_at) are
//! indexed already, so these reads add no index to the table every event is written to. An
//! event sent late with an old `client_timestamp` takes its place in time, not the top.
use super::{input, EventError};
use crate::{aggregates::hour_of, player_id::PlayerId, query::Params, store::Db};
use chrono::{DateTime, Utc};
use entity::events;
use sea_orm::{
    ColumnTrait, Condition, ConnectionTrait, DbErr, EntityTrait, QueryFilter, QueryOrder,
    QuerySelect, Select, Statement,
};
use uuid::Uuid;

/// Events per page when `limit` is not given, and the most a page may hold.
pub const DEFAULT_PAGE_SIZE: u64 = 50;
pub const MAX_PAGE_SIZE: u64 = 200;

/// A page's `limit`: 400 outside 1..=200.
pub fn parse_page_size(limit: Option<i64>) -> Result<u64, EventError> {
    match limit {
        None => Ok(DEFAULT_PAGE_SIZE),
        Some(limit) if (1..=MAX_PAGE_SIZE as i64).contains(&limit) => Ok(limit as u64),
        Some(_) => Err(EventError::invalid(format!(
            "limit must be an integer from 1 to {MAX_PAGE_SIZE}"
        ))),
    }
}

/// Where the next page starts: the events after this one in the order (occurred_at, id), newest
/// first. Clients get it as an opaque string (`next_before`) and send it back as `before`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cursor {
    occurred_at: DateTime<Utc>,
    id: Uuid,
}

impl Cursor {
    fn after(event: &events::Model) -> Self {
        Self {
            occurred_at: event.occurred_at,
            id: event.id,
        }
    }

    /// Seconds, nanoseconds and id, in hex: the exact stored time, so that the next page starts
    /// exactly after this event on both backends.
    pub fn encode(&self) -> String {
        let mut bytes = Vec::with_capacity(28);
        bytes.extend(self.occurred_at.timestamp().to_be_bytes());
        bytes.extend(self.occurred_at.timestamp_subsec_nanos().to_be_bytes());
        bytes.extend(self.id.as_bytes());
        hex::encode(bytes)
    }

    pub fn decode(raw: &str) -> Result<Self, EventError> {
        let bad = || EventError::invalid("before must be the next_before of a previous page");
        let bytes = hex::decode(raw.trim()).map_err(|_| bad())?;
        let (seconds, rest) = bytes.split_first_chunk::<8>().ok_or_else(bad)?;
        let (nanos, id) = rest.split_first_chunk::<4>().ok_or_else(bad)?;
        let occurred_at =
            DateTime::from_timestamp(i64::from_be_bytes(*seconds), u32::from_be_bytes(*nanos))
                .ok_or_else(bad)?;
        let id = Uuid::from_slice(id).map_err(|_| bad())?;
        Ok(Self { occurred_at, id })
    }
}

/// Which events a page holds: the game's, optionally of one name, player and environment.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub event_name: Option<String>,
    pub player_id: Option<PlayerId>,
    pub environment: Option<crate::words::Environment>,
}

impl Filter {
    /// The query values, each checked by the rule its field has in `/v1/track`.
    pub fn parse(
        event_name: Option<String>,
        player_id: Option<String>,
        environment: Option<&str>,
    ) -> Result<Self, EventError> {
        let text = |value: Option<String>, field, max| {
            value
                .map(|value| {
                    input::check_text(&value, field, max)
                        .map(|()| value)
                        .map_err(|error| EventError::invalid(error.to_string()))
                })
                .transpose()
        };
        Ok(Self {
            event_name: text(event_name, "event_name", input::MAX_EVENT_NAME_CHARS)?,
            player_id: player_id
                .map(|player| input::parse_player_id(&player))
                .transpose()
                .map_err(|error| EventError::invalid(error.to_string()))?,
            environment: crate::query::parse_optional_environment(environment)
                .map_err(|error| EventError::invalid(error.to_string()))?,
        })
    }
}

/// The newest first of the game's events, ordered by (occurred_at, id), descending.
fn newest(game_id: Uuid) -> Select<events::Entity> {
    events::Entity::find()
        .filter(events::Column::GameId.eq(game_id))
        .order_by_desc(events::Column::OccurredAt)
        .order_by_desc(events::Column::Id)
}

/// One page of the game's events matching `filter`, newest first, starting after `before`; and
/// where the next page starts, when there is one.
#[tracing::instrument(skip_all, fields(%game_id))]
pub async fn page(
    db: &Db,
    game_id: Uuid,
    filter: &Filter,
    before: Option<Cursor>,
    limit: u64,
) -> Result<(Vec<events::Model>, Option<Cursor>), DbErr> {
    let mut query = newest(game_id);
    if let Some(name) = &filter.event_name {
        query = query.filter(events::Column::EventName.eq(name.as_str()));
    }
    if let Some(player) = &filter.player_id {
        query = query.filter(events::Column::PlayerId.eq(player.as_str()));
    }
    if let Some(environment) = &filter.environment {
        query = query.filter(events::Column::Environment.eq(environment.as_str()));
    }
    if let Some(cursor) = before {
        // (occurred_at, id) < (cursor's): the first condition alone bounds the index range.
        query = query
            .filter(events::Column::OccurredAt.lte(cursor.occurred_at))
            .filter(
                Condition::any()
                    .add(events::Column::OccurredAt.lt(cursor.occurred_at))
                    .add(events::Column::Id.lt(cursor.id)),
            );
    }
    let mut rows = query.limit(limit + 1).all(db).await?;
    let next = if rows.len() as u64 > limit {
        rows.truncate(limit as usize);
        rows.last().map(Cursor::after)
    } else {
        None
    };
    Ok((rows, next))
}

/// The newest `limit` events of the game's `event_name`.
pub async fn newest_named(
    db: &Db,
    game_id: Uuid,
    event_name: &str,
    limit: u64,
) -> Result<Vec<events::Model>, DbErr> {
    newest(game_id)
        .filter(events::Column::EventName.eq(event_name))
        .limit(limit)
        .all(db)
        .await
}

/// Events per name that occurred in `from..to` (whole UTC hours), optionally of one
/// environment: the most frequent first, then by name. Read from the hour counts kept at
/// ingest (`crate::aggregates`), so it costs the hours and names of the range.
#[tracing::instrument(skip_all, fields(%game_id))]
pub async fn counts(
    db: &Db,
    game_id: Uuid,
    environment: Option<&str>,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> Result<Vec<(String, u64)>, DbErr> {
    let mut p = Params::default();
    let game = p.bind(game_id);
    let first = p.bind(hour_of(from));
    let end = p.bind(hour_of(to));
    let environment = environment
        .map(|environment| format!(" AND environment = {}", p.bind(environment.to_string())))
        .unwrap_or_default();
    let sql = format!(
        "SELECT event_name, CAST(SUM(events) AS BIGINT) AS count FROM analytics_event_counts \
         WHERE game_id = {game} AND hour >= {first} AND hour < {end}{environment} \
         GROUP BY event_name"
    );
    let rows = db
        .query_all_raw(Statement::from_sql_and_values(
            db.get_database_backend(),
            sql,
            p.0,
        ))
        .await?;
    let mut counts = Vec::with_capacity(rows.len());
    for row in rows {
        let name: String = row.try_get("", "event_name")?;
        let count: i64 = row.try_get("", "count")?;
        if count > 0 {
            counts.push((name, count as u64));
        }
    }
    counts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_survives_its_round_trip_to_the_nanosecond() {
        let cursor = Cursor {
            occurred_at: DateTime::from_timestamp(1_790_000_000, 123_456_789).unwrap(),
            id: Uuid::now_v7(),
        };
        assert_eq!(Cursor::decode(&cursor.encode()).unwrap(), cursor);
        let early = Cursor {
            occurred_at: DateTime::from_timestamp(-62_000_000_000, 0).unwrap(),
            id: Uuid::nil(),
        };
        assert_eq!(Cursor::decode(&early.encode()).unwrap(), early);
    }

    #[test]
    fn anything_but_a_cursor_is_refused() {
        let valid = Cursor {
            occurred_at: DateTime::from_timestamp(0, 0).unwrap(),
            id: Uuid::nil(),
        }
        .encode();
        for raw in [
            "",
            "zz",
            "abc",
            &valid[..valid.len() - 2],
            &format!("{valid}00"),
        ] {
            assert!(Cursor::decode(raw).is_err(), "{raw:?}");
        }
    }
}
