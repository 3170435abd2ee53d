//! Adding stored events to the aggregates, inside the transaction that stores them. Per game
//! in the group, once its players are locked (PostgreSQL: `lock_players_sql`):
//! 1. the hour counts (events, log errors, revenue per environment and event name) are added
//!    to this writer's shard;
//! 2. the (scope, player, hour) and (scope, player, day) rows are inserted where missing; the
//!    ones that were new add one to that hour's or day's distinct active users, a day's row
//!    gets the bits of the player's new hours in that day and the seconds of the day of its
//!    first and last event and of the player's last event the day before (for 24-hour
//!    windows from any second: `dau_drop`), and an hour's row the bits of the minutes the
//!    player was active in (for other windows that split an hour); the stored row of the day
//!    after a day whose last second grew takes the new one as its previous;
//!    A purchase's (scope, player, day) row is inserted where missing in the same way, and a
//!    new one adds one to the day's distinct paying users (span `paying_day`);
//! 3. players with a new day have their first and last day updated, locked (PostgreSQL) so
//!    that concurrent writers of the same player take turns, and the retention cohorts follow:
//!    a new player joins the cohort of its first day, a return 1 to 30 days after the first
//!    day counts for that cohort, and a late event that moves a player's first day earlier
//!    moves the player and its returns to the earlier cohort;
//! 4. sessions (`analytics_sessions` and their day counts), and the progression steps and
//!    resource flows per day (`super::standard`).
//!
//! Every statement's rows are sorted, so concurrent writers lock shared rows in one order.
use super::{
    day_of, hour_of, standard, tx::Row, Tx, ALL_ENVIRONMENTS, HOURS_PER_DAY, MAX_RETURN_DAY,
    SECONDS_PER_DAY,
};
use entity::events;
use sea_orm::DbErr;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use uuid::Uuid;

const ADD_COUNTS: &str = "INSERT INTO analytics_event_counts \
     (game_id, hour, environment, event_name, shard, events, log_errors, revenue) \
     SELECT $1, CAST(value->>'h' AS BIGINT), value->>'e', value->>'n', $3, \
     CAST(value->>'c' AS BIGINT), CAST(value->>'l' AS BIGINT), \
     CAST(value->>'r' AS DOUBLE PRECISION) FROM {rows} WHERE true \
     ON CONFLICT (game_id, hour, environment, event_name, shard) DO UPDATE SET \
     events = analytics_event_counts.events + excluded.events, \
     log_errors = analytics_event_counts.log_errors + excluded.log_errors, \
     revenue = analytics_event_counts.revenue + excluded.revenue";

/// Who was active in an hour, with the minutes of it (bit m for minute m): a new row adds one
/// to that hour's distinct active users.
const ADD_HOURS: &str =
    "INSERT INTO analytics_player_hours (game_id, scope, hour, actor_id, minutes) \
     SELECT $1, value->>'s', CAST(value->>'b' AS BIGINT), value->>'a', \
     CAST(value->>'m' AS BIGINT) FROM {rows} WHERE true \
     ON CONFLICT DO NOTHING RETURNING scope, actor_id, hour, CAST(0 AS BIGINT)";

/// The minutes of known (scope, player, hour) rows, added where they are new. A row from before
/// minutes were kept (`minutes` null) stays null: its minutes are unknown.
const OR_MINUTES: &str =
    "INSERT INTO analytics_player_hours (game_id, scope, hour, actor_id, minutes) \
     SELECT $1, value->>'s', CAST(value->>'b' AS BIGINT), value->>'a', \
     CAST(value->>'m' AS BIGINT) FROM {rows} WHERE true \
     ON CONFLICT (game_id, scope, hour, actor_id) DO UPDATE SET \
     minutes = analytics_player_hours.minutes | excluded.minutes \
     WHERE (analytics_player_hours.minutes | excluded.minutes) <> analytics_player_hours.minutes";

/// Who made a purchase on a day (a new row adds one to that day's paying users).
const ADD_PAYING: &str = "INSERT INTO analytics_paying_days (game_id, scope, actor_id, day) \
     SELECT $1, value->>'s', value->>'a', CAST(value->>'b' AS BIGINT) FROM {rows} WHERE true \
     ON CONFLICT DO NOTHING RETURNING scope, actor_id, day, CAST(0 AS BIGINT)";

/// The span of `analytics_active_users` that counts distinct paying users per day.
pub const PAYING_DAY: &str = "paying_day";

/// Who was active on a day, with the hours of it (bit h for hour h) and the seconds of the
/// day of the first and last event (a new row adds one to that day's distinct active users).
const ADD_DAYS: &str = "INSERT INTO analytics_player_days \
     (game_id, scope, actor_id, day, hours, first_second, last_second) \
     SELECT $1, value->>'s', value->>'a', CAST(value->>'b' AS BIGINT), \
     CAST(value->>'m' AS BIGINT), CAST(value->>'f' AS INTEGER), CAST(value->>'l' AS INTEGER) \
     FROM {rows} WHERE true \
     ON CONFLICT DO NOTHING RETURNING scope, actor_id, day, CAST(0 AS BIGINT)";

/// The update of a known day row by `excluded` (`ADD_DAYS`' columns): its new hours added,
/// its first and last seconds widened. A row from before the seconds were kept (null) stays
/// null: its seconds are unknown. `widen_day_if` is the condition: an unchanged row is not
/// written.
macro_rules! widen_day {
    () => {
        "hours = analytics_player_days.hours | excluded.hours, \
         first_second = CASE WHEN excluded.first_second < analytics_player_days.first_second \
           THEN excluded.first_second ELSE analytics_player_days.first_second END, \
         last_second = CASE WHEN excluded.last_second > analytics_player_days.last_second \
           THEN excluded.last_second ELSE analytics_player_days.last_second END"
    };
}

macro_rules! widen_day_if {
    () => {
        "(analytics_player_days.hours | excluded.hours) <> analytics_player_days.hours \
         OR excluded.first_second < analytics_player_days.first_second \
         OR excluded.last_second > analytics_player_days.last_second"
    };
}

