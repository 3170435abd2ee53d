//! Metrics read from the aggregates kept at ingest (`crate::aggregates`): hour counts for
//! events, crashes, log errors and revenue; hour and day distinct counts for active users;
//! cohort counters for retention. Each read touches the rows of the buckets it answers.
use super::{
    raw::scope_filter,
    service::{at, Buckets, Metric, Pieces, Point, Scope},
};
use crate::{
    aggregates::{scope_of, HOURS_PER_DAY, SECONDS_PER_DAY, SECONDS_PER_HOUR},
    query::{epoch_seconds, Params},
};
use chrono::{DateTime, Utc};
use sea_orm::{
    ConnectionTrait, DatabaseBackend, DbErr, QueryResult, Statement, TransactionSession,
    TransactionTrait,
};

/// The most buckets whose indices fit as bits of one BIGINT (a month's window by day is 32).
const MAX_BUCKET_BITS: usize = 62;

/// The distinct-count span buckets line up with: `day` for day buckets starting at midnight,
/// `hour` for hour buckets starting on the hour.
pub fn span_of(buckets: Buckets) -> Option<(&'static str, i64)> {
    let start = buckets.start.timestamp();
    [("day", SECONDS_PER_DAY), ("hour", SECONDS_PER_HOUR)]
        .into_iter()
        .find(|(_, seconds)| buckets.seconds == *seconds && start % seconds == 0)
}

/// `hour` (a column of whole hours) inside one of `hours`, as SQL.
fn hours_filter(hours: &[(i64, i64)], p: &mut Params) -> String {
    hours
        .iter()
        .map(|(first, end)| format!("(hour >= {} AND hour < {})", p.bind(*first), p.bind(*end)))
        .collect::<Vec<_>>()
        .join(" OR ")
}

async fn query(
    db: &impl ConnectionTrait,
    sql: String,
    p: Params,
) -> Result<Vec<QueryResult>, DbErr> {
    db.query_all_raw(Statement::from_sql_and_values(
        db.get_database_backend(),
        sql,
        p.0,
    ))
    .await
}

/// `by_seconds`' statement on PostgreSQL, planned so that it reads the window's day rows
/// through the (game, scope, day) index (`analytics_player_days_by_day_seconds`) whatever the
/// table's statistics say: the statement looks the rows up one day at a time (a lateral
/// subquery per day of the window, kept apart by `OFFSET 0`), which the primary key (game,
/// scope, player, day) could only answer by reading every player's days once per day, and
/// the transaction turns sequential and bitmap scans off for itself alone (`SET LOCAL`).
/// Read as one range of days, the planner took a parallel sequential scan of the whole table
/// or the primary key whenever the visibility map made the index look dear (pages updated
/// since the last vacuum, as they are all day): 94-142 ms at 10M events, where the read
/// through the index took 50-63 ms on the same machine, a cost that follows the window, not
/// the game's history.
async fn query_by_day_index(
    db: &(impl ConnectionTrait + TransactionTrait),
    sql: String,
    p: Params,
) -> Result<Vec<QueryResult>, DbErr> {
    let txn = db.begin().await?;
    txn.execute_unprepared("SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off")
        .await?;
    let rows = query(&txn, sql, p).await?;
    txn.commit().await?;
    Ok(rows)
}

/// Rows of (`bucket`, `value`) into one point per bucket, 0 where there is no row.
fn points(rows: Vec<QueryResult>, count: usize) -> Result<Vec<Point>, DbErr> {
    let mut points = vec![Point::count(0.0); count];
    for row in rows {
        let bucket: i64 = row.try_get("", "bucket")?;
        let value: Option<f64> = row.try_get("", "value")?;
        if let Some(point) = usize::try_from(bucket).ok().and_then(|b| points.get_mut(b)) {
            point.value = Some(value.unwrap_or(0.0));
        }
    }
    Ok(points)
}

/// A count or revenue metric per bucket over the whole hours `hours`.
pub async fn counts(
    db: &impl ConnectionTrait,
    scope: &Scope,
    metric: Metric,
    buckets: Buckets,
    hours: &[(i64, i64)],
) -> Result<Vec<Point>, DbErr> {
    if hours.is_empty() {
        return Ok(vec![Point::count(0.0); buckets.count]);
    }
    let (name, column) = match metric {
        Metric::Events => (None, "events"),
        Metric::Crashes => (Some("crash"), "events"),
        Metric::LogErrors => (Some("log"), "log_errors"),
        Metric::Revenue => (Some("purchase"), "revenue"),
        _ => unreachable!("only counts and sums are summed over hours"),
    };
    let mut p = Params::default();
    let game = p.bind(scope.game_id);
    let start = p.bind(buckets.start.timestamp());
    let size = p.bind(buckets.seconds);
    let within = hours_filter(hours, &mut p);
    let mut filter = String::new();
    if let Some(environment) = &scope.environment {
        filter.push_str(&format!(
            " AND environment = {}",
            p.bind(environment.clone())
        ));
    }
    if let Some(name) = name
        .map(str::to_string)
        .or_else(|| scope.event_name.clone())
    {
        filter.push_str(&format!(" AND event_name = {}", p.bind(name)));
    }
    let sql = format!(
        "SELECT (hour * {SECONDS_PER_HOUR} - {start}) / {size} AS bucket, \
         CAST(SUM({column}) AS DOUBLE PRECISION) AS value FROM analytics_event_counts \
         WHERE game_id = {game} AND ({within}){filter} GROUP BY 1"
    );
    points(query(db, sql, p).await?, buckets.count)
}

/// Distinct active users per bucket from the counts of the span the buckets line up with.
pub async fn active_users(
    db: &impl ConnectionTrait,
    scope: &Scope,
    buckets: Buckets,
    (span, span_seconds): (&str, i64),
) -> Result<Vec<Point>, DbErr> {
    let mut p = Params::default();
    let game = p.bind(scope.game_id);
    let scope_name = p.bind(scope_of(scope.environment.as_deref()).to_string());
    let span = p.bind(span.to_string());
    let start = p.bind(buckets.start.timestamp());
    let size = p.bind(buckets.seconds);
    let first = p.bind(buckets.start.timestamp() / span_seconds);
    let end = p.bind(buckets.end().timestamp() / span_seconds);
    let sql = format!(
        "SELECT (bucket * {span_seconds} - {start}) / {size} AS bucket, \
         CAST(SUM(users) AS DOUBLE PRECISION) AS value FROM analytics_active_users \
         WHERE game_id = {game} AND scope = {scope_name} AND span = {span} \
         AND bucket >= {first} AND bucket < {end} GROUP BY 1"
    );
    points(query(db, sql, p).await?, buckets.count)
}

