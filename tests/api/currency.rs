//! Black-box tests of a game's currency: the ISO 4217 code its purchase amounts are in (`USD`
//! by default), set at creation or by PATCH, refused with a clear 400 when malformed.
use crate::helpers::{spawn_app, Fetch};
use reqwest::Method;
use serde_json::json;

#[tokio::test]
async fn a_game_is_in_dollars_until_its_owner_names_another_currency() {
    let app = spawn_app().await;
    let owner = app.new_user().await;
    let game_id = app.create_game(&owner).await;
    let path = format!("/v1/games/{game_id}");
    let game = app
        .dashboard(Method::GET, &path, &owner)
        .expect_status(200)
        .await;
    assert_eq!(game["currency"], "USD");

    let game = app
        .dashboard(Method::PATCH, &path, &owner)
        .json(&json!({ "currency": "EUR" }))
        .expect_status(200)
        .await;
    assert_eq!(game["currency"], "EUR");
    let listed = app
        .dashboard(Method::GET, "/v1/games", &owner)
        .expect_status(200)
        .await;
    assert_eq!(listed["games"][0]["currency"], "EUR");

    let created = app
        .dashboard(Method::POST, "/v1/games", &owner)
        .json(&json!({ "name": "Yen game", "currency": "JPY" }))
        .expect_status(201)
        .await;
    assert_eq!(created["currency"], "JPY");
}

#[tokio::test]
async fn a_malformed_currency_is_refused_and_nothing_changes() {
    let app = spawn_app().await;
    let owner = app.new_user().await;
    let game_id = app.create_game(&owner).await;
    let path = format!("/v1/games/{game_id}");
    for (currency, case) in [
        ("eur", "lower case"),
        ("EURO", "four letters"),
        ("EU", "two letters"),
        ("", "empty"),
        ("E1R", "a digit"),
        ("€", "a symbol"),
    ] {
        let refused = app
            .dashboard(Method::PATCH, &path, &owner)
            .json(&json!({ "currency": currency, "name": "Renamed" }))
            .expect_status(400)
            .await;
        assert_eq!(
            refused["error"],
            "currency must be an ISO 4217 code: three capital letters, e.g. USD or EUR",
            "{case}"
        );
        let refused = app
            .dashboard(Method::POST, "/v1/games", &owner)
            .json(&json!({ "name": "New", "currency": currency }))
            .expect_status(400)
            .await;
        assert!(
            refused["error"].as_str().unwrap().starts_with("currency"),
            "{case}"
        );
    }
    let game = app
        .dashboard(Method::GET, &path, &owner)
        .expect_status(200)
        .await;
    assert_eq!(game["currency"], "USD");
    assert_eq!(game["name"], "Test Game");
    let games = app
        .dashboard(Method::GET, "/v1/games", &owner)
        .expect_status(200)
        .await;
    assert_eq!(games["games"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn only_an_owner_sets_the_currency() {
    let app = spawn_app().await;
    let owner = app.new_user().await;
    let game_id = app.create_game(&owner).await;
    let (editor, _) = app.new_member(&owner, &game_id, "editor").await;
    app.dashboard(Method::PATCH, &format!("/v1/games/{game_id}"), &editor)
        .json(&json!({ "currency": "GBP" }))
        .expect_status(403)
        .await;
}