/// Known days of the batch, widened (`widen_day`).
const WIDEN_DAYS: &str = concat!(
    "INSERT INTO analytics_player_days \
     (game_id, scope, actor_id, day, hours, first_second, last_second) \
     SELECT $1, value->>'s', value->>'a', CAST(value->>'b' AS BIGINT), \
     CAST(value->>'m' AS BIGINT), CAST(value->>'f' AS INTEGER), CAST(value->>'l' AS INTEGER) \
     FROM {rows} WHERE true \
     ON CONFLICT (game_id, scope, actor_id, day) DO UPDATE SET ",
    widen_day!(),
    " WHERE ",
    widen_day_if!()
);

/// The given (scope, player, day) rows that exist take the last second of the player's stored
/// row of the day before as their previous one (-1 without one, null when its seconds are
/// unknown), where it differs. Only rows found by key read the day before (most of the given
/// rows, the days after the batch's, do not exist).
const SET_PREVIOUS: &str = "UPDATE analytics_player_days SET previous_last_second = {previous} \
     WHERE game_id = $1 AND (scope, actor_id, day) IN (\
       SELECT value->>'s', value->>'a', CAST(value->>'b' AS BIGINT) FROM {rows}\
     ) AND previous_last_second IS DISTINCT FROM {previous}";

/// `SET_PREVIOUS` on PostgreSQL: the rows found by key first (`{rows} CROSS JOIN`, planned at
/// each run: see `Tx::fetch`), where a semi-join planned once per connection could be a hash
/// join over every day row of the game.
const SET_PREVIOUS_OF_STORED: &str = "UPDATE analytics_player_days \
     SET previous_last_second = {previous} WHERE game_id = $1 \
     AND (scope, actor_id, day) IN (SELECT d.scope, d.actor_id, d.day \
       FROM {rows} CROSS JOIN analytics_player_days d WHERE d.game_id = $1 \
       AND d.scope = value->>'s' AND d.actor_id = value->>'a' \
       AND d.day = CAST(value->>'b' AS BIGINT)\
     ) AND previous_last_second IS DISTINCT FROM {previous}";

/// `SET_PREVIOUS`' value for the row being updated.
const PREVIOUS_OF_ROW: &str = "(SELECT CASE WHEN last IS NULL THEN -1 WHEN last = -2 THEN NULL \
     ELSE last END FROM (SELECT (\
       SELECT COALESCE(o.last_second, -2) FROM analytics_player_days o \
       WHERE o.game_id = analytics_player_days.game_id \
       AND o.scope = analytics_player_days.scope AND o.actor_id = analytics_player_days.actor_id \
       AND o.day = analytics_player_days.day - 1\
     ) AS last) p)";

const ADD_ACTIVE: &str = "INSERT INTO analytics_active_users \
     (game_id, scope, span, bucket, shard, users) \
     SELECT $1, value->>'s', value->>'p', CAST(value->>'b' AS BIGINT), $3, \
     CAST(value->>'u' AS BIGINT) FROM {rows} WHERE true \
     ON CONFLICT (game_id, scope, span, bucket, shard) DO UPDATE SET \
     users = analytics_active_users.users + excluded.users";

const NEW_PLAYERS: &str = "INSERT INTO analytics_players \
     (game_id, scope, actor_id, first_day, last_day) \
     SELECT $1, value->>'s', value->>'a', CAST(value->>'f' AS BIGINT), \
     CAST(value->>'l' AS BIGINT) FROM {rows} WHERE true \
     ON CONFLICT DO NOTHING RETURNING scope, actor_id, first_day, last_day";

// The batch's rows come first (CROSS JOIN keeps that order on SQLite), so each looks its
// stored row up by key: SQLite cannot look rows up by the JSON values of an inner loop, and
// scanned the game's rows once per batch row otherwise.
const KNOWN_PLAYERS: &str = "SELECT p.scope, p.actor_id, p.first_day, p.last_day \
     FROM {rows} CROSS JOIN analytics_players p WHERE p.game_id = $1 \
     AND p.scope = value->>'s' AND p.actor_id = value->>'a' ORDER BY p.scope, p.actor_id{lock}";

const SET_PLAYERS: &str = "INSERT INTO analytics_players \
     (game_id, scope, actor_id, first_day, last_day) \
     SELECT $1, value->>'s', value->>'a', CAST(value->>'f' AS BIGINT), \
     CAST(value->>'l' AS BIGINT) FROM {rows} WHERE true \
     ON CONFLICT (game_id, scope, actor_id) DO UPDATE SET \
     first_day = excluded.first_day, last_day = excluded.last_day";

/// Every active day of the given players. No range on `day`: with one, PostgreSQL without
/// statistics on the table (before its first ANALYZE) took the (game, scope, day) index and
/// read every player's days of the range for each row (20 s a batch in a backfill of 1M
/// events); without it only the primary key (game, scope, player, day) can serve the look-up.
/// A player has a row per active day, and the caller reads only the days it needs.
const PLAYER_DAYS: &str = "SELECT d.scope, d.actor_id, d.day, CAST(0 AS BIGINT) \
     FROM {rows} CROSS JOIN analytics_player_days d WHERE d.game_id = $1 \
     AND d.scope = value->>'s' AND d.actor_id = value->>'a'";

const ADD_COHORTS: &str = "INSERT INTO analytics_cohorts \
     (game_id, scope, cohort_day, day_offset, shard, users) \
     SELECT $1, value->>'s', CAST(value->>'d' AS BIGINT), CAST(value->>'o' AS SMALLINT), $3, \
     CAST(value->>'u' AS BIGINT) FROM {rows} WHERE true \
     ON CONFLICT (game_id, scope, cohort_day, day_offset, shard) DO UPDATE SET \
     users = analytics_cohorts.users + excluded.users";