/// Distinct active users per bucket when buckets do not line up with days (an alert's
/// window ending now): the players active in each bucket's whole hours, read from their day
/// rows (a row per player and day, with the bits of the hours it was active in); in the parts
/// of an hour at the buckets' edges, from their hour rows (with the bits of the minutes they
/// were active in); and in the part of a minute at an edge, from that minute's events. The
/// cost is the players' days in the range, never their events beyond the few minutes an edge
/// splits.
pub async fn active_users_unaligned(
    db: &(impl ConnectionTrait + TransactionTrait),
    scope: &Scope,
    buckets: Buckets,
) -> Result<Vec<Point>, DbErr> {
    let scope_name = scope_of(scope.environment.as_deref()).to_string();
    if by_seconds_applies(buckets) && !days_without_seconds(db, scope, &scope_name, buckets).await?
    {
        let backend = db.get_database_backend();
        let read = |sql, p| async move {
            match backend {
                DatabaseBackend::Postgres => query_by_day_index(db, sql, p).await,
                _ => query(db, sql, p).await,
            }
        };
        let mut p = Params::default();
        let sql = day_edges(backend, scope, &scope_name, buckets, &mut p);
        if let Some(points) = points_of_edges(read(sql, p).await?, buckets)? {
            return Ok(points);
        }
        let mut p = Params::default();
        let sql = by_seconds(backend, scope, &scope_name, buckets, &mut p);
        return points(read(sql, p).await?, buckets.count);
    }
    let mut edges = Vec::new();
    for (from, to) in Pieces::of(buckets).partial {
        // Each within one hour (a bucket shorter than an hour may cross one).
        let (mut from, to) = (from.timestamp(), to.timestamp());
        while from < to {
            let hour_end = (from.div_euclid(SECONDS_PER_HOUR) + 1) * SECONDS_PER_HOUR;
            edges.push(Edge::of(buckets, from, hour_end.min(to)));
            from = hour_end.min(to);
        }
    }
    // Hours whose rows predate the minutes (kept since migration 95): their edges are read
    // from the events, as before.
    let unknown = hours_without_minutes(db, scope.game_id, &scope_name, &edges).await?;
    let backend = db.get_database_backend();
    let mut p = Params::default();
    let positions = match buckets.count <= MAX_BUCKET_BITS {
        true => day_positions(buckets, &day_windows(buckets, &edges)),
        false => None,
    };
    let reads = EdgeReads::of(&edges, &unknown);
    let sql = match positions {
        Some(positions) => by_bits(
            backend,
            scope,
            &scope_name,
            buckets,
            &positions,
            reads,
            &mut p,
        ),
        None => by_distinct_count(backend, scope, &scope_name, buckets, reads, &mut p),
    };
    match sql {
        Some(sql) => points(query(db, sql, p).await?, buckets.count),
        None => Ok(vec![Point::count(0.0); buckets.count]),
    }
}

/// The (bucket, day, bits of that day's hours) windows of the buckets' whole hours, and the
/// first and last day they fall in.
fn whole_hour_windows(buckets: Buckets) -> (Vec<(i64, i64, i64)>, i64, i64) {
    let mut windows = Vec::new();
    let (mut first_day, mut last_day) = (i64::MAX, i64::MIN);
    for index in 0..buckets.count {
        for (day, mask) in day_hours(buckets, index) {
            first_day = first_day.min(day);
            last_day = last_day.max(day);
            windows.push((index as i64, day, mask));
        }
    }
    (windows, first_day, last_day)
}

/// How the edges are read: the (bucket, hour, minute bits) of the hour rows' minutes, and
/// the time ranges read from the events (the split minutes' seconds, and whole edges whose
/// hour has no minutes).
struct EdgeReads {
    splits: Vec<(i64, i64, i64)>,
    raw: Vec<(DateTime<Utc>, DateTime<Utc>)>,
}

impl EdgeReads {
    fn of(edges: &[Edge], unknown: &[i64]) -> Self {
        let mut reads = EdgeReads {
            splits: Vec::new(),
            raw: Vec::new(),
        };
        for edge in edges {
            if unknown.contains(&edge.hour) {
                reads.raw.push((at(edge.from), at(edge.to)));
                continue;
            }
            if edge.minutes != 0 {
                reads.splits.push((edge.bucket, edge.hour, edge.minutes));
            }
            reads
                .raw
                .extend(edge.seconds.iter().map(|(from, to)| (at(*from), at(*to))));
        }
        reads
    }
}

