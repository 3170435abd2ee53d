//! Player identity (`player_auth`): signing players in with a device id or a signed custom id,
//! linking identities, player tokens that let a request act only as their player, `required`
//! games refusing requests without one, `key_reads`, and rate limits per player.
mod identity;
mod limits;
mod tokens;

use crate::helpers::{spawn_app, spawn_app_with, Fetch, TestApp};
use hmac::{Hmac, Mac};
use reqwest::{Method, RequestBuilder};
use serde_json::{json, Value};
use sha2::Sha256;

const DEVICE: &str = "device-0123456789abcdef";

/// A game with player identity set to `mode`: (owner token, game id, key).
async fn game_with_player_auth(app: &TestApp, mode: &str) -> (String, String, String) {
    let (token, game_id, key) = app.game_with_key().await;
    set_game(app, &token, &game_id, json!({ "player_auth": mode })).await;
    (token, game_id, key)
}

async fn set_game(app: &TestApp, token: &str, game_id: &str, body: Value) -> Value {
    app.dashboard(Method::PATCH, &format!("/v1/games/{game_id}"), token)
        .json(&body)
        .expect_status(200)
        .await
}

async fn sign_in(app: &TestApp, key: &str, identity: Value) -> (u16, Value) {
    app.game_json(Method::POST, "/v1/players/auth", key, identity)
        .await
}

/// Signs in with a device id and answers (player token, player id).
async fn device_player(app: &TestApp, key: &str, device: &str) -> (String, String) {
    let (status, body) = sign_in(app, key, json!({ "device_id": device })).await;
    assert_eq!(status, 200, "{body}");
    (
        body["token"].as_str().unwrap().to_string(),
        body["player_id"].as_str().unwrap().to_string(),
    )
}

/// The request with `body` as its JSON body, if there is one.
fn with_json(request: RequestBuilder, body: Option<Value>) -> RequestBuilder {
    match body {
        Some(body) => request.json(&body),
        None => request,
    }
}

fn sign(secret: &str, custom_id: &str, timestamp: i64) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(format!("{custom_id}:{timestamp}").as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

async fn player_secret(app: &TestApp, token: &str, game_id: &str) -> String {
    let body = app
        .dashboard(
            Method::POST,
            &format!("/v1/games/{game_id}/player-secret"),
            token,
        )
        .expect_status(200)
        .await;
    body["secret"].as_str().unwrap().to_string()
}
