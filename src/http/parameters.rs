//! Names the path or query parameter at fault, and says what it must be, when it does not
//! parse. poem-openapi's own message describes its parser (`failed to parse "integer_int64"
//! ... "optional_integer_int64"`) and calls path parameters `param0`, `param1`; this module
//! reads each operation's parameters from the service's own OpenAPI document and answers
//! `{error: "limit must be an integer", field: "limit"}`. It also tells `http::text` which
//! parameter a path segment is, so a NUL in a path names it too.
use crate::error::ApiError;
use poem_openapi::error::{ParseParamError, ParsePathError};
use serde_json::Value;
use std::{collections::HashMap, sync::OnceLock};

/// One operation's path template (`/v1/games/{game_id}`) and parameters.
struct Operation {
    path: String,
    parameters: Vec<Parameter>,
}

struct Parameter {
    name: String,
    location: String,
    schema: Value,
}

/// Every operation, by operation id, read once per process.
static OPERATIONS: OnceLock<HashMap<String, Operation>> = OnceLock::new();

/// Reads the operations of `spec` (the OpenAPI document as JSON) on the first call.
pub fn init(spec: impl FnOnce() -> String) {
    OPERATIONS.get_or_init(|| read(&serde_json::from_str(&spec()).unwrap_or_default()));
}

/// A parameter that did not parse becomes the 400 naming it; any other error passes as is.
pub fn name_the_parameter(error: poem::Error) -> poem::Error {
    let Some(operation) = error.data::<poem_openapi::OperationId>().copied() else {
        return error;
    };
    let named = if let Some(param) = error.downcast_ref::<ParseParamError>() {
        explain(operation.0, param.name, &param.reason)
    } else if let Some(path) = error.downcast_ref::<ParsePathError>() {
        path_name(operation.0, path.name).and_then(|name| explain(operation.0, &name, &path.reason))
    } else {
        None
    };
    match named {
        Some(named) => {
            let mut named = poem::Error::from(named);
            named.set_data(operation);
            named
        }
        None => error,
    }
}

/// The name of the path parameter in segment `index` (0 is the segment after the first `/`)
/// of a request for `path`, when an operation's template has a parameter there.
pub fn path_parameter_at(path: &str, index: usize) -> Option<String> {
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    OPERATIONS.get()?.values().find_map(|operation| {
        let template: Vec<&str> = operation.path.split('/').skip(1).collect();
        let fits = template.len() == segments.len()
            && template
                .iter()
                .zip(&segments)
                .all(|(part, segment)| part.starts_with('{') || part == segment);
        let part = template.get(index)?;
        let name = part.strip_prefix('{')?.strip_suffix('}')?;
        fits.then(|| name.to_string())
    })
}

/// poem-openapi calls path parameters `param0`, `param1`, ... in the order of the template.
fn path_name(operation: &str, internal: &str) -> Option<String> {
    let index: usize = internal.strip_prefix("param")?.parse().ok()?;
    let operation = OPERATIONS.get()?.get(operation)?;
    operation
        .path
        .split('/')
        .filter_map(|part| part.strip_prefix('{')?.strip_suffix('}'))
        .nth(index)
        .map(str::to_string)
}

fn explain(operation: &str, name: &str, reason: &str) -> Option<ApiError> {
    let parameter = OPERATIONS
        .get()?
        .get(operation)?
        .parameters
        .iter()
        .find(|parameter| parameter.name == name)?;
    // The parser's words for a required parameter that was not sent.
    let message = if reason.contains("expects an input value") {
        format!("{name} is required")
    } else {
        format!("{name} must be {}", must_be(&parameter.schema))
    };
    let error = ApiError::bad_request(message);
    Some(match parameter.location.as_str() {
        "path" | "query" => error.with("field", name),
        _ => error,
    })
}

/// What a value of `schema` is, in words: `an integer`, `a UUID`, `true or false`.
fn must_be(schema: &Value) -> String {
    let text = |key: &str| schema.get(key).and_then(Value::as_str).unwrap_or_default();
    if let Some(options) = schema.get("enum").and_then(Value::as_array) {
        let options: Vec<&str> = options.iter().filter_map(Value::as_str).collect();
        return format!("one of: {}", options.join(", "));
    }
    match (text("type"), text("format")) {
        ("integer", format) if format.starts_with("uint") => "an integer of 0 or more".into(),
        ("integer", _) => "an integer".into(),
        ("number", _) => "a number".into(),
        ("boolean", _) => "true or false".into(),
        ("string", "uuid") => "a UUID".into(),
        ("string", "date") => "a date (YYYY-MM-DD)".into(),
        ("string", "date-time") => "an ISO 8601 timestamp, e.g. 2026-11-21T10:00:00Z".into(),
        ("array", _) => match schema.get("items") {
            Some(items) => format!("a list, each {}", must_be(items)),
            None => "a list".into(),
        },
        ("string", _) => match schema.get("maxLength").and_then(Value::as_u64) {
            Some(max) => format!("at most {max} characters"),
            None => "text".into(),
        },
        _ => "a valid value".into(),
    }
}

fn read(spec: &Value) -> HashMap<String, Operation> {
    let mut operations = HashMap::new();
    let Some(paths) = spec.get("paths").and_then(Value::as_object) else {
        return operations;
    };
    for (path, methods) in paths {
        let Some(methods) = methods.as_object() else {
            continue;
        };
        for operation in methods.values() {
            let Some(id) = operation.get("operationId").and_then(Value::as_str) else {
                continue;
            };
            let parameters = operation
                .get("parameters")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|parameter| {
                    let text = |key: &str| {
                        parameter
                            .get(key)
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_string()
                    };
                    Parameter {
                        name: text("name"),
                        location: text("in"),
                        schema: parameter.get("schema").cloned().unwrap_or_default(),
                    }
                })
                .collect();
            operations.insert(
                id.to_string(),
                Operation {
                    path: path.clone(),
                    parameters,
                },
            );
        }
    }
    operations
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn schemas_read_as_words() {
        assert_eq!(
            must_be(&json!({"type": "integer", "format": "int64"})),
            "an integer"
        );
        assert_eq!(
            must_be(&json!({"type": "integer", "format": "uint64"})),
            "an integer of 0 or more"
        );
        assert_eq!(
            must_be(&json!({"type": "string", "format": "uuid"})),
            "a UUID"
        );
        assert_eq!(must_be(&json!({"type": "boolean"})), "true or false");
        assert_eq!(must_be(&json!({"enum": ["a", "b"]})), "one of: a, b");
    }
}