/// Day buckets of at most 62 (`positions`, from `day_positions`). The players each bucket
/// holds, as the bits of one number per player, then the players per bit: the grouping hashes
/// each player once, where a distinct count per bucket would sort every (bucket, player) pair (half the time on PostgreSQL). SQLite has no `bit_or`; the sum
/// of distinct powers of two is the same number.
///
/// A player's day rows settle most buckets: one whole hour of the bucket active is enough. The
/// edges' hour rows and split minutes' events are read only for the players that day rows
/// leave unsure (active in an edge's hour, in no whole hour of that bucket), so their cost
/// stays that of the few players seen only at a window's edge, however busy its hours are.
fn by_bits(
    backend: DatabaseBackend,
    scope: &Scope,
    scope_name: &str,
    buckets: Buckets,
    positions: &[(i64, i64, i64)],
    reads: EdgeReads,
    p: &mut Params,
) -> Option<String> {
    let (first_k, last_k) = match (positions.first(), positions.last()) {
        (Some(first), Some(last)) => (first.0, last.0),
        _ => return None,
    };
    let first_day = buckets.start.timestamp().div_euclid(SECONDS_PER_DAY);
    let game = p.bind(scope.game_id);
    let start = p.bind(buckets.start.timestamp());
    let size = p.bind(buckets.seconds);
    let scope_sql = p.bind(scope_name.to_string());
    let or = |expression: String| match backend {
        DatabaseBackend::Postgres => format!("bit_or({expression})"),
        _ => format!("SUM(DISTINCT {expression})"),
    };
    // A bucket's k-th day is a different day for every bucket, so the bits one position gives
    // a player are one per day row and their sum is their union: no join to the windows and
    // no DISTINCT (on SQLite at 1M events, 53 ms against 187 for the join).
    let mut bits_at = |k: i64, mask: i64| {
        let offset = p.bind(first_day + k);
        let mask = p.bind(mask);
        or_disjoint(
            backend,
            format!(
                "CASE WHEN (d.hours & {mask}) <> 0 AND d.day - {offset} BETWEEN 0 AND {last} \
             THEN {} ELSE 0 END",
                bit(&format!("d.day - {offset}")),
                last = buckets.count - 1,
            ),
        )
    };
    let union = |terms: Vec<String>| match terms.is_empty() {
        true => "0".to_string(),
        false => format!("({})", terms.join(" | ")),
    };
    // A player is a maybe for a bucket at each position whose edge hour its day row has:
    // kept per position (`m{k}`), so that only that edge's split is probed (a player seen at
    // a window's edge is mostly seen at one of a bucket's two edges, not both).
    let (mut sure, mut maybe, mut any) = (Vec::new(), Vec::new(), 0);
    for &(k, mask, edge) in positions {
        any |= mask | edge;
        if mask != 0 {
            sure.push(bits_at(k, mask));
        }
        if edge != 0 {
            maybe.push((k, bits_at(k, edge)));
        }
    }
    let maybe_columns: String = maybe
        .iter()
        .map(|(k, bits)| format!(", {bits} AS m{k}"))
        .collect();
    let days = format!(
        "days AS (SELECT d.actor_id AS actor_id, {} AS sure{maybe_columns} \
         FROM analytics_player_days d \
         WHERE d.game_id = {game} AND d.scope = {scope_sql} \
           AND d.day >= {} AND d.day <= {} AND (d.hours & {}) <> 0 \
         GROUP BY d.actor_id)",
        union(sure),
        p.bind(first_day + first_k),
        p.bind(first_day + buckets.count as i64 - 1 + last_k),
        p.bind(any),
    );
    let open_columns: String = maybe
        .iter()
        .map(|(k, _)| format!(", m{k} & ~sure AS o{k}"))
        .collect();
    let any_maybe = union(maybe.iter().map(|(k, _)| format!("m{k}")).collect());
    let mut with = vec![
        days,
        format!(
            "unsure AS (SELECT actor_id{open_columns} FROM days \
             WHERE ({any_maybe} & ~sure) <> 0)"
        ),
    ];
    // What the unsure players did at the edges: the minutes of their hour rows, the split
    // minutes' events, and the whole edge from the events where the hour has no minutes.
    let EdgeReads { splits, raw, .. } = reads;
    let mut hits = Vec::new();
    if !splits.is_empty() {
        // Each split with its position in its bucket (the day of its hour, counted from the
        // bucket's first day).
        let values: Vec<String> = splits
            .iter()
            .map(|&(bucket, hour, minutes)| {
                let k = hour.div_euclid(HOURS_PER_DAY) - first_day - bucket;
                format!(
                    "({}, {}, {}, {})",
                    p.bind(bucket),
                    p.bind(hour),
                    p.bind(minutes),
                    p.bind(k)
                )
            })
            .collect();
        with.push(format!(
            "splits (bucket, hour, mask, position) AS (VALUES {})",
            values.join(", ")
        ));
        let open_at: String = maybe
            .iter()
            .map(|(k, _)| format!(" WHEN {k} THEN u.o{k}"))
            .collect();
        // One look-up of the hour row's key per unsure player and split whose edge hour its
        // day row has, in a bucket it is unsure of. The subquery sits in a CASE, which neither
        // planner turns into a join: PostgreSQL joined every player's rows of the split hours
        // (about 6,700 an hour at 10M events) to the unsure players by hash, 360 ms of
        // `dau_drop`.
        hits.push(format!(
            "SELECT bucket, actor_id FROM (SELECT s.bucket AS bucket, u.actor_id AS actor_id, \
               CASE WHEN EXISTS (SELECT 1 FROM analytics_player_hours h \
                 WHERE h.game_id = {game} AND h.scope = {scope_sql} AND h.actor_id = u.actor_id \
                   AND h.hour = s.hour AND (h.minutes & s.mask) <> 0) THEN 1 ELSE 0 END AS hit \
             FROM unsure u JOIN splits s \
               ON (((CASE s.position{open_at} ELSE 0 END) >> CAST(s.bucket AS INTEGER)) & 1) = 1) \
             probes WHERE hit = 1"
        ));
    }
    let environment = scope_filter(scope, p);
    // The split minutes' events, of the unsure players: one semi-join for all of them (a
    // filter in each part built the unsure players' hash table once per part, 16 times).
    let minutes = edge_events(&raw, p, |range| {
        format!(
            "SELECT ({epoch} - {start}) / {size} AS bucket, actor_id FROM events \
             WHERE game_id = {game} AND {range}{environment}",
            epoch = epoch_seconds(backend, "occurred_at"),
        )
    });
    if !minutes.is_empty() {
        hits.push(format!(
            "SELECT bucket, actor_id FROM ({}) edge_events \
             WHERE actor_id IN (SELECT actor_id FROM unsure)",
            minutes.join(" UNION ALL ")
        ));
    }
    // The unsure players' edge buckets, joined to every player's sure ones.
    let players = if hits.is_empty() {
        "players AS (SELECT sure AS bits FROM days)".to_string()
    } else {
        with.push(format!(
            "edge_bits AS (SELECT actor_id, {} AS bits FROM ({}) hits GROUP BY actor_id)",
            or(bit("bucket")),
            hits.join(" UNION ALL ")
        ));
        "players AS (SELECT days.sure | COALESCE(e.bits, 0) AS bits FROM days \
         LEFT JOIN edge_bits e ON e.actor_id = days.actor_id)"
            .to_string()
    };
    with.push(players);
    Some(per_bucket(with, buckets.count, p))
}

