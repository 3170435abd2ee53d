//! The checked-in OpenAPI document must match what the code generates, and every operation
//! in it must declare its error statuses.
#[test]
fn checked_in_spec_matches_the_code() {
    let generated = playtrace::app::spec_json();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/openapi/openapi.json");
    let checked_in = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        generated.trim() == checked_in.trim(),
        "openapi/openapi.json is stale: run `cargo run -- openapi > openapi/openapi.json`"
    );
}

/// Every operation declares the statuses its own code answers (`http::statuses!` beside its
/// routes), and every declaration names an operation: a new route cannot be forgotten and a
/// renamed one cannot leave a stale entry behind.
#[test]
fn every_operation_declares_its_error_statuses() {
    let spec: serde_json::Value = serde_json::from_str(&playtrace::app::spec_json()).unwrap();
    let faults = playtrace::http::error_responses::faults(&spec, playtrace::api::STATUSES);
    assert!(
        faults.is_empty(),
        "the error status declarations do not fit the operations:\n{}",
        faults.join("\n")
    );
}
