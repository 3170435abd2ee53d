//! The error answers of every operation, written into the OpenAPI document, so generated
//! clients get a typed error instead of "unexpected status". Handlers return `poem::Result`,
//! whose errors poem-openapi cannot see; the statuses come from two places:
//! - what the middleware and extractors answer, which follows from what an operation is made
//!   of: every API route 400 (a NUL character in its query string, any parameter's: refused
//!   before routing, `http::text`), 429 (rate limit), 500 and 503 (storage unavailable, retry); a
//!   security scheme 401 (missing, invalid or expired credentials), and a game key also 403
//!   (a browser origin its game does not allow, `cors.rs`); a JSON body 400 (the field at
//!   fault), 408 (not received within the body timeout), 413 (over the cap) and 415 (not
//!   JSON); path, query or header parameters 400 (malformed, naming the parameter);
//! - what each operation's own code answers beyond that (a role it needs: 403; an unknown
//!   rule, board or save: 404; a conflict: 409 ...), declared by its feature beside its routes
//!   with `http::statuses!` and collected in `api::STATUSES`.
//!
//! `faults` names an operation without a declaration and a declaration without an operation
//! (`tests/api/openapi.rs` fails on either). The black-box suite holds the declarations to
//! account: every answer it reads is checked against the statuses the document lists for its
//! operation (`tests/api/contract.rs`).
use serde_json::{json, Map, Value};
use std::collections::BTreeSet;

/// The statuses one operation's own code answers beyond the universal ones.
#[derive(Debug)]
pub struct Declared {
    pub operation: &'static str,
    pub statuses: &'static [u16],
}

/// One feature's (or one routes file's) declarations, as `http::statuses!` writes them.
pub type Statuses = &'static [Declared];

/// Declares, by operation id, the error statuses each operation of a routes file answers
/// beyond the universal ones (see `http::error_responses`):
///
/// ```ignore
/// pub const STATUSES: Statuses = crate::http::statuses! {
///     listGames: [],
///     getGame: [403],
///     revokeApiKey: [403, 404],
/// };
/// ```
macro_rules! statuses {
    ($($operation:ident: [$($status:literal),* $(,)?]),* $(,)?) => {
        &[$($crate::http::error_responses::Declared {
            operation: stringify!($operation),
            statuses: &[$($status),*],
        }),*]
    };
}
pub(crate) use statuses;

/// Routes outside the rate limiter and the stores.
const PROBES: &[&str] = &["healthz", "readyz"];