/// The bit of a bucket index (a SQL expression) in a BIGINT.
fn bit(index: &str) -> String {
    format!("(CAST(1 AS BIGINT) << CAST({index} AS INTEGER))")
}

/// The union of a group's bits where no two of its rows share one: SQLite has no `bit_or`, and
/// its plain sum is the same number, without the sorted set `SUM(DISTINCT ...)` keeps per group.
fn or_disjoint(backend: DatabaseBackend, expression: String) -> String {
    match backend {
        DatabaseBackend::Postgres => format!("bit_or({expression})"),
        _ => format!("SUM({expression})"),
    }
}

/// The statement that counts, from the CTEs `with` whose last, `players`, has a row per player
/// with the bits of the buckets it was active in (`bits`), each bucket's players: one pass over
/// them (a sum per bit), then one row per bucket. Joining every player to every bucket took a
/// third of the read on PostgreSQL.
fn per_bucket(mut with: Vec<String>, count: usize, p: &mut Params) -> String {
    let sums: Vec<String> = (0..count)
        .map(|index| format!("SUM((bits >> {index}) & 1) AS b{index}"))
        .collect();
    with.push(format!(
        "totals AS (SELECT {} FROM players)",
        sums.join(", ")
    ));
    let (mut indices, mut picks) = (Vec::new(), Vec::new());
    for index in 0..count {
        let bucket = p.bind(index as i64);
        indices.push(format!("({bucket})"));
        picks.push(format!("WHEN {bucket} THEN b{index}"));
    }
    with.push(format!(
        "indices (bucket) AS (VALUES {})",
        indices.join(", ")
    ));
    format!(
        "WITH {} SELECT i.bucket AS bucket, \
           CAST(COALESCE(CASE i.bucket {} END, 0) AS DOUBLE PRECISION) AS value \
         FROM totals CROSS JOIN indices i",
        with.join(", "),
        picks.join(" ")
    )
}

/// Whether `by_seconds` answers the buckets: 24-hour buckets from a whole second, as many as
/// bits in a number.
fn by_seconds_applies(buckets: Buckets) -> bool {
    buckets.seconds == SECONDS_PER_DAY
        && buckets.count <= MAX_BUCKET_BITS
        && buckets.start.timestamp_subsec_nanos() == 0
}

/// Whether a day row of the buckets' days predates the first and last seconds (kept since
/// migration 97): such a range is read by its hours and minutes instead.
async fn days_without_seconds(
    db: &impl ConnectionTrait,
    scope: &Scope,
    scope_name: &str,
    buckets: Buckets,
) -> Result<bool, DbErr> {
    let first_day = buckets.start.timestamp().div_euclid(SECONDS_PER_DAY);
    let mut p = Params::default();
    let sql = format!(
        "SELECT day FROM analytics_player_days WHERE game_id = {} AND scope = {} \
         AND day >= {} AND day <= {} AND first_second IS NULL LIMIT 1",
        p.bind(scope.game_id),
        p.bind(scope_name.to_string()),
        p.bind(first_day),
        p.bind(first_day + buckets.count as i64),
    );
    Ok(!query(db, sql, p).await?.is_empty())
}

/// 24-hour buckets from second `s` of day D (`by_seconds_applies`), counted per day: bucket i
/// holds the players whose row of day D + i has its last event at second s or later (`ends`),
/// those whose row of day D + i + 1 has its first event before second s (`starts`), less
/// those counted twice: the rows of day D + i + 1 with a first event before s whose player's
/// last event the day before was at s or later (`both`, from `previous_last_second`). One
/// pass over the window's day rows in the (game, scope, day) index, no grouping by player.
/// `unknown` counts the rows that would need a previous last second they do not have (kept
/// before migration 99): `points_of_edges` then answers nothing and `by_seconds` does.
fn day_edges(
    backend: DatabaseBackend,
    scope: &Scope,
    scope_name: &str,
    buckets: Buckets,
    p: &mut Params,
) -> String {
    let start = buckets.start.timestamp();
    let first_day = start.div_euclid(SECONDS_PER_DAY);
    let second = p.bind(start.rem_euclid(SECONDS_PER_DAY));
    let game = p.bind(scope.game_id);
    let scope_sql = p.bind(scope_name.to_string());
    let on_day = p.bind(first_day);
    let last_day = p.bind(first_day + buckets.count as i64);
    let counts = format!(
        "CAST(count(*) FILTER (WHERE d.last_second >= {second}) AS BIGINT) AS ends, \
         CAST(count(*) FILTER (WHERE d.first_second < {second}) AS BIGINT) AS starts, \
         CAST(count(*) FILTER (WHERE d.first_second < {second} \
           AND d.previous_last_second >= {second}) AS BIGINT) AS both_edges, \
         CAST(count(*) FILTER (WHERE d.first_second < {second} \
           AND d.previous_last_second IS NULL) AS BIGINT) AS unknown"
    );
    match backend {
        // One day at a time, as `query_by_day_index` needs.
        DatabaseBackend::Postgres => format!(
            "SELECT w.day AS day, c.ends, c.starts, c.both_edges, c.unknown \
             FROM generate_series({on_day}, {last_day}) AS w(day) CROSS JOIN LATERAL (\
               SELECT {counts} FROM analytics_player_days d WHERE d.game_id = {game} \
               AND d.scope = {scope_sql} AND d.day = w.day\
             ) c"
        ),
        _ => format!(
            "SELECT d.day AS day, {counts} FROM analytics_player_days d \
             WHERE d.game_id = {game} AND d.scope = {scope_sql} AND d.day >= {on_day} \
             AND d.day <= {last_day} GROUP BY d.day"
        ),
    }
}

