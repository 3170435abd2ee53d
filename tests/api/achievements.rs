//! Black-box tests of achievements: definitions in the dashboard, listing and unlocking from the
//! game, unlock counts and rarity.
mod definitions;
mod unlocks;

use crate::helpers::{spawn_app, Fetch, TestApp};
use reqwest::Method;
use serde_json::{json, Value};

fn defs(game_id: &str) -> String {
    format!("/v1/games/{game_id}/achievements")
}

async fn define(app: &TestApp, token: &str, game_id: &str, body: Value) -> (u16, Value) {
    app.dashboard_json(Method::POST, &defs(game_id), token, body)
        .await
}

/// A one-point definition without a description.
fn plain(key: &str, name: &str) -> Value {
    json!({ "key": key, "name": name, "description": "", "points": 1 })
}

async fn unlock(app: &TestApp, key: &str, achievement: &str, player: &str) -> (u16, Value) {
    app.game_json(
        Method::POST,
        "/v1/achievements/unlock",
        key,
        json!({ "achievement_key": achievement, "player_id": player }),
    )
    .await
}

async fn list(app: &TestApp, key: &str, query: &str) -> Value {
    app.game(Method::GET, &format!("/v1/achievements{query}"), key)
        .expect_status(200)
        .await
}

/// The achievement `key` of a listing (its `achievements`).
fn achievement(listing: &Value, key: &str) -> Value {
    let achievements = listing["achievements"].as_array().unwrap();
    achievements
        .iter()
        .find(|a| a["key"] == key)
        .unwrap()
        .clone()
}

/// A game with three achievements: `first_blood` (10), `explorer` (25), `secret_ending` (50, hidden).
async fn game_with_achievements(app: &TestApp) -> (String, String, String) {
    let (token, game_id, key) = app.game_with_key().await;
    for body in [
        json!({ "key": "first_blood", "name": "First Blood", "description": "Win a fight", "points": 10 }),
        json!({ "key": "explorer", "name": "Explorer", "description": "Visit every zone", "points": 25,
                "icon_url": "https://cdn.example.com/explorer.png" }),
        json!({ "key": "secret_ending", "name": "True Ending", "description": "Find the hidden door",
                "points": 50, "hidden": true }),
    ] {
        let (status, created) = define(app, &token, &game_id, body).await;
        assert_eq!(status, 201, "{created}");
    }
    (token, game_id, key)
}
