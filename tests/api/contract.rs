//! Holds the OpenAPI document to what the server does: every answer the suite reads through
//! `Fetch::fetch` must carry a status the document lists for its operation, so a generated
//! client never meets a status its types do not know.
use reqwest::Method;
use serde_json::Value;
use std::sync::LazyLock;

/// (method, path template split into segments, the statuses listed) for every operation.
type Operation = (Method, Vec<String>, Vec<u16>);

static OPERATIONS: LazyLock<Vec<Operation>> = LazyLock::new(|| {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/openapi/openapi.json");
    let spec: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut operations = Vec::new();
    for (template, methods) in spec["paths"].as_object().unwrap() {
        for (method, operation) in methods.as_object().unwrap() {
            let statuses = operation["responses"]
                .as_object()
                .unwrap()
                .keys()
                .filter_map(|status| status.parse().ok())
                .collect();
            operations.push((
                method.to_uppercase().parse().unwrap(),
                segments(template),
                statuses,
            ));
        }
    }
    operations
});

fn segments(path: &str) -> Vec<String> {
    path.split('/')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// Panics when `status` is not among the statuses the document lists for the operation at
/// `method` `path`. Paths outside the API's operations (unknown routes, the dashboard's files)
/// and a method the path does not take (405) are not operations, and pass.
pub fn check(method: &Method, path: &str, status: u16, body: &Value) {
    let asked = segments(path);
    let fits = |template: &[String]| {
        template.len() == asked.len()
            && template
                .iter()
                .zip(&asked)
                .all(|(t, a)| t.starts_with('{') || t == a)
    };
    // The template with the most literal segments wins (`/v1/alerts/history` over
    // `/v1/alerts/{rule_id}`).
    let operation = OPERATIONS
        .iter()
        .filter(|(m, template, _)| m == method && fits(template))
        .max_by_key(|(_, template, _)| template.iter().filter(|t| !t.starts_with('{')).count());
    if let Some((_, template, statuses)) = operation {
        assert!(
            statuses.contains(&status),
            "{method} {path} answered {status}, which openapi/openapi.json does not list for \
             /{} (it lists {statuses:?}): {body}",
            template.join("/")
        );
    }
}