/// The buckets from `day_edges`' rows, or none when a row they need has no previous last
/// second.
fn points_of_edges(rows: Vec<QueryResult>, buckets: Buckets) -> Result<Option<Vec<Point>>, DbErr> {
    let first_day = buckets.start.timestamp().div_euclid(SECONDS_PER_DAY);
    // (ends, starts, both) of each day of the window, D to D + count.
    let mut days = vec![(0i64, 0i64, 0i64); buckets.count + 1];
    for row in rows {
        let day: i64 = row.try_get("", "day")?;
        let Some(counts) = usize::try_from(day - first_day)
            .ok()
            .and_then(|index| days.get_mut(index))
        else {
            continue;
        };
        let unknown: i64 = row.try_get("", "unknown")?;
        if unknown > 0 && day > first_day {
            return Ok(None);
        }
        *counts = (
            row.try_get("", "ends")?,
            row.try_get("", "starts")?,
            row.try_get("", "both_edges")?,
        );
    }
    Ok(Some(
        (0..buckets.count)
            .map(|i| Point::count((days[i].0 + days[i + 1].1 - days[i + 1].2) as f64))
            .collect(),
    ))
}

/// 24-hour buckets from second `s` of a day (`by_seconds_applies`), from the day rows alone.
/// Bucket i runs from second s of day D + i to second s of day D + i + 1, so it holds a player
/// exactly when the player's row of day D + i has its last event at second s or later, or its
/// row of day D + i + 1 has its first event before second s. Each player's buckets are the bits
/// of one number: the bits one of the two conditions gives are one per day row, so their sum
/// is their union (no DISTINCT), and the two sums are or'ed (on PostgreSQL, one `bit_or` of
/// both).
fn by_seconds(
    backend: DatabaseBackend,
    scope: &Scope,
    scope_name: &str,
    buckets: Buckets,
    p: &mut Params,
) -> String {
    let start = buckets.start.timestamp();
    let first_day = start.div_euclid(SECONDS_PER_DAY);
    let second = p.bind(start.rem_euclid(SECONDS_PER_DAY));
    let last = buckets.count as i64 - 1;
    let game = p.bind(scope.game_id);
    let scope_sql = p.bind(scope_name.to_string());
    let on_day = p.bind(first_day);
    let on_next_day = p.bind(first_day + 1);
    let bit_at = |offset: &str, condition: &str| {
        format!(
            "CASE WHEN {condition} AND d.day - {offset} BETWEEN 0 AND {last} THEN {} ELSE 0 END",
            bit(&format!("d.day - {offset}"))
        )
    };
    let (ends, starts) = (
        bit_at(&on_day, &format!("d.last_second >= {second}")),
        bit_at(&on_next_day, &format!("d.first_second < {second}")),
    );
    let last_day = p.bind(first_day + buckets.count as i64);
    let players = match backend {
        // The window's day rows one day at a time (`query_by_day_index`), and one `bit_or` of
        // both bits a row gives.
        DatabaseBackend::Postgres => format!(
            "players AS (SELECT bit_or(({ends}) | ({starts})) AS bits \
             FROM generate_series({on_day}, {last_day}) AS w(day) CROSS JOIN LATERAL (\
               SELECT d.actor_id, d.day, d.first_second, d.last_second \
               FROM analytics_player_days d WHERE d.game_id = {game} \
               AND d.scope = {scope_sql} AND d.day = w.day OFFSET 0\
             ) d GROUP BY d.actor_id)"
        ),
        _ => format!(
            "players AS (SELECT {} | {} AS bits FROM analytics_player_days d \
             WHERE d.game_id = {game} AND d.scope = {scope_sql} AND d.day >= {on_day} \
               AND d.day <= {last_day} GROUP BY d.actor_id)",
            or_disjoint(backend, ends),
            or_disjoint(backend, starts),
        ),
    };
    per_bucket(vec![players], buckets.count, p)
}

/// One `select` per time range of the edges' events (given the range as SQL on
/// `occurred_at`), to be joined with UNION ALL: each seeks the (game, time) index to its own
/// range, where SQLite answered ranges joined by OR by scanning every event of the game (a
/// covering index that holds the player), 500 to 700 ms of `dau_drop` at 1M events.
fn edge_events(
    raw: &[(DateTime<Utc>, DateTime<Utc>)],
    p: &mut Params,
    select: impl Fn(&str) -> String,
) -> Vec<String> {
    raw.iter()
        .map(|(from, to)| {
            select(&format!(
                "occurred_at >= {} AND occurred_at < {}",
                p.bind(*from),
                p.bind(*to)
            ))
        })
        .collect()
}

/// The (bucket, day, whole hours, edge hours) of each bucket's days: an edge's hour makes its
/// day row's player a maybe for that bucket.
fn day_windows(buckets: Buckets, edges: &[Edge]) -> Vec<(i64, i64, i64, i64)> {
    let (whole, ..) = whole_hour_windows(buckets);
    let mut windows: Vec<(i64, i64, i64, i64)> = whole
        .into_iter()
        .map(|(bucket, day, mask)| (bucket, day, mask, 0))
        .collect();
    for edge in edges {
        let day = edge.hour.div_euclid(HOURS_PER_DAY);
        windows.push((
            edge.bucket,
            day,
            0,
            1i64 << (edge.hour - day * HOURS_PER_DAY),
        ));
    }
    windows
}

/// Day buckets (24 hours from any second): the (position, whole-hour bits, edge-hour bits) a
/// bucket has on its k-th day, when every bucket has the same ones there (`day_windows`);
/// `None` for other buckets, counted by `by_distinct_count`.
fn day_positions(
    buckets: Buckets,
    windows: &[(i64, i64, i64, i64)],
) -> Option<Vec<(i64, i64, i64)>> {
    if buckets.seconds != SECONDS_PER_DAY {
        return None;
    }
    let first_day = buckets.start.timestamp().div_euclid(SECONDS_PER_DAY);
    let mut at: std::collections::BTreeMap<(i64, i64), (i64, i64)> = Default::default();
    for &(bucket, day, mask, edge) in windows {
        let bits = at.entry((day - first_day - bucket, bucket)).or_default();
        *bits = (bits.0 | mask, bits.1 | edge);
    }
    let mut positions: Vec<(i64, i64, i64)> = Vec::new();
    for (&(k, _), &(mask, edge)) in &at {
        if positions.last().map(|last| last.0) != Some(k) {
            positions.push((k, mask, edge));
        }
    }
    // Every bucket has exactly these bits at every position (a bucket with none there would
    // need its own window).
    let uniform = positions.iter().all(|&(k, mask, edge)| {
        (0..buckets.count as i64).all(|bucket| at.get(&(k, bucket)) == Some(&(mask, edge)))
    });
    uniform.then_some(positions)
}