/// A session's first and last event times and reported length (milliseconds), inserted or
/// widened; of several `session_end` lengths the longest counts, whatever order they come
/// in. The row keeps what the day counts hold for it (`day`, `length_ms`) and, when it
/// changes, what they held before (`prev_day`, `prev_length_ms`: the old row's values, read
/// under the row's lock), so the counts move by the difference; an unchanged row is left
/// alone and not returned. A new row comes back with `prev_day` null.
pub(crate) const ADD_SESSIONS: &str = "INSERT INTO analytics_sessions \
     (game_id, scope, session_id, actor_id, first_ms, last_ms, reported_ms, day, length_ms) \
     SELECT $1, value->>'s', value->>'i', value->>'a', CAST(value->>'f' AS BIGINT), \
     CAST(value->>'l' AS BIGINT), CAST(value->>'r' AS BIGINT), CAST(value->>'d' AS BIGINT), \
     CAST(value->>'n' AS BIGINT) FROM {rows} WHERE true \
     ON CONFLICT (game_id, scope, session_id) DO UPDATE SET \
     first_ms = CASE WHEN excluded.first_ms < analytics_sessions.first_ms \
       THEN excluded.first_ms ELSE analytics_sessions.first_ms END, \
     last_ms = CASE WHEN excluded.last_ms > analytics_sessions.last_ms \
       THEN excluded.last_ms ELSE analytics_sessions.last_ms END, \
     reported_ms = CASE WHEN analytics_sessions.reported_ms IS NULL \
       OR excluded.reported_ms > analytics_sessions.reported_ms THEN excluded.reported_ms \
       ELSE analytics_sessions.reported_ms END, \
     day = CASE WHEN excluded.first_ms < analytics_sessions.first_ms \
       THEN excluded.first_ms ELSE analytics_sessions.first_ms END / 86400000, \
     length_ms = COALESCE(CASE WHEN analytics_sessions.reported_ms IS NULL \
       OR excluded.reported_ms > analytics_sessions.reported_ms THEN excluded.reported_ms \
       ELSE analytics_sessions.reported_ms END, \
       CASE WHEN excluded.last_ms > analytics_sessions.last_ms \
       THEN excluded.last_ms ELSE analytics_sessions.last_ms END \
       - CASE WHEN excluded.first_ms < analytics_sessions.first_ms \
       THEN excluded.first_ms ELSE analytics_sessions.first_ms END), \
     prev_day = analytics_sessions.day, prev_length_ms = analytics_sessions.length_ms \
     WHERE excluded.first_ms < analytics_sessions.first_ms \
     OR excluded.last_ms > analytics_sessions.last_ms \
     OR (excluded.reported_ms IS NOT NULL AND (analytics_sessions.reported_ms IS NULL \
       OR excluded.reported_ms > analytics_sessions.reported_ms)) \
     RETURNING scope, day, prev_day, length_ms, prev_length_ms";

/// What a session row held for the day counts: (scope, day, previous day, length, previous
/// length); no previous day for a new session.
type SessionChange = (String, i64, Option<i64>, i64, Option<i64>);

const ADD_SESSION_DAYS: &str = "INSERT INTO analytics_session_days \
     (game_id, scope, day, shard, sessions, length_ms) \
     SELECT $1, value->>'s', CAST(value->>'d' AS BIGINT), $3, CAST(value->>'n' AS BIGINT), \
     CAST(value->>'m' AS BIGINT) FROM {rows} WHERE true \
     ON CONFLICT (game_id, scope, day, shard) DO UPDATE SET \
     sessions = analytics_session_days.sessions + excluded.sessions, \
     length_ms = analytics_session_days.length_ms + excluded.length_ms";

/// The longest `session_end` `length` (seconds) taken as reported; a longer or negative one is
/// ignored and the session's length is the time from its first to its last event.
pub const MAX_REPORTED_SESSION_SECONDS: f64 = 7.0 * 86_400.0;

const PENDING_BACKFILL: &str = "SELECT 'backfill', 'backfill', boundary_ms, CAST(0 AS BIGINT) \
     FROM analytics_backfill WHERE game_id = $1";

#[derive(Serialize)]
struct CountRow<'a> {
    h: i64,
    e: &'a str,
    n: &'a str,
    c: i64,
    l: i64,
    r: f64,
}

/// A (scope, player, bucket) row with the bits of the bucket's parts the player is active in:
/// a day's hours (`m`, bit h for hour h) or an hour's minutes (bit m for minute m).
#[derive(Serialize)]
struct MaskRow<'a> {
    s: &'a str,
    a: &'a str,
    b: i64,
    m: i64,
}

/// A (scope, player, day) row with the bits of the day's hours the player is newly active in
/// (`m`) and the seconds of the day of its first and last event (`f`, `l`).
#[derive(Serialize)]
struct DayRow<'a> {
    s: &'a str,
    a: &'a str,
    b: i64,
    m: i64,
    f: i64,
    l: i64,
}

/// A (scope, player, bucket) row; as a range of days (`f`..=`l`) too.
#[derive(Serialize)]
struct PlayerRow<'a> {
    s: &'a str,
    a: &'a str,
    b: i64,
}

#[derive(Serialize)]
struct BucketRow<'a> {
    s: &'a str,
    p: &'a str,
    b: i64,
    u: i64,
}

#[derive(Serialize)]
struct FirstLastRow<'a> {
    s: &'a str,
    a: &'a str,
    f: i64,
    l: i64,
}

#[derive(Serialize)]
struct CohortRow<'a> {
    s: &'a str,
    d: i64,
    o: i64,
    u: i64,
}

/// A (scope, session) of the batch: its first and last event (`f`, `l`, epoch milliseconds),
/// the length its `session_end` reported (`r`), the day of `f` (`d`) and the length the day
/// counts take for it (`n`).
#[derive(Serialize)]
struct SessionRow<'a> {
    s: &'a str,
    i: &'a str,
    a: &'a str,
    f: i64,
    l: i64,
    r: Option<i64>,
    d: i64,
    n: i64,
}

/// Sessions started (`n`) and their length (`m`) to add to a (scope, day).
#[derive(Serialize)]
struct SessionDayRow<'a> {
    s: &'a str,
    d: i64,
    n: i64,
    m: i64,
}

pub(super) fn json<T: Serialize>(rows: &[T]) -> String {
    serde_json::to_string(rows).expect("aggregate rows serialize")
}

