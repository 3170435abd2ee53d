//! Names the field at fault when a request body does not parse. The parser poem-openapi
//! generates says only what it expected (`Expected input type "string", found null`); this
//! module checks the same body against the operation's request schema from the service's own
//! OpenAPI document (with `jsonschema`), and answers `{error: "description is required",
//! field: "description"}` in the words `/v1/track` uses. It runs only on a request that already
//! failed, so it costs nothing on the way of a good one.
use crate::error::ApiError;
use jsonschema::{error::ValidationErrorKind, Validator};
use serde_json::{Map, Value};
use std::{collections::HashMap, sync::OnceLock};

/// Each operation's request body schema, by operation id, compiled once per process.
static BODIES: OnceLock<HashMap<String, Validator>> = OnceLock::new();

/// Compiles the body schemas of `spec` (the OpenAPI document as JSON) on the first call.
pub fn init(spec: impl FnOnce() -> String) {
    BODIES.get_or_init(|| compile(&serde_json::from_str(&spec()).unwrap_or_default()));
}

/// A body that did not parse becomes the 400 naming its field; any other error passes as is.
pub fn name_the_field(error: poem::Error, body: &[u8]) -> poem::Error {
    let Some(operation) = error.data::<poem_openapi::OperationId>().copied() else {
        return error;
    };
    if !error.is::<poem_openapi::error::ParseRequestPayloadError>() {
        return error;
    }
    match explain(operation.0, body, &error.to_string()) {
        Some(named) => {
            let mut named = poem::Error::from(named);
            named.set_data(operation);
            named
        }
        None => error,
    }
}

/// The 400 naming the field for a body of `operation` that did not parse; `parser_message` is
/// what the parser said, used for what a schema cannot tell (unknown fields).
fn explain(operation: &str, body: &[u8], parser_message: &str) -> Option<ApiError> {
    if let Some(name) = unknown_field(parser_message) {
        return Some(
            ApiError::bad_request(format!("unknown field {name}")).with("field", name.as_str()),
        );
    }
    let validator = BODIES.get()?.get(operation)?;
    let instance: Value = match serde_json::from_slice(body) {
        Ok(instance) => instance,
        Err(error) => return Some(not_json(body, &error)),
    };
    let error = validator.iter_errors(&instance).next()?;
    let mut field = pointer_to_field(&error.instance_path.to_string());
    let problem = match &error.kind {
        ValidationErrorKind::Required { property } => {
            let name = property.as_str().unwrap_or_default();
            field = join(&field, name);
            "is required".to_string()
        }
        ValidationErrorKind::Type { kind } => format!("must be {}", type_words(kind)),
        ValidationErrorKind::Enum { options } => format!("must be one of: {}", words(options)),
        ValidationErrorKind::MinLength { limit } => format!("must be at least {limit} characters"),
        ValidationErrorKind::MaxLength { limit } => format!("must be at most {limit} characters"),
        ValidationErrorKind::MinItems { limit } => format!("must hold at least {limit} items"),
        ValidationErrorKind::MaxItems { limit } => format!("must hold at most {limit} items"),
        ValidationErrorKind::Minimum { limit } => format!("must be at least {limit}"),
        ValidationErrorKind::Maximum { limit } => format!("must be at most {limit}"),
        ValidationErrorKind::AnyOf | ValidationErrorKind::OneOfNotValid => {
            "is not a valid value here".to_string()
        }
        _ => error.to_string(),
    };
    let message = if field.is_empty() {
        format!("the body {problem}")
    } else {
        format!("{field} {problem}")
    };
    let error = ApiError::bad_request(message);
    Some(if field.is_empty() {
        error
    } else {
        error.with("field", field)
    })
}

/// Why a body is not JSON this server reads: compressed data sent without its
/// `Content-Encoding` (those with one are refused before), JSON nested deeper than the
/// parser's limit, or text that is not JSON at all.
fn not_json(body: &[u8], error: &serde_json::Error) -> ApiError {
    const GZIP_MAGIC: &[u8] = &[0x1f, 0x8b];
    let message = if body.starts_with(GZIP_MAGIC) {
        "the body is gzip-compressed data, not JSON: send it uncompressed".to_string()
    } else if error.to_string().starts_with("recursion limit exceeded") {
        // serde_json's fixed limit.
        "the body is nested too deeply: at most 128 levels of arrays and objects".to_string()
    } else {
        format!("the body is not valid JSON: {error}")
    };
    ApiError::bad_request(message)
}

/// `unknown field `colour`` in the parser's message (`deny_unknown_fields`).
fn unknown_field(message: &str) -> Option<String> {
    let rest = &message[message.find("unknown field `")? + "unknown field `".len()..];
    Some(rest[..rest.find('`')?].to_string())
}