/// More buckets than bits in a number: a distinct count per bucket over the players' day
/// rows, the edges' hour rows and the split minutes' events.
fn by_distinct_count(
    backend: DatabaseBackend,
    scope: &Scope,
    scope_name: &str,
    buckets: Buckets,
    reads: EdgeReads,
    p: &mut Params,
) -> Option<String> {
    let game = p.bind(scope.game_id);
    let start = p.bind(buckets.start.timestamp());
    let size = p.bind(buckets.seconds);
    let scope_sql = p.bind(scope_name.to_string());
    let (windows, first_day, last_day) = whole_hour_windows(buckets);
    let windows: Vec<String> = windows
        .into_iter()
        .map(|(bucket, day, mask)| {
            format!("({}, {}, {})", p.bind(bucket), p.bind(day), p.bind(mask))
        })
        .collect();
    let mut with = Vec::new();
    let mut parts = Vec::new();
    if !windows.is_empty() {
        with.push(format!(
            "windows (bucket, day, mask) AS (VALUES {})",
            windows.join(", ")
        ));
        parts.push(format!(
            "SELECT w.bucket AS bucket, d.actor_id AS actor_id FROM analytics_player_days d \
             JOIN windows w ON w.day = d.day AND (d.hours & w.mask) <> 0 \
             WHERE d.game_id = {game} AND d.scope = {scope_sql} AND d.day >= {} AND d.day <= {}",
            p.bind(first_day),
            p.bind(last_day)
        ));
    }
    let EdgeReads { splits, raw } = reads;
    if !splits.is_empty() {
        let mut split_hours = Vec::new();
        let values: Vec<String> = splits
            .iter()
            .map(|&(bucket, hour, minutes)| {
                split_hours.push(p.bind(hour));
                format!(
                    "({}, {}, {})",
                    p.bind(bucket),
                    p.bind(hour),
                    p.bind(minutes)
                )
            })
            .collect();
        with.push(format!(
            "splits (bucket, hour, mask) AS (VALUES {})",
            values.join(", ")
        ));
        parts.push(format!(
            "SELECT s.bucket AS bucket, h.actor_id AS actor_id FROM analytics_player_hours h \
             JOIN splits s ON s.hour = h.hour AND (h.minutes & s.mask) <> 0 \
             WHERE h.game_id = {game} AND h.scope = {scope_sql} AND h.hour IN ({})",
            split_hours.join(", ")
        ));
    }
    let environment = scope_filter(scope, p);
    parts.extend(edge_events(&raw, p, |range| {
        format!(
            "SELECT ({epoch} - {start}) / {size} AS bucket, actor_id FROM events \
             WHERE game_id = {game} AND {range}{environment}",
            epoch = epoch_seconds(backend, "occurred_at"),
        )
    }));
    if parts.is_empty() {
        return None;
    }
    let with = if with.is_empty() {
        String::new()
    } else {
        format!("WITH {} ", with.join(", "))
    };
    Some(format!(
        "{with}SELECT bucket, CAST(COUNT(DISTINCT actor_id) AS DOUBLE PRECISION) AS value \
         FROM ({}) active GROUP BY bucket",
        parts.join(" UNION ALL ")
    ))
}

/// A part of an hour at a bucket's edge (`from`..`to`, epoch seconds, inside one hour and one
/// bucket): the bits of the whole minutes it covers, and the parts of a minute at its ends.
#[derive(Debug, PartialEq)]
struct Edge {
    bucket: i64,
    hour: i64,
    from: i64,
    to: i64,
    /// Bit m for each whole minute m of the hour inside the part.
    minutes: i64,
    /// The parts of a minute at either end, as epoch-second ranges.
    seconds: Vec<(i64, i64)>,
}

impl Edge {
    fn of(buckets: Buckets, from: i64, to: i64) -> Self {
        const MINUTE: i64 = 60;
        let hour = from.div_euclid(SECONDS_PER_HOUR);
        let first_minute = (from + MINUTE - 1).div_euclid(MINUTE);
        let end_minute = to.div_euclid(MINUTE);
        let mut edge = Edge {
            bucket: (from - buckets.start.timestamp()).div_euclid(buckets.seconds),
            hour,
            from,
            to,
            minutes: 0,
            seconds: Vec::new(),
        };
        if first_minute >= end_minute {
            edge.seconds.push((from, to));
            return edge;
        }
        let bits = |minute: i64| (1i64 << (minute - hour * 60)) - 1;
        edge.minutes = bits(end_minute) & !bits(first_minute);
        if from < first_minute * MINUTE {
            edge.seconds.push((from, first_minute * MINUTE));
        }
        if end_minute * MINUTE < to {
            edge.seconds.push((end_minute * MINUTE, to));
        }
        edge
    }
}

/// Which of the edges' hours have rows without minutes (from before they were kept).
async fn hours_without_minutes(
    db: &impl ConnectionTrait,
    game_id: uuid::Uuid,
    scope_name: &str,
    edges: &[Edge],
) -> Result<Vec<i64>, DbErr> {
    if edges.is_empty() {
        return Ok(Vec::new());
    }
    let mut p = Params::default();
    let game = p.bind(game_id);
    let scope = p.bind(scope_name.to_string());
    let hours: Vec<String> = edges.iter().map(|edge| p.bind(edge.hour)).collect();
    let sql = format!(
        "SELECT DISTINCT hour FROM analytics_player_hours \
         WHERE game_id = {game} AND scope = {scope} AND hour IN ({}) AND minutes IS NULL",
        hours.join(", ")
    );
    query(db, sql, p)
        .await?
        .iter()
        .map(|row| row.try_get::<i64>("", "hour"))
        .collect()
}