/// Adds `stored` (events just stored in `tx`) to the aggregates, in the writer's `shard`.
/// Events a pending backfill of their game will count (stored before the aggregates existed)
/// are left to it.
pub async fn add(tx: &mut Tx<'_>, stored: &[&events::Model], shard: i16) -> Result<(), DbErr> {
    let mut games: BTreeMap<Uuid, Vec<&events::Model>> = BTreeMap::new();
    for row in stored {
        games.entry(row.game_id).or_default().push(row);
    }
    for (game_id, mut rows) in games {
        // The event writer's statement locked the players (`lock_players_sql`).
        if let Tx::Postgres(connection) = tx {
            let new_days = match add_game_at_once(connection, game_id, &rows, shard).await? {
                AtOnce::Added(new_days) => new_days,
                AtOnce::BackfillPending(boundary_ms) => {
                    rows.retain(|row| !counted_by_backfill(row.id, boundary_ms));
                    add_game(tx, game_id, &rows, shard).await?;
                    continue;
                }
            };
            if !new_days.is_empty() {
                follow_players(tx, game_id, &new_days, shard).await?;
            }
            continue;
        }
        let pending = tx.fetch(PENDING_BACKFILL, game_id, None).await?;
        if let Some((_, _, boundary_ms, _)) = pending.first() {
            rows.retain(|row| !counted_by_backfill(row.id, *boundary_ms));
        }
        add_game(tx, game_id, &rows, shard).await?;
    }
    Ok(())
}

/// The hour counts, the player-hour and player-day rows and the distinct counts of one game's
/// rows as one PostgreSQL statement (data-modifying CTEs), so that a group commit makes one
/// round trip for them instead of five; only players with a new day need more (their first
/// days and cohorts, `follow_players`). Every part is guarded by the game having no pending
/// backfill: when it has one, nothing is written and its boundary comes back instead.
///
/// A day row gets the bits of the player's new hours that day (a new day has only new hours),
/// its first and last seconds widened, and the last second of the player's day before
/// (`previous_last_second`: the stored row's, widened by the batch's own row of that day, -1
/// without either, null when the stored row's seconds are unknown); a row none of these
/// changes is not written. The stored rows of the day after a batch's day that the batch has
/// not (`k`, from `day_rows`) go through the same upsert, each only when it exists, so that
/// they take the new last second as their previous one: every row is written by one sorted
/// statement, which reads the stored rows of the day before, and of the day after, by key: a
/// scalar subquery per row (no join for a generic plan to get wrong, and no `EXISTS`, which
/// PostgreSQL may run as one hashed pass over every day row of the game), served by the
/// primary key or by the (game, scope, day, player) index alike (migration 99: with the
/// player only INCLUDEd there, the plan made once per connection while the table was empty
/// read every row of the day for each look-up, and at 1M events of `scripts/bench-analytics`
/// ingest fell from thousands of events a second to 150). The players' locks
/// (`lock_players_sql`, taken by the statement that stored the events) keep another writer
/// from changing those rows between this statement's snapshot and its commit.
/// `xmax = 0` tells a row this statement inserted from one it widened: the upsert waits for a
/// concurrent writer's insert of the same row and then updates it, where a separate UPDATE
/// would not see that row in the statement's snapshot.
static AT_ONCE: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    let guarded = |sql: &str, rows: &str| {
        sql.replace("{rows}", &format!("json_array_elements({rows}::json)"))
            .replace(" WHERE true", " WHERE NOT EXISTS (SELECT 1 FROM pending)")
    };
    format!(
        "{}, sessions AS ({}), session_days AS ({}), progression AS ({}), \
         resources AS ({}) {AT_ONCE_RESULT}",
        AT_ONCE_PLAYERS
            .replace("{widen_day}", widen_day!())
            .replace("{widen_day_if}", widen_day_if!()),
        guarded(ADD_SESSIONS, "$6"),
        SESSION_DAYS_AT_ONCE,
        guarded(standard::ADD_PROGRESSION, "$7"),
        guarded(standard::ADD_RESOURCES, "$8"),
    )
});

/// The sessions' day counts from the rows `sessions` (`ADD_SESSIONS`) returned.
const SESSION_DAYS_AT_ONCE: &str = "INSERT INTO analytics_session_days \
     (game_id, scope, day, shard, sessions, length_ms) \
     SELECT $1, scope, day, $3, sum(n), sum(ms) FROM (\
       SELECT scope, day, 1 AS n, length_ms AS ms FROM sessions \
       UNION ALL SELECT scope, prev_day, -1, -prev_length_ms FROM sessions \
       WHERE prev_day IS NOT NULL\
     ) changes GROUP BY scope, day ORDER BY scope, day \
     ON CONFLICT (game_id, scope, day, shard) DO UPDATE SET \
     sessions = analytics_session_days.sessions + excluded.sessions, \
     length_ms = analytics_session_days.length_ms + excluded.length_ms";