/// Adds the error answers to every operation of `spec` (the document as JSON), from the
/// universal rules and the operations' declarations.
pub fn add(spec: &mut Value, declared: &[Statuses]) {
    if let Some(schemas) = spec
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    {
        schemas.insert("Error".into(), error_schema());
    }
    let Some(paths) = spec.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for operations in paths.values_mut() {
        let Some(operations) = operations.as_object_mut() else {
            continue;
        };
        for operation in operations.values_mut().filter_map(Value::as_object_mut) {
            let statuses = operation_statuses(operation, declared);
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

/// The error statuses `operation` can answer: the universal ones its shape brings, and its
/// declared ones.
pub fn operation_statuses(operation: &Map<String, Value>, declared: &[Statuses]) -> Vec<u16> {
    let id = operation_id(operation);
    if PROBES.contains(&id) {
        return vec![];
    }
    let mut statuses = vec![400, 429, 500, 503];
    let schemes: Vec<&str> = operation
        .get("security")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_object)
        .flat_map(|requirement| requirement.keys().map(String::as_str))
        .collect();
    if !schemes.is_empty() {
        statuses.push(401);
    }
    if schemes.contains(&"ApiKeyAuth") {
        statuses.push(403);
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
    let own = declared
        .iter()
        .flat_map(|statuses| statuses.iter())
        .filter(|declaration| declaration.operation == id);
    for declaration in own {
        statuses.extend(declaration.statuses.iter().copied());
    }
    statuses.sort_unstable();
    statuses.dedup();
    statuses
}

/// What is wrong with `declared` against the operations of `spec`: an operation no
/// declaration names (a route added without saying what it answers), a declaration naming no
/// operation (a renamed or removed one), and an operation declared twice.
pub fn faults(spec: &Value, declared: &[Statuses]) -> Vec<String> {
    let operations: BTreeSet<&str> = spec
        .get("paths")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|paths| paths.values())
        .filter_map(Value::as_object)
        .flat_map(|operations| operations.values())
        .filter_map(Value::as_object)
        .map(operation_id)
        .collect();
    let mut seen = BTreeSet::new();
    let mut faults = Vec::new();
    for declaration in declared.iter().flat_map(|statuses| statuses.iter()) {
        if !operations.contains(declaration.operation) {
            faults.push(format!(
                "{} is declared, but no operation has that id",
                declaration.operation
            ));
        }
        if !seen.insert(declaration.operation) {
            faults.push(format!("{} is declared twice", declaration.operation));
        }
    }
    for operation in operations.difference(&seen) {
        faults.push(format!(
            "{operation} has no declaration of its statuses (http::statuses! beside its routes)"
        ));
    }
    faults
}

fn operation_id(operation: &Map<String, Value>) -> &str {
    operation
        .get("operationId")
        .and_then(Value::as_str)
        .unwrap_or_default()
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
                "description": "Why, for a program to branch on: `ACCOUNT_LOCKED` or `ACCOUNT_PENDING` (403 on sign-in); a tournament's refusal of a join or a score: `TOURNAMENT_NOT_STARTED`, `TOURNAMENT_ENDED`, `TOURNAMENT_FULL`, `NOT_A_TOURNAMENT` (409) or `TOURNAMENT_JOIN_REQUIRED` (403); `PLAYER_BANNED` (403), a score from a player banned from the board."
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

#[cfg(test)]
mod tests {
    use super::*;

    const DECLARED: &[Statuses] = &[
        statuses! { listThings: [], getThing: [404] },
        statuses! { removedThing: [409], getThing: [403] },
    ];

    fn spec() -> Value {
        json!({ "paths": {
            "/things": { "get": { "operationId": "listThings",
                                  "security": [{ "BearerAuth": [] }] } },
            "/things/{id}": {
                "get": { "operationId": "getThing", "security": [{ "ApiKeyAuth": [] }],
                         "parameters": [{ "name": "id" }] },
                "put": { "operationId": "putThing", "requestBody": {} }
            }
        }})
    }

    fn operation(spec: &Value, path: &str, method: &str) -> Map<String, Value> {
        spec["paths"][path][method].as_object().unwrap().clone()
    }

    #[test]
    fn statuses_are_the_universal_ones_and_the_declared_ones() {
        let spec = spec();
        let list = operation_statuses(&operation(&spec, "/things", "get"), DECLARED);
        assert_eq!(
            list,
            [400, 401, 429, 500, 503],
            "a dashboard read declaring nothing (400: a NUL in its query string)"
        );
        let get = operation_statuses(&operation(&spec, "/things/{id}", "get"), DECLARED);
        assert_eq!(
            get,
            [400, 401, 403, 404, 429, 500, 503],
            "a game-key read with a path id"
        );
        let put = operation_statuses(&operation(&spec, "/things/{id}", "put"), DECLARED);
        assert_eq!(
            put,
            [400, 408, 413, 415, 429, 500, 503],
            "an open write with a body"
        );
    }

    #[test]
    fn faults_name_undeclared_operations_and_unknown_or_repeated_declarations() {
        let faults = faults(&spec(), DECLARED);
        assert_eq!(
            faults,
            [
                "removedThing is declared, but no operation has that id",
                "getThing is declared twice",
                "putThing has no declaration of its statuses (http::statuses! beside its routes)",
            ]
        );
    }
}
