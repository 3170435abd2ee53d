//! The OpenAPI document as served and checked in: what poem-openapi generates from the
//! handlers, plus what they cannot tell it (each operation's error answers, the player token
//! header), in shapes every generator reads.
use super::{error_responses, player_header, Statuses};
use serde_json::{Map, Value};

/// The finished document, from poem-openapi's `generated` one and the statuses each
/// operation declares (`api::STATUSES`).
pub fn document(generated: &str, declared: &[Statuses]) -> String {
    let Ok(mut spec) = serde_json::from_str::<Value>(generated) else {
        return generated.to_string();
    };
    plain_refs(&mut spec);
    error_responses::add(&mut spec, declared);
    player_header::add(&mut spec);
    serde_json::to_string_pretty(&spec).unwrap_or_default()
}

/// poem-openapi writes a field of a named type that has its own description (or is nullable)
/// as `allOf: [{$ref}, {description, nullable}]`. Generators read an `allOf` as a merge of
/// objects and drop it when the named type is an enum (openapi-python-client leaves such
/// operations out of the client), and `nullable` without a `type` beside it means nothing in
/// OpenAPI 3.0. So such a field becomes `{$ref}` with its description, or, when nullable,
/// `{anyOf: [{$ref}], nullable: true}`.
fn plain_refs(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if let Some(plain) = plain_ref(map) {
                *map = plain;
            }
            map.values_mut().for_each(plain_refs);
        }
        Value::Array(items) => items.iter_mut().for_each(plain_refs),
        _ => {}
    }
}

fn plain_ref(map: &Map<String, Value>) -> Option<Map<String, Value>> {
    let [reference, patch] = map.get("allOf")?.as_array()?.as_slice() else {
        return None;
    };
    let reference = reference.as_object()?;
    let patch = patch.as_object()?;
    // Only poem-openapi's wrapper: a bare `$ref` and a patch of annotations.
    let annotations = [
        "description",
        "nullable",
        "default",
        "readOnly",
        "writeOnly",
        "deprecated",
    ];
    if reference.len() != 1 || !reference.contains_key("$ref") {
        return None;
    }
    if !patch.keys().all(|k| annotations.contains(&k.as_str())) {
        return None;
    }
    let nullable = map.get("nullable") == Some(&Value::Bool(true))
        || patch.get("nullable") == Some(&Value::Bool(true));
    let mut plain: Map<String, Value> = map
        .iter()
        .filter(|(k, _)| k.as_str() != "allOf" && k.as_str() != "nullable")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if nullable {
        plain.insert(
            "anyOf".into(),
            Value::Array(vec![Value::Object(reference.clone())]),
        );
        plain.insert("nullable".into(), Value::Bool(true));
    } else {
        plain.insert("$ref".into(), reference["$ref"].clone());
    }
    Some(plain)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn wrapped_refs_become_plain() {
        let mut spec = json!({ "properties": {
            "tier": { "description": "d", "allOf": [{ "$ref": "#/T" }, { "description": "d" }] },
            "mode": { "description": "d", "nullable": true,
                      "allOf": [{ "$ref": "#/M" }, { "description": "d", "nullable": true }] },
            "mixed": { "allOf": [{ "$ref": "#/A" }, { "$ref": "#/B" }] }
        }});
        plain_refs(&mut spec);
        assert_eq!(
            spec["properties"]["tier"],
            json!({ "description": "d", "$ref": "#/T" })
        );
        assert_eq!(
            spec["properties"]["mode"],
            json!({ "description": "d", "anyOf": [{ "$ref": "#/M" }], "nullable": true })
        );
        assert_eq!(
            spec["properties"]["mixed"]["allOf"][1],
            json!({ "$ref": "#/B" })
        );
    }
}