const AT_ONCE_PLAYERS: &str = "WITH pending AS (\
       SELECT boundary_ms FROM analytics_backfill WHERE game_id = $1\
     ), counted AS (\
       INSERT INTO analytics_event_counts \
       (game_id, hour, environment, event_name, shard, events, log_errors, revenue) \
       SELECT $1, CAST(value->>'h' AS BIGINT), value->>'e', value->>'n', $3, \
       CAST(value->>'c' AS BIGINT), CAST(value->>'l' AS BIGINT), \
       CAST(value->>'r' AS DOUBLE PRECISION) FROM json_array_elements($2::json) \
       WHERE NOT EXISTS (SELECT 1 FROM pending) \
       ON CONFLICT (game_id, hour, environment, event_name, shard) DO UPDATE SET \
       events = analytics_event_counts.events + excluded.events, \
       log_errors = analytics_event_counts.log_errors + excluded.log_errors, \
       revenue = analytics_event_counts.revenue + excluded.revenue\
     ), new_hours AS (\
       INSERT INTO analytics_player_hours (game_id, scope, hour, actor_id, minutes) \
       SELECT $1, value->>'s', CAST(value->>'b' AS BIGINT), value->>'a', \
       CAST(value->>'m' AS BIGINT) \
       FROM json_array_elements($4::json) WHERE NOT EXISTS (SELECT 1 FROM pending) \
       ON CONFLICT (game_id, scope, hour, actor_id) DO UPDATE SET \
       minutes = analytics_player_hours.minutes | excluded.minutes \
       WHERE (analytics_player_hours.minutes | excluded.minutes) <> analytics_player_hours.minutes \
       RETURNING scope, actor_id, hour, xmax = 0 AS inserted\
     ), new_hour_bits AS (\
       SELECT scope, actor_id, hour / 24 AS day, \
       bit_or(CAST(1 AS BIGINT) << CAST(hour % 24 AS INTEGER)) AS hours \
       FROM new_hours WHERE inserted GROUP BY scope, actor_id, hour / 24\
     ), days AS (\
       INSERT INTO analytics_player_days \
       (game_id, scope, actor_id, day, hours, first_second, last_second, previous_last_second) \
       SELECT $1, d.s, d.a, d.b, COALESCE(n.hours, 0), d.f, d.l, \
       CASE WHEN o.last IS NULL THEN COALESCE(d.p, -1) WHEN o.last = -2 THEN NULL \
         ELSE GREATEST(o.last, COALESCE(d.p, -1)) END \
       FROM json_to_recordset($9::json) \
         AS d(s TEXT, a TEXT, b BIGINT, f INTEGER, l INTEGER, p INTEGER, k BOOLEAN) \
       CROSS JOIN LATERAL (SELECT (\
         SELECT COALESCE(o.last_second, -2) FROM analytics_player_days o WHERE o.game_id = $1 \
         AND o.scope = d.s AND o.actor_id = d.a AND o.day = d.b - 1\
       ) AS last) o \
       LEFT JOIN new_hour_bits n ON n.scope = d.s AND n.actor_id = d.a AND n.day = d.b \
       WHERE NOT EXISTS (SELECT 1 FROM pending) AND (NOT d.k OR (\
         SELECT true FROM analytics_player_days e WHERE e.game_id = $1 AND e.scope = d.s \
         AND e.actor_id = d.a AND e.day = d.b\
       )) ORDER BY d.s, d.a, d.b \
       ON CONFLICT (game_id, scope, actor_id, day) DO UPDATE SET {widen_day}, \
       previous_last_second = excluded.previous_last_second \
       WHERE {widen_day_if} OR excluded.previous_last_second \
         IS DISTINCT FROM analytics_player_days.previous_last_second \
       RETURNING scope, actor_id, day, xmax = 0 AS inserted\
     ), paying AS (\
       INSERT INTO analytics_paying_days (game_id, scope, actor_id, day) \
       SELECT $1, value->>'s', value->>'a', CAST(value->>'b' AS BIGINT) \
       FROM json_array_elements($5::json) WHERE NOT EXISTS (SELECT 1 FROM pending) \
       ON CONFLICT DO NOTHING RETURNING scope, day\
     ), active AS (\
       INSERT INTO analytics_active_users (game_id, scope, span, bucket, shard, users) \
       SELECT $1, scope, span, bucket, $3, users FROM (\
         SELECT scope, 'hour' AS span, hour AS bucket, count(*) AS users FROM new_hours WHERE inserted GROUP BY scope, hour \
         UNION ALL SELECT scope, 'day', day, count(*) FROM days WHERE inserted GROUP BY scope, day \
         UNION ALL SELECT scope, 'paying_day', day, count(*) FROM paying GROUP BY scope, day\
       ) buckets ORDER BY scope, span, bucket \
       ON CONFLICT (game_id, scope, span, bucket, shard) DO UPDATE SET \
       users = analytics_active_users.users + excluded.users\
     )";

const AT_ONCE_RESULT: &str = "SELECT 'backfill', 'backfill', boundary_ms, CAST(1 AS BIGINT) \
     FROM pending UNION ALL SELECT scope, actor_id, day, CAST(0 AS BIGINT) FROM days \
     WHERE inserted";

enum AtOnce {
    /// The (scope, player, day) rows that were new.
    Added(Vec<Row>),
    /// Nothing was written: the game's backfill, with this boundary, is still to finish.
    BackfillPending(i64),
}

async fn add_game_at_once(
    connection: &mut sea_orm::sqlx::PgConnection,
    game_id: Uuid,
    rows: &[&events::Model],
    shard: i16,
) -> Result<AtOnce, DbErr> {
    let grouped = group(rows);
    let found = sea_orm::sqlx::query_as::<_, Row>(AT_ONCE.as_str())
        .bind(game_id)
        .bind(json(&grouped.counts))
        .bind(shard)
        .bind(json(&grouped.hours))
        .bind(json(&grouped.paying))
        .bind(json(&grouped.sessions))
        .bind(json(&grouped.standard.progression))
        .bind(json(&grouped.standard.resources))
        .bind(json(&day_rows(&grouped.days)))
        .fetch_all(&mut *connection)
        .await
        .map_err(crate::store::pg::db_error)?;
    if let Some((_, _, boundary_ms, _)) = found.iter().find(|row| row.3 == 1) {
        return Ok(AtOnce::BackfillPending(*boundary_ms));
    }
    Ok(AtOnce::Added(found))
}

/// A (scope, player, day) row of `AT_ONCE`'s upsert: one of the batch's, with the seconds of
/// the day of its first and last event (`f`, `l`), or (`k`) a stored row of the day after one
/// of the batch's days, which only takes a new previous last second. `p` is the last second
/// of the batch's own row of the day before, if it has one.
#[derive(Serialize)]
struct AtOnceDayRow<'a> {
    s: &'a str,
    a: &'a str,
    b: i64,
    f: Option<i64>,
    l: Option<i64>,
    p: Option<i64>,
    k: bool,
}

/// The batch's (scope, player, day) rows, and the days after them that it has not (`k`); the
/// new hours' bits are left to the statement.
fn day_rows<'a>(days: &BTreeMap<(&'a str, &'a str, i64), (i64, i64)>) -> Vec<AtOnceDayRow<'a>> {
    let last_of = |s, a, b| days.get(&(s, a, b)).map(|&(_, l)| l);
    let mut rows = Vec::with_capacity(days.len() + days.len() / 2);
    for (&(s, a, b), &(f, l)) in days {
        rows.push(AtOnceDayRow {
            s,
            a,
            b,
            f: Some(f),
            l: Some(l),
            p: last_of(s, a, b - 1),
            k: false,
        });
        if !days.contains_key(&(s, a, b + 1)) {
            rows.push(AtOnceDayRow {
                s,
                a,
                b: b + 1,
                f: None,
                l: None,
                p: Some(l),
                k: true,
            });
        }
    }
    rows
}

