//! The raw events export: `GET /v1/games/{id}/events/export` as NDJSON or CSV, by range and
//! names, gzipped on request, and who may download it.
use super::track;
use crate::helpers::{spawn_app, TestApp};
use reqwest::Method;
use serde_json::{json, Value};
use tokio::io::AsyncReadExt;

/// The answer's status, headers and raw body.
async fn download(
    app: &TestApp,
    token: &str,
    game_id: &str,
    query: &str,
    accept_gzip: bool,
) -> (u16, reqwest::header::HeaderMap, Vec<u8>) {
    let mut request = app.dashboard(
        Method::GET,
        &format!("/v1/games/{game_id}/events/export{query}"),
        token,
    );
    if accept_gzip {
        request = request.header("accept-encoding", "gzip");
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    (status, headers, response.bytes().await.unwrap().to_vec())
}

fn lines(body: &[u8]) -> Vec<Value> {
    std::str::from_utf8(body)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

fn names(events: &[Value]) -> Vec<&str> {
    events
        .iter()
        .map(|e| e["event_name"].as_str().unwrap())
        .collect()
}

async fn gunzip(body: &[u8]) -> Vec<u8> {
    let mut plain = Vec::new();
    async_compression::tokio::bufread::GzipDecoder::new(body)
        .read_to_end(&mut plain)
        .await
        .unwrap();
    plain
}

/// A game with four events over three days (named after their day) and another game with two.
async fn seeded(app: &TestApp) -> (String, String) {
    let (token, game_id, key) = app.game_with_key().await;
    let events = json!([
        { "event_name": "day1", "session_id": "s", "player_id": "ana", "client_timestamp": "2026-03-01T10:00:00Z",
          "properties": { "note": "a, \"quoted\"\nline" } },
        { "event_name": "day2", "session_id": "s", "player_id": "bob", "client_timestamp": "2026-03-02T23:59:59Z" },
        { "event_name": "day3", "session_id": "s", "client_timestamp": "2026-03-03T00:00:00Z" },
        { "event_name": "day1", "session_id": "s", "player_id": "ana", "client_timestamp": "2026-03-01T11:00:00Z" },
    ]);
    assert_eq!(track(app, &key, events).await.0, 202);
    let (_, _, other_key) = app.game_with_key().await;
    let others = json!([
        { "event_name": "day1", "session_id": "x", "client_timestamp": "2026-03-01T10:30:00Z" },
        { "event_name": "elsewhere", "session_id": "x", "client_timestamp": "2026-03-02T10:30:00Z" },
    ]);
    assert_eq!(track(app, &other_key, others).await.0, 202);
    (token, game_id)
}

#[tokio::test]
async fn ndjson_holds_every_event_of_the_game_oldest_first_and_none_of_another() {
    let app = spawn_app().await;
    let (token, game_id) = seeded(&app).await;

    let (status, headers, body) = download(&app, &token, &game_id, "", false).await;

    assert_eq!(status, 200);
    assert_eq!(headers["content-type"], "application/x-ndjson");
    assert_eq!(
        headers["content-disposition"],
        format!("attachment; filename=\"events-{game_id}.ndjson\"").as_str()
    );
    let events = lines(&body);
    assert_eq!(names(&events), ["day1", "day1", "day2", "day3"]);
    assert_eq!(events[0]["occurred_at"], "2026-03-01T10:00:00Z");
    assert_eq!(events[0]["player_id"], "ana");
    assert_eq!(
        events[0]["properties"],
        json!({ "note": "a, \"quoted\"\nline" })
    );
    assert_eq!(events[3]["player_id"], Value::Null);
}

#[tokio::test]
async fn csv_has_a_header_row_and_quotes_what_needs_quoting() {
    let app = spawn_app().await;
    let (token, game_id) = seeded(&app).await;

    let (status, headers, body) = download(&app, &token, &game_id, "?format=csv", false).await;

    assert_eq!(status, 200);
    assert_eq!(headers["content-type"], "text/csv; charset=utf-8");
    let mut reader = csv::Reader::from_reader(body.as_slice());
    let header: Vec<String> = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_string)
        .collect();
    assert_eq!(
        header,
        [
            "id",
            "occurred_at",
            "received_at",
            "event_name",
            "event_id",
            "player_id",
            "session_id",
            "environment",
            "revenue_amount",
            "log_level",
            "properties"
        ]
    );
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 4);
    assert_eq!(&rows[0][3], "day1");
    assert_eq!(&rows[0][5], "ana");
    let properties: Value = serde_json::from_str(&rows[0][10]).unwrap();
    assert_eq!(properties, json!({ "note": "a, \"quoted\"\nline" }));
    assert_eq!(&rows[3][5], "", "no player id: an empty field");
}