/// `/steps/2` -> `steps[2]`, `/rule/name` -> `rule.name`.
fn pointer_to_field(pointer: &str) -> String {
    pointer
        .split('/')
        .filter(|part| !part.is_empty())
        .fold(String::new(), |field, part| join(&field, part))
}

fn join(field: &str, part: &str) -> String {
    if part.chars().all(|c| c.is_ascii_digit()) && !part.is_empty() {
        format!("{field}[{part}]")
    } else if field.is_empty() {
        part.to_string()
    } else {
        format!("{field}.{part}")
    }
}

fn type_words(kind: &jsonschema::error::TypeKind) -> String {
    let name = |t: &str| match t {
        "string" => "a string".to_string(),
        "integer" => "an integer".to_string(),
        "number" => "a number".to_string(),
        "boolean" => "true or false".to_string(),
        "array" => "an array".to_string(),
        "object" => "an object".to_string(),
        "null" => "null".to_string(),
        other => other.to_string(),
    };
    match kind {
        jsonschema::error::TypeKind::Single(t) => name(&t.to_string()),
        jsonschema::error::TypeKind::Multiple(set) => set
            .iter()
            .map(|t| name(&t.to_string()))
            .collect::<Vec<_>>()
            .join(" or "),
    }
}

fn words(options: &Value) -> String {
    match options {
        Value::Array(items) => items
            .iter()
            .map(|item| {
                item.as_str()
                    .map(str::to_string)
                    .unwrap_or(item.to_string())
            })
            .collect::<Vec<_>>()
            .join(", "),
        other => other.to_string(),
    }
}

/// One validator per operation with a JSON body; its schema refers into the document's
/// components, which ride along under the same pointer (`#/components/schemas/...`).
fn compile(spec: &Value) -> HashMap<String, Validator> {
    let components = json_schema(spec.pointer("/components").cloned().unwrap_or_default());
    let mut validators = HashMap::new();
    let Some(paths) = spec.get("paths").and_then(Value::as_object) else {
        return validators;
    };
    for operation in paths
        .values()
        .filter_map(Value::as_object)
        .flat_map(Map::values)
    {
        let Some(id) = operation.get("operationId").and_then(Value::as_str) else {
            continue;
        };
        let Some(schema) = operation
            .pointer("/requestBody/content")
            .and_then(Value::as_object)
            .and_then(|content| content.iter().find(|(media, _)| media.contains("json")))
            .and_then(|(_, body)| body.get("schema"))
        else {
            continue;
        };
        let mut root = match json_schema(schema.clone()) {
            Value::Object(root) => root,
            other => Map::from_iter([("allOf".to_string(), Value::Array(vec![other]))]),
        };
        root.insert("components".into(), components.clone());
        match jsonschema::draft202012::new(&Value::Object(root)) {
            Ok(validator) => {
                validators.insert(id.to_string(), validator);
            }
            Err(error) => tracing::warn!(operation = id, %error, "request schema not compiled"),
        }
    }
    validators
}

/// OpenAPI 3.0's schema dialect to JSON Schema: `nullable: true` becomes "or null".
fn json_schema(value: Value) -> Value {
    match value {
        Value::Object(mut map) => {
            // Only the keyword: a `properties` map may hold a field of that name.
            let nullable = map.get("nullable") == Some(&Value::Bool(true));
            if nullable {
                map.remove("nullable");
            }
            let map: Map<String, Value> =
                map.into_iter().map(|(k, v)| (k, json_schema(v))).collect();
            match (nullable, map.get("type").and_then(Value::as_str)) {
                (false, _) => Value::Object(map),
                (true, Some(ty)) => {
                    let ty = serde_json::json!([ty, "null"]);
                    let mut map = map;
                    map.insert("type".into(), ty);
                    Value::Object(map)
                }
                (true, None) => {
                    serde_json::json!({ "anyOf": [Value::Object(map), { "type": "null" }] })
                }
            }
        }
        Value::Array(items) => Value::Array(items.into_iter().map(json_schema).collect()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_read_as_field_paths() {
        assert_eq!(pointer_to_field(""), "");
        assert_eq!(pointer_to_field("/description"), "description");
        assert_eq!(pointer_to_field("/steps/2"), "steps[2]");
        assert_eq!(pointer_to_field("/values/a/b"), "values.a.b");
    }

    #[test]
    fn unknown_fields_are_read_from_the_parser() {
        let message = "failed to parse \"CreateGame\": unknown field `extra`.";
        assert_eq!(unknown_field(message).as_deref(), Some("extra"));
        assert_eq!(unknown_field("Expected input type \"string\""), None);
    }
}