/// The whole hours of bucket `index`, as (day, bits of that day's hours) per day they fall in.
fn day_hours(buckets: Buckets, index: usize) -> Vec<(i64, i64)> {
    let start = buckets.start_of(index).timestamp();
    let first_hour = (start + SECONDS_PER_HOUR - 1).div_euclid(SECONDS_PER_HOUR);
    let end_hour = (start + buckets.seconds).div_euclid(SECONDS_PER_HOUR);
    let mut days = Vec::new();
    let mut hour = first_hour;
    while hour < end_hour {
        let day = hour.div_euclid(HOURS_PER_DAY);
        let day_end = ((day + 1) * HOURS_PER_DAY).min(end_hour);
        let bits = |h: i64| (1i64 << (h - day * HOURS_PER_DAY)) - 1;
        days.push((day, bits(day_end) & !bits(hour)));
        hour = day_end;
    }
    days
}

/// The day buckets of `buckets` as days since the epoch, or an error when they are not whole
/// UTC days.
fn whole_days(buckets: Buckets) -> Result<i64, DbErr> {
    if span_of(buckets).map(|(span, _)| span) != Some("day") {
        return Err(DbErr::Custom(
            "daily metrics are read in day buckets starting at midnight".into(),
        ));
    }
    Ok(buckets.start.timestamp() / SECONDS_PER_DAY)
}

/// Users first seen on each day: the cohort counters' offset 0.
pub async fn new_users(
    db: &impl ConnectionTrait,
    scope: &Scope,
    buckets: Buckets,
) -> Result<Vec<Point>, DbErr> {
    let (sizes, _) = cohorts(db, scope, buckets, 0).await?;
    Ok(sizes
        .into_iter()
        .map(|size| Point::count(size as f64))
        .collect())
}

/// Per day bucket: the users first seen that day (offset 0), and of them the users active
/// again `return_day` days later.
async fn cohorts(
    db: &impl ConnectionTrait,
    scope: &Scope,
    buckets: Buckets,
    return_day: i64,
) -> Result<(Vec<i64>, Vec<i64>), DbErr> {
    let counters = cohort_counters(db, scope, buckets, &[0, return_day]).await?;
    Ok(counters
        .into_iter()
        .map(|counts| (counts[0].max(0), counts[1]))
        .unzip())
}

/// Per day bucket (which must start at midnight): the cohort counters at `offsets` (0: users
/// first seen that day; n: of them, users active again n days later), summed over the
/// writer shards, in the order of `offsets`; 0 where there is no row. One range scan over
/// the days' counters, so the cost is days × offsets.
pub async fn cohort_counters(
    db: &impl ConnectionTrait,
    scope: &Scope,
    buckets: Buckets,
    offsets: &[i64],
) -> Result<Vec<Vec<i64>>, DbErr> {
    let first_day = whole_days(buckets)?;
    let mut p = Params::default();
    let game = p.bind(scope.game_id);
    let scope_name = p.bind(scope_of(scope.environment.as_deref()).to_string());
    let from = p.bind(first_day);
    let to = p.bind(first_day + buckets.count as i64);
    let wanted = offsets
        .iter()
        .map(|offset| p.bind(*offset))
        .collect::<Vec<_>>()
        .join(", ");
    let sql = format!(
        "SELECT cohort_day, CAST(day_offset AS BIGINT) AS day_offset, \
         CAST(SUM(users) AS BIGINT) AS users FROM analytics_cohorts \
         WHERE game_id = {game} AND scope = {scope_name} AND cohort_day >= {from} \
         AND cohort_day < {to} AND day_offset IN ({wanted}) GROUP BY 1, 2"
    );
    let mut counters = vec![vec![0i64; offsets.len()]; buckets.count];
    for row in query(db, sql, p).await? {
        let day: i64 = row.try_get("", "cohort_day")?;
        let offset: i64 = row.try_get("", "day_offset")?;
        let users: i64 = row.try_get("", "users")?;
        let day_counters = usize::try_from(day - first_day)
            .ok()
            .and_then(|index| counters.get_mut(index));
        let position = offsets.iter().position(|wanted| *wanted == offset);
        if let (Some(day_counters), Some(position)) = (day_counters, position) {
            day_counters[position] = users;
        }
    }
    Ok(counters)
}

/// Distinct paying users per day, from the counts kept at ingest (span `paying_day`).
pub async fn paying_users(
    db: &impl ConnectionTrait,
    scope: &Scope,
    buckets: Buckets,
) -> Result<Vec<Point>, DbErr> {
    whole_days(buckets)?;
    active_users(
        db,
        scope,
        buckets,
        (crate::aggregates::ingest::PAYING_DAY, SECONDS_PER_DAY),
    )
    .await
}

/// Per day: the sessions that started that day, or (`average_length`) their average length
/// in seconds (undefined on a day without sessions), from the day counts kept at ingest.
pub async fn sessions(
    db: &impl ConnectionTrait,
    scope: &Scope,
    buckets: Buckets,
    average_length: bool,
) -> Result<Vec<Point>, DbErr> {
    let first_day = whole_days(buckets)?;
    let mut p = Params::default();
    let game = p.bind(scope.game_id);
    let scope_name = p.bind(scope_of(scope.environment.as_deref()).to_string());
    let from = p.bind(first_day);
    let to = p.bind(first_day + buckets.count as i64);
    let sql = format!(
        "SELECT day, CAST(SUM(sessions) AS BIGINT) AS sessions, \
         CAST(SUM(length_ms) AS BIGINT) AS length_ms FROM analytics_session_days \
         WHERE game_id = {game} AND scope = {scope_name} AND day >= {from} AND day < {to} \
         GROUP BY day"
    );
    let mut points = vec![Point::count(0.0); buckets.count];
    if average_length {
        points.iter_mut().for_each(|point| point.value = None);
    }
    for row in query(db, sql, p).await? {
        let day: i64 = row.try_get("", "day")?;
        let sessions: i64 = row.try_get("", "sessions")?;
        let length_ms: i64 = row.try_get("", "length_ms")?;
        let Some(point) = usize::try_from(day - first_day)
            .ok()
            .and_then(|index| points.get_mut(index))
        else {
            continue;
        };
        point.value = if !average_length {
            Some(sessions.max(0) as f64)
        } else if sessions > 0 {
            Some(length_ms.max(0) as f64 / 1_000.0 / sessions as f64)
        } else {
            None
        };
    }
    Ok(points)
}