/// The statement that locks the players `player` of game `game` (SQL expressions over the rows
/// of `source`), in the order of their keys, and returns how many it locked.
pub fn lock_players_sql(game: &str, player: &str, source: &str) -> String {
    format!(
        "SELECT CAST(count(pg_advisory_xact_lock(k)) AS BIGINT) AS locks FROM (\
           SELECT DISTINCT hashtextextended(CAST({game} AS TEXT) || ':' || {player}, 0) AS k \
           FROM {source} ORDER BY k OFFSET 0\
         ) players"
    )
}

/// Takes the lock of each of the game's `players` (PostgreSQL: an advisory lock on the game and
/// player, held to the end of the transaction, taken in one order by every writer) before
/// their day rows are read and written. A day row holds the last second of the day before,
/// so a writer that changes a day and one that inserts the day after must not both work from
/// a snapshot without the other's change: they take turns instead. The event writer takes
/// the same locks in the statement that stores the events (`lock_players_sql`); this is for
/// the other writers (the backfill, a game whose backfill is pending, a player's erasure).
pub(crate) async fn lock_players(
    tx: &mut Tx<'_>,
    game_id: Uuid,
    players: impl IntoIterator<Item = &str>,
) -> Result<(), DbErr> {
    if !tx.postgres() {
        return Ok(()); // SQLite has one writer at a time.
    }
    let players: BTreeSet<&str> = players.into_iter().collect();
    tx.execute(
        &lock_players_sql("$1", "value", "json_array_elements_text($2::json)"),
        game_id,
        &json(&players.into_iter().collect::<Vec<_>>()),
        None,
    )
    .await
}

/// Whether an event's id (UUIDv7: its first 48 bits are its creation time in milliseconds)
/// was made at or before the backfill boundary.
pub fn counted_by_backfill(id: Uuid, boundary_ms: i64) -> bool {
    let created_ms = (id.as_u128() >> 80) as i64;
    created_ms <= boundary_ms
}

/// Adds one game's stored events.
pub async fn add_game(
    tx: &mut Tx<'_>,
    game_id: Uuid,
    rows: &[&events::Model],
    shard: i16,
) -> Result<(), DbErr> {
    if rows.is_empty() {
        return Ok(());
    }
    lock_players(tx, game_id, rows.iter().map(|row| row.actor_id.as_str())).await?;
    let Grouped {
        counts,
        hours,
        days,
        paying,
        sessions,
        standard,
    } = group(rows);
    tx.execute(ADD_COUNTS, game_id, &json(&counts), Some(shard))
        .await?;
    standard::add(tx, game_id, &standard, shard).await?;
    let changes: Vec<SessionChange> = tx
        .fetch_as(ADD_SESSIONS, game_id, Some(&json(&sessions)))
        .await?;
    add_session_days(tx, game_id, &changes, shard).await?;
    let new_hours = tx.fetch(ADD_HOURS, game_id, Some(&json(&hours))).await?;
    add_active(tx, game_id, "hour", &new_hours, shard).await?;
    let new_hour_keys: BTreeSet<(&str, &str, i64)> = new_hours
        .iter()
        .map(|(scope, actor, hour, _)| (scope.as_str(), actor.as_str(), *hour))
        .collect();
    let known_hours: Vec<&MaskRow> = hours
        .iter()
        .filter(|row| !new_hour_keys.contains(&(row.s, row.a, row.b)))
        .collect();
    if !known_hours.is_empty() {
        tx.execute(OR_MINUTES, game_id, &json(&known_hours), None)
            .await?;
    }
    if !paying.is_empty() {
        let new_paying = tx.fetch(ADD_PAYING, game_id, Some(&json(&paying))).await?;
        add_active(tx, game_id, PAYING_DAY, &new_paying, shard).await?;
    }

    // The hours each (scope, player, day) is newly active in, as bits of its day row: a new
    // day is inserted with them, a known one has them added.
    let mut masks: BTreeMap<(&str, &str, i64), i64> = BTreeMap::new();
    for (scope, actor, hour, _) in &new_hours {
        *masks
            .entry((scope, actor, hour.div_euclid(HOURS_PER_DAY)))
            .or_default() |= 1 << hour.rem_euclid(HOURS_PER_DAY);
    }
    let days: Vec<DayRow> = days
        .into_iter()
        .map(|((s, a, b), (f, l))| DayRow {
            s,
            a,
            b,
            m: masks.get(&(s, a, b)).copied().unwrap_or(0),
            f,
            l,
        })
        .collect();
    let new_days = tx.fetch(ADD_DAYS, game_id, Some(&json(&days))).await?;
    add_active(tx, game_id, "day", &new_days, shard).await?;
    let inserted: BTreeSet<(&str, &str, i64)> = new_days
        .iter()
        .map(|(scope, actor, day, _)| (scope.as_str(), actor.as_str(), *day))
        .collect();
    let known_days: Vec<&DayRow> = days
        .iter()
        .filter(|row| !inserted.contains(&(row.s, row.a, row.b)))
        .collect();
    if !known_days.is_empty() {
        tx.execute(WIDEN_DAYS, game_id, &json(&known_days), None)
            .await?;
    }
    // The previous day's last second of the new rows, and of the stored days after the
    // batch's days (whose last second may have grown).
    let mut following: BTreeSet<(&str, &str, i64)> = inserted.clone();
    following.extend(days.iter().map(|row| (row.s, row.a, row.b + 1)));
    let following: Vec<PlayerRow> = following
        .into_iter()
        .map(|(s, a, b)| PlayerRow { s, a, b })
        .collect();
    let set_previous = if tx.postgres() {
        SET_PREVIOUS_OF_STORED
    } else {
        SET_PREVIOUS
    };
    tx.fetch(
        &set_previous.replace("{previous}", PREVIOUS_OF_ROW),
        game_id,
        Some(&json(&following)),
    )
    .await?;
    if !new_days.is_empty() {
        follow_players(tx, game_id, &new_days, shard).await?;
    }
    Ok(())
}

