//! What a recent-events query may ask: filters by name, player and environment, and the
//! refusal of bad queries and other tenants' games.
use super::*;

/// An event the filter test sent, with what the filters look at.
struct Sent {
    event_id: String,
    name: &'static str,
    player: &'static str,
    production: bool,
}

#[tokio::test]
async fn recent_events_filter_by_name_player_and_environment() {
    let app = spawn_app().await;
    let (token, game_id, development) = app.game_with_key().await;
    let production = app.create_key(&token, &game_id, "production").await;
    let mut sent = Vec::new();
    for i in 0..12 {
        let name = ["purchase", "level_start", "crash"][i % 3];
        let player = ["ana", "bob"][i % 2];
        let in_production = matches!(i, 0 | 3 | 5 | 10);
        let key = if in_production {
            &production
        } else {
            &development
        };
        let (status, body) = track(
            &app,
            key,
            json!({ "event_name": name, "session_id": "s", "player_id": player, "client_timestamp": ago(&app, 60 - i as i64), "event_id": format!("e{i}") }),
        )
        .await;
        assert_eq!(status, 202, "{body}");
        sent.push(Sent {
            event_id: format!("e{i}"),
            name,
            player,
            production: in_production,
        });
    }
    let expect = |keep: &dyn Fn(&Sent) -> bool| -> Vec<String> {
        sent.iter()
            .rev()
            .filter(|e| keep(e))
            .map(|e| e.event_id.clone())
            .collect()
    };

    let cases: Vec<(&str, Vec<String>)> = vec![
        ("&event_name=purchase", expect(&|e| e.name == "purchase")),
        ("&player_id=ana", expect(&|e| e.player == "ana")),
        ("&environment=production", expect(&|e| e.production)),
        ("&environment=development", expect(&|e| !e.production)),
        (
            "&event_name=level_start&player_id=bob",
            expect(&|e| e.name == "level_start" && e.player == "bob"),
        ),
        (
            "&player_id=ana&environment=production",
            expect(&|e| e.player == "ana" && e.production),
        ),
        ("&event_name=nothing_like_it", vec![]),
        ("&player_id=carol", vec![]),
    ];
    for (query, expected) in cases {
        let pages = all_pages(&app, &token, &game_id, query, 2).await;
        let events = pages.concat();
        assert_eq!(
            field(&events, "event_id"),
            expected.iter().map(String::as_str).collect::<Vec<_>>(),
            "{query}, in pages of 2"
        );
    }
    let (_, page) = recent(&app, &token, &game_id, "?environment=production&limit=1").await;
    assert_eq!(page["events"][0]["environment"], "production");
}

#[tokio::test]
async fn recent_events_refuse_bad_queries_and_other_tenants() {
    let app = spawn_app().await;
    let _admin = app.new_user().await;
    let (token, game_id, key) = app.game_with_key().await;
    for m in 1..=3 {
        track(
            &app,
            &key,
            json!({ "event_name": "a", "session_id": "s", "client_timestamp": ago(&app, m) }),
        )
        .await;
    }
    let (_, page) = recent(&app, &token, &game_id, "?limit=1").await;
    let cursor = page["next_before"].as_str().unwrap().to_string();
    let (status, _) = recent(&app, &token, &game_id, &format!("?before={cursor}")).await;
    assert_eq!(status, 200, "a cursor works");

    let cases: Vec<(String, &str, &str)> = vec![
        (
            "?limit=0".into(),
            "limit must be an integer from 1 to 200",
            "limit 0",
        ),
        (
            "?limit=201".into(),
            "limit must be an integer from 1 to 200",
            "limit 201",
        ),
        (
            "?limit=-5".into(),
            "limit must be an integer from 1 to 200",
            "negative limit",
        ),
        ("?limit=ten".into(), "", "limit not a number"),
        (
            "?before=nonsense".into(),
            "before must be the next_before of a previous page",
            "not hex",
        ),
        (
            format!("?before={}", &cursor[..20]),
            "before must be the next_before",
            "cut short",
        ),
        (
            format!("?before={cursor}ab"),
            "before must be the next_before",
            "too long",
        ),
        (
            "?before=".into(),
            "before must be the next_before",
            "empty cursor",
        ),
        (
            "?environment=staging".into(),
            "environment must be development or production",
            "unknown environment",
        ),
        (
            format!("?event_name={}", "n".repeat(129)),
            "event_name must be 1 to 128 characters",
            "long event name",
        ),
        (
            "?event_name=".into(),
            "event_name must be 1 to 128 characters",
            "empty event name",
        ),
        (
            "?player_id=".into(),
            "player_id must be 1 to 128 characters",
            "empty player id",
        ),
        ("?player_id=a%00b".into(), "NUL", "NUL in the player id"),
    ];
    for (query, expected, case) in cases {
        let (status, body) = recent(&app, &token, &game_id, &query).await;
        assert_eq!(status, 400, "{case}: {body}");
        let error = body["error"].as_str().unwrap_or_default();
        assert!(
            error.contains(expected),
            "{case}: {expected:?} in {error:?}"
        );
    }

    let (viewer, _) = app.new_member(&token, &game_id, "viewer").await;
    let (status, page) = recent(&app, &viewer, &game_id, "").await;
    assert_eq!(status, 200, "any member reads them: {page}");
    assert_eq!(page["events"].as_array().unwrap().len(), 3);

    let (other, other_game, _) = app.game_with_key().await;
    for (bearer, game, case) in [
        (&other, &game_id, "another tenant's game"),
        (&token, &other_game, "the other way round"),
        (&other, &Uuid::new_v4().to_string(), "an unknown game"),
    ] {
        for path in ["events", "events/counts", "usage"] {
            let (status, body) = app
                .dashboard_call(Method::GET, &format!("/v1/games/{game}/{path}"), bearer)
                .await;
            assert_eq!(status, 403, "{path}, {case}: {body}");
            assert_eq!(
                body["error"], "You do not have access to this game",
                "{path}, {case}"
            );
        }
    }
    app.request(Method::GET, &format!("/v1/games/{game_id}/events"))
        .expect_status(401)
        .await;
    let body = app
        .dashboard(Method::GET, "/v1/games/not-a-uuid/events", &token)
        .expect_status(400)
        .await;
    assert!(body["error"].is_string());
}