#[tokio::test]
async fn names_and_ranges_select_the_events() {
    let app = spawn_app().await;
    let (token, game_id) = seeded(&app).await;

    for (query, expected, what) in [
        ("?event_name=day1", vec!["day1", "day1"], "one name"),
        (
            "?event_name=day1&event_name=day3",
            vec!["day1", "day1", "day3"],
            "two names",
        ),
        ("?from=2026-03-02", vec!["day2", "day3"], "from a day"),
        (
            "?to=2026-03-02",
            vec!["day1", "day1", "day2"],
            "to a day, included",
        ),
        (
            "?from=2026-03-01T10:30:00Z&to=2026-03-03T00:00:00Z",
            vec!["day1", "day2"],
            "RFC 3339, to excluded",
        ),
        ("?from=2026-03-04", vec![], "nothing in range"),
        ("?event_name=elsewhere", vec![], "another game's name"),
    ] {
        let (status, _, body) = download(&app, &token, &game_id, query, false).await;
        assert_eq!(status, 200, "{what}");
        assert_eq!(names(&lines(&body)), expected, "{what}");
    }
}

#[tokio::test]
async fn gzip_decodes_to_the_same_export() {
    let app = spawn_app().await;
    let (token, game_id) = seeded(&app).await;
    let (_, _, plain) = download(&app, &token, &game_id, "?format=csv", false).await;

    let (status, headers, encoded) = download(&app, &token, &game_id, "?format=csv", true).await;
    assert_eq!(status, 200);
    assert_eq!(headers["content-encoding"], "gzip");
    assert_eq!(gunzip(&encoded).await, plain);

    let (status, headers, file) =
        download(&app, &token, &game_id, "?format=csv&gzip=true", false).await;
    assert_eq!(status, 200);
    assert_eq!(headers["content-type"], "application/gzip");
    assert!(headers.get("content-encoding").is_none());
    assert_eq!(
        headers["content-disposition"],
        format!("attachment; filename=\"events-{game_id}.csv.gz\"").as_str()
    );
    assert_eq!(gunzip(&file).await, plain);
}

#[tokio::test]
async fn an_export_larger_than_one_read_comes_whole_and_in_order() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    for batch in 0..11 {
        let events: Vec<Value> = (0..100)
            .map(|i| {
                let n = batch * 100 + i;
                json!({ "event_name": "tick", "session_id": "s", "properties": { "n": n },
                        "client_timestamp": format!("2026-03-01T{:02}:{:02}:{:02}Z", n / 3600, n / 60 % 60, n % 60) })
            })
            .collect();
        assert_eq!(track(&app, &key, Value::Array(events)).await.0, 202);
    }

    let (status, _, body) = download(&app, &token, &game_id, "", false).await;

    assert_eq!(status, 200);
    let order: Vec<u64> = lines(&body)
        .iter()
        .map(|e| e["properties"]["n"].as_u64().unwrap())
        .collect();
    assert_eq!(order, (0..1100).collect::<Vec<u64>>());
}

#[tokio::test]
async fn a_viewer_may_download_and_a_stranger_may_not() {
    let app = spawn_app().await;
    let (token, game_id) = seeded(&app).await;
    let (viewer, _) = app.new_member(&token, &game_id, "viewer").await;
    let stranger = app.new_user().await;

    let (status, _, body) = download(&app, &viewer, &game_id, "", false).await;
    assert_eq!(status, 200);
    assert_eq!(lines(&body).len(), 4);
    let (status, _, body) = download(&app, &stranger, &game_id, "", false).await;
    assert_eq!(status, 403);
    assert!(serde_json::from_slice::<Value>(&body).unwrap()["error"].is_string());
}

#[tokio::test]
async fn bad_parameters_are_refused_with_a_clear_message() {
    let app = spawn_app().await;
    let (token, game_id) = seeded(&app).await;
    let many_names: String = (0..21).map(|i| format!("&event_name=n{i}")).collect();

    for (query, message) in [
        ("?format=xml".to_string(), "format must be ndjson or csv"),
        (
            "?from=yesterday".to_string(),
            "from must be an RFC 3339 time (2026-11-21T10:00:00Z) or a date in YYYY-MM-DD format",
        ),
        (
            "?to=2026-13-01".to_string(),
            "to must be an RFC 3339 time (2026-11-21T10:00:00Z) or a date in YYYY-MM-DD format",
        ),
        (
            "?from=2026-03-03&to=2026-03-01".to_string(),
            "from must be before to",
        ),
        (
            format!("?format=ndjson{many_names}"),
            "at most 20 event_name values",
        ),
    ] {
        let (status, _, body) = download(&app, &token, &game_id, &query, false).await;
        assert_eq!(status, 400, "{query}");
        let body: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(body["error"], message, "{query}");
    }
}

