//! Recent events newest first, in pages by cursor, shown with what the client sent.
use super::*;

#[tokio::test]
async fn recent_events_come_newest_first_in_pages_without_repeats() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    // 20 events at distinct times, sent out of order in two batches, and 5 more sharing one
    // receive time: pages must cut through a tie as well.
    let minutes: Vec<i64> = (1..=20).map(|i| (i * 7) % 20 + 1).collect();
    for half in minutes.chunks(10) {
        let batch: Vec<Value> = half
            .iter()
            .map(|m| json!({ "event_name": "level_start", "session_id": "s", "player_id": format!("p{m}"), "client_timestamp": ago(&app, *m), "event_id": format!("m{m}") }))
            .collect();
        let (status, body) = track(&app, &key, Value::Array(batch)).await;
        assert_eq!(status, 202, "{body}");
    }
    let tied: Vec<Value> = (0..5)
        .map(|i| json!({ "event_name": "tick", "session_id": "s", "properties": { "i": i } }))
        .collect();
    assert_eq!(track(&app, &key, Value::Array(tied)).await.0, 202);

    let pages = all_pages(&app, &token, &game_id, "", 4).await;
    assert_eq!(
        pages.iter().map(Vec::len).collect::<Vec<_>>(),
        [4, 4, 4, 4, 4, 4, 1],
        "25 events in pages of 4"
    );
    let events: Vec<Value> = pages.concat();
    let ids: HashSet<&str> = field(&events, "id").into_iter().collect();
    assert_eq!(ids.len(), 25, "no event twice");
    let stored_ids: Vec<String> = stored(&app, &game_id)
        .await
        .iter()
        .map(|row| row.id.to_string())
        .collect();
    let stored_ids: HashSet<&str> = stored_ids.iter().map(String::as_str).collect();
    assert_eq!(ids, stored_ids, "every stored event once");
    let occurred = times(&events);
    assert!(
        occurred.windows(2).all(|pair| pair[0] >= pair[1]),
        "newest first: {occurred:?}"
    );
    assert_eq!(
        field(&events, "event_name")[..5],
        ["tick"; 5],
        "the events without a client time happened now"
    );
    let expected: Vec<String> = (1..=20).map(|m| format!("m{m}")).collect();
    assert_eq!(
        field(&events[5..], "event_id"),
        expected.iter().map(String::as_str).collect::<Vec<_>>(),
        "then by client time, a minute older each"
    );

    let (status, one_page) = recent(&app, &token, &game_id, "?limit=200").await;
    assert_eq!(status, 200);
    assert_eq!(
        one_page["events"].as_array().unwrap(),
        &events,
        "the pages join into the one-page answer"
    );
    assert_eq!(one_page["next_before"], Value::Null);
    let (_, default_page) = recent(&app, &token, &game_id, "").await;
    assert_eq!(
        default_page["events"].as_array().unwrap().len(),
        25,
        "up to 50 by default"
    );
}

#[tokio::test]
async fn a_stored_event_is_shown_with_what_the_client_sent() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let (status, body) = track(
        &app,
        &key,
        json!({
            "event_name": "level_complete",
            "session_id": "sess-42",
            "player_id": "player-7",
            "properties": { "level": 3, "time": 61.5, "tags": ["a"] },
            "client_timestamp": "2026-01-02T03:04:05Z",
            "event_id": "evt-1"
        }),
    )
    .await;
    assert_eq!(status, 202, "{body}");
    track(
        &app,
        &key,
        json!({ "event_name": "anonymous", "session_id": "s-9" }),
    )
    .await;

    let (status, page) = recent(&app, &token, &game_id, "").await;
    assert_eq!(status, 200, "{page}");
    let row = stored(&app, &game_id)
        .await
        .into_iter()
        .find(|r| r.event_name == "level_complete")
        .unwrap();
    assert_eq!(
        page["events"][1],
        json!({
            "id": row.id.to_string(),
            "event_id": "evt-1",
            "event_name": "level_complete",
            "player_id": "player-7",
            "session_id": "sess-42",
            "environment": "development",
            "properties": { "level": 3, "time": 61.5, "tags": ["a"] },
            "occurred_at": "2026-01-02T03:04:05Z",
            "received_at": playtrace::http::timestamp(row.received_at),
        })
    );
    let anonymous = &page["events"][0];
    assert_eq!(anonymous["event_name"], "anonymous");
    assert_eq!(anonymous["player_id"], Value::Null);
    assert_eq!(anonymous["event_id"], Value::Null);
    assert_eq!(anonymous["properties"], json!({}));
    assert_eq!(anonymous["occurred_at"], anonymous["received_at"]);
}

#[tokio::test]
async fn events_stored_between_pages_neither_repeat_nor_shift_them() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    for m in 1..=6 {
        track(&app, &key, json!({ "event_name": "a", "session_id": "s", "client_timestamp": ago(&app, m), "event_id": format!("m{m}") })).await;
    }
    let (_, first) = recent(&app, &token, &game_id, "?limit=3").await;
    assert_eq!(
        field(first["events"].as_array().unwrap(), "event_id"),
        ["m1", "m2", "m3"]
    );

    // a newer event and one from between the pages arrive meanwhile
    track(&app, &key, json!([
        { "event_name": "a", "session_id": "s", "event_id": "new" },
        { "event_name": "a", "session_id": "s", "client_timestamp": ago(&app, 30), "event_id": "old" },
    ]))
    .await;
    let before = first["next_before"].as_str().unwrap();
    let (status, second) =
        recent(&app, &token, &game_id, &format!("?limit=3&before={before}")).await;
    assert_eq!(status, 200, "{second}");
    assert_eq!(
        field(second["events"].as_array().unwrap(), "event_id"),
        ["m4", "m5", "m6"],
        "the page goes on where the first one ended"
    );
    let before = second["next_before"].as_str().unwrap();
    let (_, third) = recent(&app, &token, &game_id, &format!("?limit=3&before={before}")).await;
    assert_eq!(
        field(third["events"].as_array().unwrap(), "event_id"),
        ["old"]
    );
    assert_eq!(third["next_before"], Value::Null);
}