/// One game's rows as the aggregates key them.
struct Grouped<'a> {
    counts: Vec<CountRow<'a>>,
    /// (scope, hour, player) with the minutes of the hour, sorted.
    hours: Vec<MaskRow<'a>>,
    /// (scope, player, day), sorted, with the seconds of the day of its first and last event.
    days: BTreeMap<(&'a str, &'a str, i64), (i64, i64)>,
    /// (scope, player, day) of purchases, sorted.
    paying: Vec<PlayerRow<'a>>,
    /// (scope, session), sorted.
    sessions: Vec<SessionRow<'a>>,
    /// Progression steps and resource flows.
    standard: standard::StandardRows<'a>,
}

/// One game's rows grouped as the aggregates key them: the hour counts, and the sorted
/// (scope, hour, player) and (scope, player, day) keys, each player in its environment and in
/// `all`.
fn group<'a>(rows: &[&'a events::Model]) -> Grouped<'a> {
    let mut counts: BTreeMap<(i64, &str, &str), (i64, i64, f64)> = BTreeMap::new();
    let mut hours: BTreeMap<(&str, i64, &str), i64> = BTreeMap::new();
    let mut days: BTreeMap<(&str, &str, i64), (i64, i64)> = BTreeMap::new();
    let mut paying: BTreeSet<(&str, &str, i64)> = BTreeSet::new();
    let mut sessions: BTreeMap<(&str, &str), Session> = BTreeMap::new();
    for row in rows {
        let hour = hour_of(row.occurred_at);
        let day = day_of(row.occurred_at);
        let minute_bit = 1i64 << row.occurred_at.timestamp().div_euclid(60).rem_euclid(60);
        let second = row.occurred_at.timestamp().rem_euclid(SECONDS_PER_DAY);
        let count = counts
            .entry((hour, &row.environment, &row.event_name))
            .or_insert((0, 0, 0.0));
        count.0 += 1;
        if row.event_name == "log" && matches!(row.log_level.as_deref(), Some("error" | "warning"))
        {
            count.1 += 1;
        }
        if row.event_name == "purchase" {
            count.2 += row.revenue_amount.unwrap_or(0.0);
        }
        for scope in [row.environment.as_str(), ALL_ENVIRONMENTS] {
            *hours.entry((scope, hour, &row.actor_id)).or_default() |= minute_bit;
            let seconds = days
                .entry((scope, &row.actor_id, day))
                .or_insert((second, second));
            *seconds = (seconds.0.min(second), seconds.1.max(second));
            if row.event_name == "purchase" {
                paying.insert((scope, &row.actor_id, day));
            }
            sessions
                .entry((scope, &row.session_id))
                .or_insert_with(|| Session::of(row))
                .add(row);
        }
    }
    let counts: Vec<CountRow> = counts
        .into_iter()
        .map(|((h, e, n), (c, l, r))| CountRow { h, e, n, c, l, r })
        .collect();
    let hours: Vec<MaskRow> = hours
        .into_iter()
        .map(|((s, b, a), m)| MaskRow { s, a, b, m })
        .collect();
    let paying: Vec<PlayerRow> = paying
        .into_iter()
        .map(|(s, a, b)| PlayerRow { s, a, b })
        .collect();
    let sessions = sessions
        .into_iter()
        .map(|((s, i), session)| session.row(s, i))
        .collect();
    Grouped {
        counts,
        hours,
        days,
        paying,
        sessions,
        standard: standard::group(rows),
    }
}

/// One session's events in a batch.
struct Session<'a> {
    actor: &'a str,
    first_ms: i64,
    last_ms: i64,
    /// The longest usable `length` of its `session_end` events, in ms.
    reported: Option<i64>,
}

impl<'a> Session<'a> {
    fn of(row: &'a events::Model) -> Self {
        let at = row.occurred_at.timestamp_millis();
        Self {
            actor: &row.actor_id,
            first_ms: at,
            last_ms: at,
            reported: None,
        }
    }

    fn add(&mut self, row: &events::Model) {
        let at = row.occurred_at.timestamp_millis();
        self.first_ms = self.first_ms.min(at);
        self.last_ms = self.last_ms.max(at);
        if let Some(length_ms) = reported_length_ms(row) {
            self.reported = self.reported.max(Some(length_ms));
        }
    }

    fn row(self, s: &'a str, i: &'a str) -> SessionRow<'a> {
        let r = self.reported;
        SessionRow {
            s,
            i,
            a: self.actor,
            f: self.first_ms,
            l: self.last_ms,
            r,
            d: self.first_ms.div_euclid(SECONDS_PER_DAY * 1_000),
            n: r.unwrap_or(self.last_ms - self.first_ms),
        }
    }
}

/// A `session_end` event's `properties.length` (seconds, 0 to a week) in milliseconds.
fn reported_length_ms(row: &events::Model) -> Option<i64> {
    if row.event_name != "session_end" {
        return None;
    }
    let seconds = row.properties.get("length")?.as_f64()?;
    (0.0..=MAX_REPORTED_SESSION_SECONDS)
        .contains(&seconds)
        .then(|| (seconds * 1_000.0).round() as i64)
}

/// Moves the day counts of sessions by what their rows' change made of them: a new session
/// adds one and its length to its day; a changed one takes its old length off (and itself,
/// from the day it left) and adds the new.
async fn add_session_days(
    tx: &mut Tx<'_>,
    game_id: Uuid,
    changes: &[SessionChange],
    shard: i16,
) -> Result<(), DbErr> {
    let mut days: BTreeMap<(&str, i64), (i64, i64)> = BTreeMap::new();
    for (scope, day, prev_day, length_ms, prev_length_ms) in changes {
        let counts = days.entry((scope, *day)).or_default();
        counts.0 += 1;
        counts.1 += length_ms;
        if let Some(prev_day) = prev_day {
            let counts = days.entry((scope, *prev_day)).or_default();
            counts.0 -= 1;
            counts.1 -= prev_length_ms.unwrap_or(0);
        }
    }
    let rows: Vec<SessionDayRow> = days
        .into_iter()
        .filter(|(_, counts)| *counts != (0, 0))
        .map(|((s, d), (n, m))| SessionDayRow { s, d, n, m })
        .collect();
    if rows.is_empty() {
        return Ok(());
    }
    tx.execute(ADD_SESSION_DAYS, game_id, &json(&rows), Some(shard))
        .await
}