/// Day-n retention per day bucket (which must start at midnight) from the cohort counters:
/// of the users first seen on that day, the percent active again `return_day` days later;
/// undefined for an empty cohort or one whose day n has not ended by `now`.
pub async fn retention(
    db: &impl ConnectionTrait,
    scope: &Scope,
    buckets: Buckets,
    now: DateTime<Utc>,
    return_day: i64,
) -> Result<Vec<Point>, DbErr> {
    let (sizes, retained) = cohorts(db, scope, buckets, return_day).await?;
    Ok((0..buckets.count)
        .map(|index| {
            let size = sizes[index].max(0);
            let complete = buckets.start_of(index + return_day as usize + 1) <= now;
            Point {
                value: (complete && size > 0).then(|| retained[index] as f64 * 100.0 / size as f64),
                cohort_size: Some(size as u64),
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_ending_mid_hour_reads_the_whole_hours_of_the_two_days_it_spans() {
        // 24 hours ending 2026-11-26 10:30: whole hours from 11:00 on the 25th to 10:00 on
        // the 26th (the half hours at both ends are read from the events).
        let buckets = Buckets {
            start: "2026-11-25T10:30:00Z".parse().unwrap(),
            seconds: 86_400,
            count: 1,
        };
        let day = "2026-11-25T00:00:00Z"
            .parse::<DateTime<Utc>>()
            .unwrap()
            .timestamp()
            / SECONDS_PER_DAY;
        let hours = |range: std::ops::Range<i64>| range.fold(0, |bits, h| bits | 1 << h);
        assert_eq!(
            day_hours(buckets, 0),
            [(day, hours(11..24)), (day + 1, hours(0..10))]
        );
        // A day bucket from midnight is all 24 hours of one day.
        let midnight = Buckets {
            start: "2026-11-25T00:00:00Z".parse().unwrap(),
            ..buckets
        };
        assert_eq!(day_hours(midnight, 0), [(day, hours(0..24))]);
        // An hour bucket not on the hour holds no whole hour.
        let short = Buckets {
            seconds: 3_600,
            ..buckets
        };
        assert_eq!(day_hours(short, 0), []);
    }

    #[test]
    fn an_edge_in_an_hour_reads_its_whole_minutes_from_the_bits_and_the_rest_from_events() {
        let buckets = Buckets {
            start: "2026-11-25T10:30:15Z".parse().unwrap(),
            seconds: 86_400,
            count: 2,
        };
        let t = |at: &str| at.parse::<DateTime<Utc>>().unwrap().timestamp();
        let minutes = |range: std::ops::Range<i64>| range.fold(0, |bits, m| bits | 1 << m);
        // The part of 10:00 before the edge at 10:30:15 of the second bucket's first day:
        // minutes 0 to 29 whole, and 15 seconds of minute 30.
        let before = Edge::of(
            buckets,
            t("2026-11-26T10:00:00Z"),
            t("2026-11-26T10:30:15Z"),
        );
        assert_eq!(before.bucket, 0);
        assert_eq!(before.hour, t("2026-11-26T10:00:00Z") / SECONDS_PER_HOUR);
        assert_eq!(before.minutes, minutes(0..30));
        assert_eq!(
            before.seconds,
            [(t("2026-11-26T10:30:00Z"), t("2026-11-26T10:30:15Z"))]
        );
        // The part after it: the rest of minute 30, then minutes 31 to 59 whole.
        let after = Edge::of(
            buckets,
            t("2026-11-26T10:30:15Z"),
            t("2026-11-26T11:00:00Z"),
        );
        assert_eq!(after.bucket, 1);
        assert_eq!(after.minutes, minutes(31..60));
        assert_eq!(
            after.seconds,
            [(t("2026-11-26T10:30:15Z"), t("2026-11-26T10:31:00Z"))]
        );
        // An edge on a whole minute reads no event; one inside a minute reads only events.
        let whole = Edge::of(
            buckets,
            t("2026-11-26T10:00:00Z"),
            t("2026-11-26T10:30:00Z"),
        );
        assert_eq!((whole.minutes, whole.seconds.len()), (minutes(0..30), 0));
        let inside = Edge::of(
            buckets,
            t("2026-11-26T10:30:05Z"),
            t("2026-11-26T10:30:45Z"),
        );
        assert_eq!(inside.minutes, 0);
        assert_eq!(
            inside.seconds,
            [(t("2026-11-26T10:30:05Z"), t("2026-11-26T10:30:45Z"))]
        );
    }

    #[test]
    fn day_buckets_have_the_same_hours_at_each_day_they_span_and_hour_buckets_do_not() {
        let hours = |range: std::ops::Range<i64>| range.fold(0, |bits, h| bits | 1 << h);
        let windows = |buckets: Buckets| {
            let (whole, ..) = whole_hour_windows(buckets);
            let mut windows: Vec<_> = whole.into_iter().map(|(b, d, m)| (b, d, m, 0)).collect();
            // The edge hour 10 on both days of each bucket, as `by_bits` adds it.
            let first_day = buckets.start.timestamp().div_euclid(SECONDS_PER_DAY);
            for bucket in 0..buckets.count as i64 {
                for day in [first_day + bucket, first_day + bucket + 1] {
                    windows.push((bucket, day, 0, 1 << 10));
                }
            }
            windows
        };
        // Arrange: a week of 24-hour buckets from 10:30, as `dau_drop` reads them.
        let days = Buckets {
            start: "2026-11-19T10:30:00Z".parse().unwrap(),
            seconds: SECONDS_PER_DAY,
            count: 7,
        };
        assert_eq!(
            day_positions(days, &windows(days)),
            Some(vec![
                (0, hours(11..24), 1 << 10),
                (1, hours(0..10), 1 << 10)
            ])
        );
        // One bucket without the edge on its second day is not like the others.
        let mut uneven = windows(days);
        uneven.pop();
        assert_eq!(day_positions(days, &uneven), None);
        // Hour buckets share their days: joined to their windows.
        let hours_buckets = Buckets {
            seconds: SECONDS_PER_HOUR,
            count: 24,
            ..days
        };
        assert_eq!(day_positions(hours_buckets, &windows(hours_buckets)), None);
    }
}
