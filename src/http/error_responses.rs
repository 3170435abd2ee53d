//! The error answers of every operation, written into the OpenAPI document, so generated
//! clients get a typed error instead of "unexpected status". Handlers return `poem::Result`,
//! whose errors poem-openapi cannot see; the statuses follow instead from what each operation
//! is made of, the same facts the middleware and extractors act on:
//! - every API route: 429 (rate limit), 500 and 503 (storage unavailable, retry);
//! - a security scheme: 401 (missing, invalid or expired credentials) and 403 (not a member or
//!   not the role; a player token for another player; a banned player; reads switched off);
//! - a JSON body: 400 (the field at fault), 408 (not received within the body timeout), 413
//!   (over the cap) and 415 (not JSON);
//! - path or query parameters: 400 (malformed, naming the parameter); path ids: 404 (unknown
//!   to this game);
//! - a few operations more, by operation id (`EXTRA`).
//!
//! The black-box suite holds this to account: every answer it reads is checked against the
//! statuses the document lists for its operation (`tests/api/helpers.rs`).
use serde_json::{json, Map, Value};

/// Statuses some operations answer beyond what their shape says.
const EXTRA: &[(&str, &[u16])] = &[
    ("register", &[403, 409]),
    ("login", &[401, 403]),
    ("resetPassword", &[400]),
    ("createGame", &[403]),
    ("addMember", &[409]),
    ("resendInvitation", &[409, 429]),
    ("createApiKey", &[400]),
    ("createAchievement", &[409]),
    ("createLeaderboard", &[409]),
    ("updateLeaderboard", &[409]),
    ("updateMember", &[409]),
    ("removeMember", &[409]),
    ("putEventSchema", &[400]),
    ("track", &[400, 413]),
    ("signInPlayer", &[404, 409]),
    ("linkPlayerIdentity", &[409]),
    ("writeSave", &[409]),
    ("deleteSave", &[409]),
    ("unlockAchievement", &[404]),
    ("submitScore", &[403, 404, 409]),
    ("submitScoreToBoard", &[409]),
    ("joinTournament", &[409]),
];

/// Routes outside the rate limiter and the stores.
const PROBES: &[&str] = &["healthz", "readyz"];

/// Adds the error answers to every operation of `spec` (the document as JSON).
pub fn add(spec: &mut Value) {
    if let Some(schemas) = spec
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    {
        schemas.insert("Error".into(), error_schema());
    }
    let Some(paths) = spec.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for (path, operations) in paths.iter_mut() {
        let Some(operations) = operations.as_object_mut() else {
            continue;
        };
        for operation in operations.values_mut().filter_map(Value::as_object_mut) {
            let statuses = statuses(path, operation);
            let responses = operation
                .entry("responses")
                .or_insert_with(|| Value::Object(Map::new()));
            let Some(responses) = responses.as_object_mut() else {
                continue;
            };
            for status in statuses {
                responses
                    .entry(status.to_string())
                    .or_insert_with(|| response(status));
            }
        }
    }
}

/// The error statuses `operation` (at `path`) can answer.
pub fn statuses(path: &str, operation: &Map<String, Value>) -> Vec<u16> {
    let id = operation
        .get("operationId")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if PROBES.contains(&id) {
        return vec![];
    }
    let mut statuses = vec![429, 500, 503];
    let secured = operation
        .get("security")
        .and_then(Value::as_array)
        .is_some_and(|schemes| !schemes.is_empty());
    if secured {
        statuses.extend([401, 403]);
    }
    if operation.contains_key("requestBody") {
        statuses.extend([400, 408, 413, 415]);
    }
    let parameters = operation
        .get("parameters")
        .and_then(Value::as_array)
        .is_some_and(|parameters| !parameters.is_empty());
    if parameters {
        statuses.push(400);
    }
    if path.contains('{') {
        statuses.push(404);
    }
    if let Some((_, extra)) = EXTRA.iter().find(|(name, _)| *name == id) {
        statuses.extend(extra.iter().copied());
    }
    statuses.sort_unstable();
    statuses.dedup();
    statuses
}

fn response(status: u16) -> Value {
    let description = match status {
        400 => "The request is malformed: `error` says what, `field` names the field at fault.",
        401 => "Missing, invalid or expired credentials.",
        403 => "Not allowed for these credentials (`code` on a locked or pending account, and on a score to a tournament the player has not joined).",
        404 => "Not found (or not visible to these credentials).",
        408 => "The body did not arrive within the node's body timeout; the connection is closed.",
        409 => "Conflicts with what is stored (`version` on a save conflict; `code` on a tournament's refusal).",
        413 => "The body is too large (`limit`, and `received` when it was read).",
        415 => "The body must be JSON, sent uncompressed (no `Content-Encoding`).",
        429 => "Too many requests (`statusCode`, `message`; `Retry-After` says when to retry), or the monthly event quota is spent (`quota`).",
        500 => "An unexpected failure; the cause is in the server's log.",
        503 => "Temporarily unavailable (storage, or the node is at capacity): retry later, after `Retry-After` seconds when it is sent.",
        _ => "Error.",
    };
    json!({
        "description": description,
        "content": {
            "application/json; charset=utf-8": {
                "schema": { "$ref": "#/components/schemas/Error" }
            }
        }
    })
}

/// The one error body: `error` always; each context field where it applies.
fn error_schema() -> Value {
    json!({
        "type": "object",
        "title": "Error",
        "description": "Every non-2xx answer: `error` in plain words, and context fields where they apply.",
        "required": ["error"],
        "properties": {
            "error": { "type": "string", "description": "What went wrong, for a person to read." },
            "field": { "type": "string", "description": "The body field, or the path or query parameter, at fault (400)." },
            "code": {
                "type": "string",
                "description": "Why, for a program to branch on: `ACCOUNT_LOCKED` or `ACCOUNT_PENDING` (403 on sign-in); a tournament's refusal of a join or a score: `TOURNAMENT_NOT_STARTED`, `TOURNAMENT_ENDED`, `TOURNAMENT_FULL`, `NOT_A_TOURNAMENT` (409) or `TOURNAMENT_JOIN_REQUIRED` (403)."
            },
            "index": { "type": "integer", "description": "Position of the bad event in a `/v1/track` batch (400)." },
            "violations": {
                "type": "array",
                "description": "Events that break their event schema (400 on `/v1/track` with `enforce`).",
                "items": { "$ref": "#/components/schemas/SchemaViolation" }
            },
            "limit": { "type": "integer", "description": "The limit that was passed (413)." },
            "received": { "type": "integer", "description": "What was sent, in the limit's unit (413)." },
            "version": { "type": "integer", "description": "The version stored now (409 on a save)." },
            "quota": {
                "type": "object",
                "description": "The game's monthly event quota (429 on `/v1/track`).",
                "required": ["current", "limit", "remaining"],
                "properties": {
                    "current": { "type": "integer" },
                    "limit": { "type": "integer" },
                    "remaining": { "type": "integer" }
                }
            },
            "statusCode": { "type": "integer", "description": "429 (rate limit)." },
            "message": { "type": "string", "description": "When to try again (429, rate limit)." }
        }
    })
}