/// Adds the new (scope, player, bucket) rows to the distinct counts of their buckets.
async fn add_active(
    tx: &mut Tx<'_>,
    game_id: Uuid,
    span: &str,
    new: &[Row],
    shard: i16,
) -> Result<(), DbErr> {
    let mut users: BTreeMap<(&str, i64), i64> = BTreeMap::new();
    for (scope, _, bucket, _) in new {
        *users.entry((scope, *bucket)).or_default() += 1;
    }
    if users.is_empty() {
        return Ok(());
    }
    let rows: Vec<BucketRow> = users
        .into_iter()
        .map(|((s, b), u)| BucketRow { s, p: span, b, u })
        .collect();
    tx.execute(ADD_ACTIVE, game_id, &json(&rows), Some(shard))
        .await
}

/// Moves the first and last days of the players with new days, and the cohorts with them.
async fn follow_players(
    tx: &mut Tx<'_>,
    game_id: Uuid,
    new_days: &[Row],
    shard: i16,
) -> Result<(), DbErr> {
    let mut players: BTreeMap<(&str, &str), Vec<i64>> = BTreeMap::new();
    for (scope, actor, day, _) in new_days {
        players.entry((scope, actor)).or_default().push(*day);
    }
    let firsts: Vec<FirstLastRow> = players
        .iter()
        .map(|((s, a), days)| FirstLastRow {
            s,
            a,
            f: *days.iter().min().expect("a player here has a new day"),
            l: *days.iter().max().expect("a player here has a new day"),
        })
        .collect();
    let inserted = tx.fetch(NEW_PLAYERS, game_id, Some(&json(&firsts))).await?;
    let inserted: BTreeSet<(&str, &str)> = inserted
        .iter()
        .map(|(scope, actor, _, _)| (scope.as_str(), actor.as_str()))
        .collect();
    let mut cohorts: BTreeMap<(String, i64, i64), i64> = BTreeMap::new();
    let mut add = |scope: &str, cohort: i64, offset: i64, users: i64| {
        *cohorts
            .entry((scope.to_string(), cohort, offset))
            .or_default() += users;
    };
    // A new player: its first day's cohort, and its other new days as returns.
    for ((scope, actor), days) in &players {
        if inserted.contains(&(*scope, *actor)) {
            let first = *days.iter().min().expect("a player here has a new day");
            add(scope, first, 0, 1);
            for day in days {
                if (1..=MAX_RETURN_DAY).contains(&(day - first)) {
                    add(scope, first, day - first, 1);
                }
            }
        }
    }
    let known: Vec<&FirstLastRow> = firsts
        .iter()
        .filter(|row| !inserted.contains(&(row.s, row.a)))
        .collect();
    if known.is_empty() {
        return write_cohorts(tx, game_id, cohorts, shard).await;
    }
    let stored = tx
        .fetch(KNOWN_PLAYERS, game_id, Some(&json(&known)))
        .await?;
    let mut changed: Vec<FirstLastRow> = Vec::new();
    let mut moved: Vec<(FirstLastRow, i64)> = Vec::new();
    for (scope, actor, first, last) in &stored {
        let days = &players[&(scope.as_str(), actor.as_str())];
        let earliest = *days.iter().min().expect("a player here has a new day");
        let latest = *days.iter().max().expect("a player here has a new day");
        let row = FirstLastRow {
            s: scope,
            a: actor,
            f: earliest.min(*first),
            l: latest.max(*last),
        };
        if row.f < *first {
            // The first day moved earlier: recount from the player's days (below).
            moved.push((row, *first));
            continue;
        }
        for day in days {
            if (1..=MAX_RETURN_DAY).contains(&(day - first)) {
                add(scope, *first, day - first, 1);
            }
        }
        if row.l != *last {
            changed.push(row);
        }
    }
    if !moved.is_empty() {
        // The days of these players (those from the new first day to 30 days after the old
        // one are read below), the new days included (this transaction inserted them).
        let ranges: Vec<FirstLastRow> = moved
            .iter()
            .map(|(row, old_first)| FirstLastRow {
                s: row.s,
                a: row.a,
                f: row.f,
                l: old_first + MAX_RETURN_DAY,
            })
            .collect();
        let all_days = tx.fetch(PLAYER_DAYS, game_id, Some(&json(&ranges))).await?;
        let mut by_player: BTreeMap<(&str, &str), BTreeSet<i64>> = BTreeMap::new();
        for (scope, actor, day, _) in &all_days {
            by_player.entry((scope, actor)).or_default().insert(*day);
        }
        for (row, old_first) in moved {
            let new_here = &players[&(row.s, row.a)];
            let days = by_player.remove(&(row.s, row.a)).unwrap_or_default();
            add(row.s, old_first, 0, -1);
            add(row.s, row.f, 0, 1);
            for offset in 1..=MAX_RETURN_DAY {
                let before = old_first + offset;
                if days.contains(&before) && !new_here.contains(&before) {
                    add(row.s, old_first, offset, -1);
                }
                if days.contains(&(row.f + offset)) {
                    add(row.s, row.f, offset, 1);
                }
            }
            changed.push(row);
        }
    }
    if !changed.is_empty() {
        changed.sort_by(|a, b| (a.s, a.a).cmp(&(b.s, b.a)));
        tx.execute(SET_PLAYERS, game_id, &json(&changed), None)
            .await?;
    }
    write_cohorts(tx, game_id, cohorts, shard).await
}

async fn write_cohorts(
    tx: &mut Tx<'_>,
    game_id: Uuid,
    cohorts: BTreeMap<(String, i64, i64), i64>,
    shard: i16,
) -> Result<(), DbErr> {
    let rows: Vec<CohortRow> = cohorts
        .iter()
        .filter(|(_, users)| **users != 0)
        .map(|((s, d, o), u)| CohortRow {
            s,
            d: *d,
            o: *o,
            u: *u,
        })
        .collect();
    if rows.is_empty() {
        return Ok(());
    }
    tx.execute(ADD_COHORTS, game_id, &json(&rows), Some(shard))
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_backfill_boundary_compares_an_ids_creation_time() {
        let id = Uuid::now_v7();
        let created_ms = chrono::Utc::now().timestamp_millis();
        assert!(counted_by_backfill(id, created_ms + 1_000));
        assert!(!counted_by_backfill(id, created_ms - 1_000));
    }
}