#[tokio::test]
async fn csv_cells_that_a_spreadsheet_would_run_as_formulas_are_neutralised() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let events = json!([
        { "event_name": "=HYPERLINK(\"http://evil.test\",\"x\")", "session_id": "@SUM(1+1)",
          "player_id": "+cmd|' /C calc'!A0", "event_id": "-2+3", "client_timestamp": "2026-03-01T10:00:00Z" },
        { "event_name": "\tfirst", "session_id": "\rsecond", "player_id": "plain-ana",
          "event_id": "a=b", "client_timestamp": "2026-03-01T11:00:00Z" },
        { "event_name": "purchase", "session_id": "s", "properties": { "amount": -5 },
          "client_timestamp": "2026-03-01T12:00:00Z" },
    ]);
    assert_eq!(track(&app, &key, events).await.0, 202);

    // Act
    let (status, _, body) = download(&app, &token, &game_id, "?format=csv", false).await;

    // Assert: a single quote before each such cell (OWASP CSV injection); others unchanged.
    assert_eq!(status, 200);
    let mut reader = csv::Reader::from_reader(body.as_slice());
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(&rows[0][3], "'=HYPERLINK(\"http://evil.test\",\"x\")");
    assert_eq!(&rows[0][4], "'-2+3");
    assert_eq!(&rows[0][5], "'+cmd|' /C calc'!A0");
    assert_eq!(&rows[0][6], "'@SUM(1+1)");
    assert_eq!(&rows[1][3], "'\tfirst");
    assert_eq!(&rows[1][6], "'\rsecond");
    assert_eq!(&rows[1][4], "a=b", "only a leading character counts");
    assert_eq!(&rows[1][5], "plain-ana");
    assert_eq!(&rows[2][8], "-5", "numbers stay numbers");

    // NDJSON is data, not a spreadsheet: the values as sent.
    let (_, _, body) = download(&app, &token, &game_id, "", false).await;
    assert_eq!(lines(&body)[0]["player_id"], "+cmd|' /C calc'!A0");
}

/// What a client gets from a download: the status (`None`: the connection closed before the
/// head arrived), and whether the body arrived whole.
async fn download_outcome(
    app: &TestApp,
    token: &str,
    game_id: &str,
    query: &str,
    accept_gzip: bool,
) -> (Option<u16>, bool) {
    let mut request = app.dashboard(
        Method::GET,
        &format!("/v1/games/{game_id}/events/export{query}"),
        token,
    );
    if accept_gzip {
        request = request.header("accept-encoding", "gzip");
    }
    let Ok(response) = request.send().await else {
        return (None, false);
    };
    let status = response.status().as_u16();
    (Some(status), response.bytes().await.is_ok())
}

/// Stores, behind the service's back, a copy of one of the game's events that the export
/// cannot read back (SQLite: a time that is no time; PostgreSQL: a number beyond any float in
/// its properties), so the export fails once it reaches it.
async fn poison_an_event(app: &TestApp, game_id: &str) {
    use sea_orm::ConnectionTrait;
    let db = &app.state.db;
    let (time, properties) = if crate::helpers::services_backend() {
        ("occurred_at", "'{\"a\": 1e400}'::jsonb")
    } else {
        ("'not a time'", "properties")
    };
    let sql = format!(
        "INSERT INTO events (id, game_id, api_key_id, environment, event_name, event_id, \
         player_id, session_id, actor_id, properties, revenue_amount, log_level, occurred_at, \
         received_at) \
         SELECT $1, game_id, api_key_id, environment, 'poison', NULL, player_id, session_id, \
         actor_id, {properties}, revenue_amount, log_level, {time}, received_at \
         FROM events WHERE game_id = $2 LIMIT 1"
    );
    let game_id = uuid::Uuid::parse_str(game_id).unwrap();
    let inserted = db
        .execute_raw(sea_orm::Statement::from_sql_and_values(
            db.get_database_backend(),
            sql,
            [uuid::Uuid::now_v7().into(), game_id.into()],
        ))
        .await
        .unwrap();
    assert_eq!(inserted.rows_affected(), 1);
}

#[tokio::test]
async fn an_export_that_fails_midway_does_not_end_like_a_complete_one() {
    let app = spawn_app().await;
    let (token, game_id) = seeded(&app).await;
    poison_an_event(&app, &game_id).await;

    // Act: the export fails after the answer's head went out.
    let mut outcomes = Vec::new();
    for (query, accept_gzip) in [
        ("", false),
        ("?format=csv", false),
        ("?format=csv", true),
        ("?format=csv&gzip=true", false),
    ] {
        let outcome = download_outcome(&app, &token, &game_id, query, accept_gzip).await;
        outcomes.push((format!("{query} gzip: {accept_gzip}"), outcome));
    }

    // Assert: the stream is aborted, so the client sees an error, never a complete file (the
    // head may not even have left: the status is then unknown too).
    for (query, (status, complete)) in outcomes {
        assert!(matches!(status, None | Some(200)), "{query}: {status:?}");
        assert!(
            !complete,
            "{query}: the failed export ended like a complete one"
        );
    }
}
