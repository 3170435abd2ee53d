use crate::helpers::{read, services_backend, spawn_app_with, spawn_on};
use reqwest::Method;

#[tokio::test]
async fn requests_over_the_limit_get_429_with_headers() {
    let app = spawn_app_with(|s| s.rate_limit_per_minute = 5).await;
    let (_token, _game, key) = {
        // registering and creating take requests from other buckets (IP and user)
        let token = app.new_user().await;
        let game = app.create_game(&token).await;
        let key = app.create_key(&token, &game, "production").await;
        (token, game, key)
    };
    app.away_from_a_minute_boundary();
    for expected_remaining in (0..5).rev() {
        let response = app
            .game(Method::GET, "/v1/config", &key)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(response.headers()["x-ratelimit-limit"], "5");
        assert_eq!(
            response.headers()["x-ratelimit-remaining"],
            expected_remaining.to_string().as_str()
        );
        let reset: u64 = response.headers()["x-ratelimit-reset"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!((1..=60).contains(&reset));
    }
    let response = app
        .game(Method::GET, "/v1/config", &key)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 429);
    assert!(response.headers().contains_key("retry-after"));
    let (_, body) = read(response).await;
    assert_eq!(body["statusCode"], 429);
    assert_eq!(body["error"], "Too Many Requests");
    assert!(body["message"].as_str().unwrap().contains("60 seconds"));

    // the window moves on with the clock
    app.clock.advance(chrono::Duration::seconds(61));
    assert_eq!(app.game_call(Method::GET, "/v1/config", &key).await.0, 200);
}

#[tokio::test]
async fn unauthenticated_routes_are_limited_per_ip() {
    let app = spawn_app_with(|s| s.rate_limit_per_minute = 3).await;
    app.away_from_a_minute_boundary();
    for _ in 0..3 {
        let response = app
            .request(Method::GET, "/v1/nothing")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 404);
        assert!(
            response.headers().contains_key("x-ratelimit-remaining"),
            "headers on errors too"
        );
    }
    let (status, body) = app.call(Method::GET, "/v1/nothing").await;
    assert_eq!(status, 429);
    assert_eq!(body["error"], "Too Many Requests");
}

#[tokio::test]
async fn two_nodes_share_accounts_keys_and_rate_windows() {
    if !services_backend() {
        return; // one in-process store per node: sharing needs Redis + PostgreSQL
    }
    let first = spawn_app_with(|s| s.rate_limit_per_minute = 4).await;
    let second = spawn_on(first.backend.clone(), |s| s.rate_limit_per_minute = 4).await;
    let (token, game_id, key) = first.game_with_key().await;

    let (status, _) = second
        .dashboard_call(Method::GET, &format!("/v1/games/{game_id}"), &token)
        .await;
    assert_eq!(status, 200, "a token from node 1 works on node 2");
    // Keep the six requests inside one window: move both clocks past a close minute boundary
    // (a CI run once had the first request in one minute and the other five in the next).
    first.away_from_a_minute_boundary_with(&[&second]);
    let mut statuses = Vec::new();
    for i in 0..6 {
        let node = if i % 2 == 0 { &first } else { &second };
        statuses.push(node.game_call(Method::GET, "/v1/config", &key).await.0);
    }
    assert_eq!(
        statuses,
        vec![200, 200, 200, 200, 429, 429],
        "one window across both nodes"
    );
}

#[tokio::test]
async fn leased_windows_never_admit_more_than_the_limit_across_nodes() {
    if !services_backend() {
        return;
    }
    // A limit of 1,000 leases 10 positions at a time; two nodes hammering one key together
    // must still admit at most 1,000 in the window.
    let first = spawn_app_with(|s| s.rate_limit_per_minute = 1000).await;
    let second = spawn_on(first.backend.clone(), |s| s.rate_limit_per_minute = 1000).await;
    let (_token, _game_id, key) = first.game_with_key().await;
    // Keep the whole run inside one window: move both clocks past a close minute boundary.
    first.away_from_a_minute_boundary_with(&[&second]);
    let mut tasks = Vec::new();
    for node in [&first, &second] {
        for _ in 0..8 {
            let client = node.client.clone();
            let url = node.url("/v1/config");
            let key = key.clone();
            tasks.push(tokio::spawn(async move {
                let mut admitted = 0u32;
                for _ in 0..150 {
                    let status = client
                        .get(&url)
                        .header("x-game-api-key", &key)
                        .send()
                        .await
                        .unwrap()
                        .status();
                    admitted += (status == 200) as u32;
                }
                admitted
            }));
        }
    }
    let mut admitted = 0;
    for task in tasks {
        admitted += task.await.unwrap();
    }
    assert!(
        admitted <= 1000,
        "admitted {admitted} of 2,400 with a limit of 1,000"
    );
    assert!(
        admitted >= 1000 - 2 * 10,
        "at most one lease per node lost: admitted {admitted}"
    );
}
