//! Redis unreachable: hot routes answer 503 at once, cold reads keep working, and all recover.
use super::*;

#[tokio::test]
async fn while_redis_is_unreachable_hot_routes_answer_503_at_once_cold_reads_work_and_all_recover()
{
    if !services_backend() {
        return;
    }
    let (app, proxy) = node_behind_redis_proxy().await;
    let (token, game_id, key) = app.game_with_key().await;

    // What the game and its dashboard set up while everything is up.
    let (status, body) = app.dashboard_json(Method::POST, &format!("/v1/games/{game_id}/achievements"), &token, json!({ "key": "first_win", "name": "First Win", "description": "Win once", "points": 10 })).await;
    assert_eq!(status, 201, "{body}");
    app.dashboard(Method::PUT, &format!("/v1/games/{game_id}/config"), &token)
        .json(&json!({ "values": { "motd": "hello" } }))
        .expect_status(200)
        .await;
    let (status, body) = app
        .game_json(
            Method::PUT,
            "/v1/saves/p1/slot-1",
            &key,
            json!({ "data": { "level": 3 }, "version": 0 }),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    for (player, score) in [("p1", 100.0), ("p2", 50.0)] {
        let done = answer("submit", submit(&app, &key, "main", player, score)).await;
        assert_eq!(done.status, 200, "{}", done.body);
    }
    assert_eq!(
        answer("activity", set_activity(&app, &key, "p1"))
            .await
            .status,
        200
    );
    assert_eq!(
        answer("track", track_one(&app, &key, "before"))
            .await
            .status,
        202
    );

    proxy.cut().await;

    // Routes that need the hot store: a clear 503 at once, nothing half done.
    let hot: Vec<(&str, RequestBuilder)> = vec![
        ("POST /v1/track", track_one(&app, &key, "during")),
        (
            "POST /v1/leaderboards",
            submit(&app, &key, "main", "p3", 75.0),
        ),
        (
            "GET /v1/leaderboards/main",
            app.game(Method::GET, "/v1/leaderboards/main", &key),
        ),
        (
            "GET /v1/leaderboards/main/players/p1",
            app.game(Method::GET, "/v1/leaderboards/main/players/p1", &key),
        ),
        ("POST /v1/activity", set_activity(&app, &key, "p2")),
        (
            "GET /v1/presence",
            app.game(Method::GET, "/v1/presence", &key),
        ),
        (
            "GET /v1/presence/p1",
            app.game(Method::GET, "/v1/presence/p1", &key),
        ),
    ];
    for (what, request) in hot {
        assert_unavailable(what, &answer(what, request).await);
    }
    let ready = answer("GET /readyz", app.request(Method::GET, "/readyz")).await;
    assert_eq!(
        (ready.status, &ready.body),
        (
            503,
            &json!({ "status": "unavailable", "cold_store": true, "hot_store": false })
        )
    );
    assert!(ready.took < PROMPT, "readiness took {:?}", ready.took);

    // What the cold store alone can serve still answers, promptly (the rate limiter lets
    // requests through while it cannot count them).
    type Check<'a> = Box<dyn Fn(&Value) -> bool + 'a>;
    let cold: Vec<(&str, RequestBuilder, Check)> = vec![
        (
            "GET /v1/config",
            app.game(Method::GET, "/v1/config", &key),
            Box::new(|body| body["config"]["motd"] == "hello"),
        ),
        (
            "GET /v1/achievements",
            app.game(Method::GET, "/v1/achievements?player_id=p1", &key),
            Box::new(|body| body["achievements"][0]["key"] == "first_win"),
        ),
        (
            "POST /v1/achievements/unlock",
            app.game(Method::POST, "/v1/achievements/unlock", &key)
                .json(&json!({ "achievement_key": "first_win", "player_id": "p1" })),
            Box::new(|body| body["success"] == true && body["total_points"] == 10),
        ),
        (
            "GET /v1/saves/p1/slot-1",
            app.game(Method::GET, "/v1/saves/p1/slot-1", &key),
            Box::new(|body| body["data"]["level"] == 3),
        ),
        (
            "GET /v1/games",
            app.dashboard(Method::GET, "/v1/games", &token),
            Box::new(|body| body["games"][0]["game_id"] == game_id.as_str()),
        ),
        (
            "GET /v1/games/{id}/leaderboards",
            app.dashboard(
                Method::GET,
                &format!("/v1/games/{game_id}/leaderboards"),
                &token,
            ),
            Box::new(|body| body["leaderboards"][0]["board_name"] == "main"),
        ),
        (
            "GET /v1/games/{id}/leaderboards/main",
            app.dashboard(
                Method::GET,
                &format!("/v1/games/{game_id}/leaderboards/main"),
                &token,
            ),
            Box::new(|body| body["order"] == "higher"),
        ),
    ];
    for (what, request, expected) in cold {
        let done = answer(what, request).await;
        assert_eq!(done.status, 200, "{what}: {}", done.body);
        assert!(expected(&done.body), "{what}: {}", done.body);
        assert!(done.took < PROMPT, "{what} took {:?}", done.took);
    }

    proxy.restore().await;
    within("a track accepted after Redis is back", PROMPT, || async {
        let done = answer("track", track_one(&app, &key, "after")).await;
        assert!(matches!(done.status, 202 | 503), "{}", done.body);
        done.status == 202
    })
    .await;

    // Everything answers again, and keeps answering: no 5xx from here on.
    for round in 0..3 {
        let done = answer("track", track_one(&app, &key, &format!("after-{round}"))).await;
        assert_eq!(done.status, 202, "{}", done.body);
        // The score refused with 503 during the outage is taken when sent again.
        let done = answer("submit", submit(&app, &key, "main", "p3", 75.0)).await;
        assert_eq!(done.status, 200, "{}", done.body);
        assert_eq!(done.body["rank"], 2, "{}", done.body);
        let done = answer(
            "board",
            app.game(Method::GET, "/v1/leaderboards/main", &key),
        )
        .await;
        assert_eq!(done.status, 200, "{}", done.body);
        let ranked: Vec<(Value, Value, Value)> = done.body["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e["player_id"].clone(),
                    e["score"].clone(),
                    e["rank"].clone(),
                )
            })
            .collect();
        assert_eq!(
            ranked,
            vec![
                (json!("p1"), json!(100), json!(1)),
                (json!("p3"), json!(75), json!(2)),
                (json!("p2"), json!(50), json!(3)),
            ]
        );
        let done = answer(
            "around",
            app.game(Method::GET, "/v1/leaderboards/main/players/p2", &key),
        )
        .await;
        assert_eq!(done.status, 200, "{}", done.body);
        assert_eq!(done.body["rank"], 3, "{}", done.body);
        let done = answer("activity", set_activity(&app, &key, "p2")).await;
        assert_eq!(done.status, 200, "{}", done.body);
        let done = answer("presence", app.game(Method::GET, "/v1/presence", &key)).await;
        assert_eq!(done.status, 200, "{}", done.body);
        assert_eq!(done.body["active_count"], 2, "{}", done.body);
        let done = answer("readyz", app.request(Method::GET, "/readyz")).await;
        assert_eq!(done.status, 200, "{}", done.body);
        let done = answer("config", app.game(Method::GET, "/v1/config", &key)).await;
        assert_eq!(done.status, 200, "{}", done.body);
    }
}
