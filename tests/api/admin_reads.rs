//! Black-box tests of the instance admin's reads: `GET /v1/admin/users` (every account with
//! its games) and `GET /v1/admin/usage` (every game's events this month against its quota).
use crate::events::{batch, track};
use crate::helpers::{spawn_app, Fetch};
use reqwest::Method;
use serde_json::json;

#[tokio::test]
async fn the_admin_pages_through_every_account_with_its_games() {
    let app = spawn_app().await;
    let admin = app.register("admin@studio.test").await;
    let owner = app.register("owner@studio.test").await;
    let game_id = app.create_game(&owner).await;
    app.create_game(&owner).await;
    app.dashboard(
        Method::POST,
        &format!("/v1/games/{game_id}/members"),
        &owner,
    )
    .json(&json!({ "email": "invited@studio.test", "role": "viewer" }))
    .expect_status(201)
    .await;

    let page = app
        .dashboard(Method::GET, "/v1/admin/users?limit=2", &admin)
        .expect_status(200)
        .await;
    assert_eq!(page["total"], 3);
    assert_eq!(page["next_offset"], 2);
    let users = page["users"].as_array().unwrap();
    assert_eq!(users.len(), 2);
    assert_eq!(users[0]["email"], "admin@studio.test");
    assert_eq!(users[0]["is_admin"], true);
    assert_eq!(users[0]["status"], "active");
    assert_eq!(users[0]["games"], 0);
    assert_eq!(users[1]["email"], "owner@studio.test");
    assert_eq!(users[1]["is_admin"], false);
    assert_eq!(users[1]["games"], 2);
    assert_eq!(users[1]["owned_games"], 2);
    assert!(users[1]["created_at"].as_str().unwrap().ends_with('Z'));

    let last = app
        .dashboard(Method::GET, "/v1/admin/users?limit=2&offset=2", &admin)
        .expect_status(200)
        .await;
    let users = last["users"].as_array().unwrap();
    assert_eq!(users.len(), 1);
    assert!(last.get("next_offset").is_none(), "{last}");
    assert_eq!(users[0]["email"], "invited@studio.test");
    assert_eq!(users[0]["status"], "pending");
    assert_eq!(users[0]["games"], 1);
    assert_eq!(users[0]["owned_games"], 0);
}

#[tokio::test]
async fn the_admin_sees_each_games_events_this_month_busiest_first() {
    let app = spawn_app().await;
    let admin = app.new_user().await;
    let (owner, quiet_game, _) = app.game_with_key().await;
    let busy_game = app.create_game(&owner).await;
    let key = app.create_key(&owner, &busy_game, "production").await;
    assert_eq!(track(&app, &key, batch(7)).await.0, 202);
    app.dashboard(Method::PATCH, &format!("/v1/games/{busy_game}"), &admin)
        .json(&json!({ "tier": "indie" }))
        .expect_status(200)
        .await;

    let page = app
        .dashboard(Method::GET, "/v1/admin/usage", &admin)
        .expect_status(200)
        .await;
    assert_eq!(page["total"], 2);
    assert_eq!(page["month"].as_str().unwrap().len(), 7, "{page}");
    let games = page["games"].as_array().unwrap();
    assert_eq!(games[0]["game_id"], busy_game.as_str());
    assert_eq!(games[0]["used"], 7);
    assert_eq!(games[0]["tier"], "indie");
    assert_eq!(games[0]["limit"], 1_000_000);
    assert_eq!(games[0]["remaining"], 1_000_000 - 7);
    assert_eq!(games[1]["game_id"], quiet_game.as_str());
    assert_eq!(games[1]["used"], 0);
    assert_eq!(games[1]["limit"], 100_000);

    let second = app
        .dashboard(Method::GET, "/v1/admin/usage?limit=1&offset=1", &admin)
        .expect_status(200)
        .await;
    assert_eq!(second["games"][0]["game_id"], quiet_game.as_str());
}

#[tokio::test]
async fn only_the_admin_reads_them_and_bad_pages_are_refused() {
    let app = spawn_app().await;
    let admin = app.new_user().await;
    let (owner, _, _) = app.game_with_key().await;
    for path in ["/v1/admin/users", "/v1/admin/usage"] {
        let refused = app
            .dashboard(Method::GET, path, &owner)
            .expect_status(403)
            .await;
        assert_eq!(refused["error"], "Only the instance admin can read this");
        app.request(Method::GET, path).expect_status(401).await;
        for (query, case) in [("limit=0", "zero"), ("limit=101", "above 100")] {
            let bad = app
                .dashboard(Method::GET, &format!("{path}?{query}"), &admin)
                .expect_status(400)
                .await;
            assert_eq!(bad["error"], "limit must be 1 to 100", "{case}");
        }
    }
}
