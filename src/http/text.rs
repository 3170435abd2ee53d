//! Text the stores can keep: PostgreSQL refuses a NUL character in any text (a 500 once it got
//! that far) while SQLite stored it, so every JSON body and query parameter is checked once,
//! where it comes in (`api.rs`), and a NUL is refused with 400 `{error, field}` naming the
//! field (or the query or path parameter), the same on both backends. Invalid UTF-8 and lone
//! surrogates never get this far: the JSON parser and the query decoder refuse them.
use crate::error::ApiError;
use serde_json::Value;

/// The 400 for a body that holds a NUL character in a string or a key; `None` when it holds
/// none (or does not parse: the route's own parser answers that).
pub fn body_nul(body: &[u8]) -> Option<ApiError> {
    // A NUL can only be written `\u0000` in JSON text; most bodies never contain that.
    if !body.windows(6).any(|window| window == b"\\u0000") {
        return None;
    }
    let value: Value = serde_json::from_slice(body).ok()?;
    let field = nul_path(&value, "")?;
    Some(refusal(if field.is_empty() { "body" } else { &field }))
}

/// The 400 for a query parameter or a path parameter (each named by its name) that holds a
/// NUL (`%00`); `path` names a NUL in a path no route's template explains.
pub fn uri_nul(uri: &poem::http::Uri) -> Option<ApiError> {
    let path = uri.path();
    if path.contains("%00") {
        let parameter = path
            .split('/')
            .skip(1)
            .position(|segment| segment.contains("%00"))
            .and_then(|index| super::parameters::path_parameter_at(path, index));
        return Some(refusal(parameter.as_deref().unwrap_or("path")));
    }
    let query = uri.query()?;
    if !query.contains("%00") {
        return None;
    }
    query.split('&').find_map(|pair| {
        pair.contains("%00").then(|| {
            let name = pair.split_once('=').map_or(pair, |(name, _)| name);
            let name = name.replace("%00", "\\u0000");
            refusal(&name)
        })
    })
}

fn refusal(field: &str) -> ApiError {
    ApiError::bad_request(format!("{field} must not contain a NUL character")).with("field", field)
}

/// Where the first string (or key) with a NUL is, written as the 400s that name a field write
/// it: `name`, `steps[1]`, `properties.level.description`, `[0].event_name`.
fn nul_path(value: &Value, at: &str) -> Option<String> {
    match value {
        Value::String(text) => text.contains('\0').then(|| at.to_string()),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(index, item)| nul_path(item, &format!("{at}[{index}]"))),
        Value::Object(fields) => fields.iter().find_map(|(key, item)| {
            let shown = key.replace('\0', "\\u0000");
            let path = if at.is_empty() {
                shown
            } else {
                format!("{at}.{shown}")
            };
            if key.contains('\0') {
                Some(path)
            } else {
                nul_path(item, &path)
            }
        }),
        _ => None,
    }
}
