//! The player token header in the OpenAPI document. Player identity reads `x-player-token`
//! beside the game key in `auth::schemes`, an extractor poem-openapi cannot describe, so the
//! header is written into every game-key operation here: optional everywhere (required by a
//! game whose `player_auth` is `required`, on player-scoped routes), and required on the two
//! routes that act on a signed-in player (`/v1/players/link`, `/v1/players/refresh`).
use serde_json::{json, Value};

const REQUIRED_ON: &[&str] = &["linkPlayerIdentity", "refreshPlayerToken"];

/// Adds the `x-player-token` header parameter to every operation secured by the game key.
pub fn add(spec: &mut Value) {
    let Some(paths) = spec.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for operation in paths
        .values_mut()
        .filter_map(Value::as_object_mut)
        .flat_map(|methods| methods.values_mut())
        .filter_map(Value::as_object_mut)
    {
        let by_key = operation
            .get("security")
            .and_then(Value::as_array)
            .is_some_and(|schemes| schemes.iter().any(|s| s.get("ApiKeyAuth").is_some()));
        if !by_key {
            continue;
        }
        let id = operation
            .get("operationId")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let required = REQUIRED_ON.contains(&id);
        let parameter = json!({
            "name": "x-player-token",
            "in": "header",
            "required": required,
            "description": "A player token from `POST /v1/players/auth`: the request then acts only as that player (403 for another `player_id`). Required on player-scoped routes of a game whose `player_auth` is `required` (401 without it).",
            "schema": { "type": "string" }
        });
        if let Some(parameters) = operation
            .entry("parameters")
            .or_insert_with(|| Value::Array(vec![]))
            .as_array_mut()
        {
            parameters.push(parameter);
        }
    }
}
