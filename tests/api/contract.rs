//! Holds the OpenAPI document to what the server does: every answer the suite reads through
//! `Fetch::fetch` must carry a status the document lists for its operation, so a generated
//! client never meets a status its types do not know.
//!
//! The other way round, each (operation, status) answered is written down once per test process
//! under `target/tmp/contract-statuses/`; after a whole run, `scripts/contract-report` names the
//! statuses the document lists that no test produced.
use reqwest::Method;
use serde_json::Value;
use std::{collections::HashSet, io::Write, sync::LazyLock};

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
        record(method, template, status);
        assert!(
            statuses.contains(&status),
            "{method} {path} answered {status}, which openapi/openapi.json does not list for \
             /{} (it lists {statuses:?}): {body}",
            template.join("/")
        );
    }
}

/// The (operation, status) pairs this process has written down.
static SEEN: LazyLock<parking_lot::Mutex<HashSet<String>>> = LazyLock::new(Default::default);

/// Appends "METHOD /template status" to this process's file the first time it is answered.
fn record(method: &Method, template: &[String], status: u16) {
    let line = format!("{method} /{} {status}\n", template.join("/"));
    if !SEEN.lock().insert(line.clone()) {
        return;
    }
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("contract-statuses");
    let written = std::fs::create_dir_all(&dir).and_then(|()| {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join(format!("{}.txt", std::process::id())))?
            .write_all(line.as_bytes())
    });
    if let Err(error) = written {
        eprintln!("contract: could not write down {line}: {error}");
    }
}
