//! The checked-in OpenAPI document must match what the code generates.
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
