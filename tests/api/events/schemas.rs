//! Event schemas (dashboard) and the `event_validation` modes of `/v1/track`.
mod definitions;
mod trial;
mod validation;

use super::{stored, track};
use crate::helpers::{spawn_app, Fetch, TestApp};
use reqwest::Method;
use serde_json::{json, Value};

fn purchase_schema() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "required": ["amount", "currency"],
        "properties": {
            "amount": { "type": "number", "minimum": 0 },
            "currency": { "type": "string", "pattern": "^[A-Z]{3}$" }
        }
    })
}

pub async fn put_schema(
    app: &TestApp,
    token: &str,
    game_id: &str,
    name: &str,
    schema: Value,
) -> (u16, Value) {
    app.dashboard_json(
        Method::PUT,
        &format!("/v1/games/{game_id}/event-schemas/{name}"),
        token,
        schema,
    )
    .await
}

async fn set_validation(app: &TestApp, token: &str, game_id: &str, mode: &str) {
    app.dashboard(Method::PATCH, &format!("/v1/games/{game_id}"), token)
        .json(&json!({ "event_validation": mode }))
        .expect_status(200)
        .await;
}

fn purchases() -> Value {
    json!([
        { "event_name": "purchase", "session_id": "s", "properties": { "amount": 4.99, "currency": "EUR" } },
        { "event_name": "purchase", "session_id": "s", "properties": { "amount": -1, "currency": "euro" } },
        { "event_name": "level_start", "session_id": "s", "properties": { "anything": true } },
        { "event_name": "purchase", "session_id": "s" },
    ])
}
