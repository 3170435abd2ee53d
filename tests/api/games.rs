use crate::helpers::{spawn_app, Fetch};
use reqwest::Method;
use serde_json::{json, Value};

#[tokio::test]
async fn create_list_read_rename_and_delete_a_game() {
    let app = spawn_app().await;
    let _admin = app.new_user().await; // the first account is the admin; use a regular one below
    let token = app.new_user().await;

    let game = app
        .dashboard(Method::POST, "/v1/games", &token)
        .json(&json!({ "name": "Space Goats" }))
        .expect_status(201)
        .await;
    assert_eq!(game["tier"], "free");
    assert_eq!(game["event_validation"], "off");
    assert_eq!(game["role"], "owner");
    assert!(game["created_at"].as_str().unwrap().ends_with('Z'));
    let id = game["game_id"].as_str().unwrap();

    let (_, list) = app.dashboard_call(Method::GET, "/v1/games", &token).await;
    assert_eq!(list["games"].as_array().unwrap().len(), 1);

    let renamed = app
        .dashboard(Method::PATCH, &format!("/v1/games/{id}"), &token)
        .json(&json!({ "name": "Space Goats 2", "event_validation": "warn" }))
        .expect_status(200)
        .await;
    assert_eq!(renamed["name"], "Space Goats 2");
    assert_eq!(renamed["event_validation"], "warn");

    app.dashboard(Method::DELETE, &format!("/v1/games/{id}"), &token)
        .expect_status(204)
        .await;
    let (_, list) = app.dashboard_call(Method::GET, "/v1/games", &token).await;
    assert!(list["games"].as_array().unwrap().is_empty());
}

#[tokio::test]
async fn only_the_admin_sets_tiers_and_rate_limits() {
    let app = spawn_app().await;
    let admin = app.new_user().await;
    let user = app.new_user().await;

    app.dashboard(Method::POST, "/v1/games", &user)
        .json(&json!({ "name": "G", "tier": "studio" }))
        .expect_status(403)
        .await;

    let game_id = app.create_game(&user).await;
    app.dashboard(Method::PATCH, &format!("/v1/games/{game_id}"), &user)
        .json(&json!({ "tier": "indie" }))
        .expect_status(403)
        .await;

    let game = app
        .dashboard(Method::PATCH, &format!("/v1/games/{game_id}"), &admin)
        .json(&json!({ "tier": "indie", "rate_limit_per_minute": 5000 }))
        .expect_status(200)
        .await;
    assert_eq!(game["tier"], "indie");
    assert_eq!(game["monthly_event_quota"], 1_000_000);
    assert_eq!(game["rate_limit_per_minute"], 5000);
    let game = app
        .dashboard(Method::PATCH, &format!("/v1/games/{game_id}"), &admin)
        .json(&json!({ "rate_limit_per_minute": null }))
        .expect_status(200)
        .await;
    assert!(
        game.get("rate_limit_per_minute").is_none_or(Value::is_null),
        "null goes back to the instance default: {game}"
    );
    assert_eq!(game["tier"], "indie", "and leaves the rest as it was");
    let (status, _) = app
        .dashboard_json(
            Method::PATCH,
            &format!("/v1/games/{game_id}"),
            &user,
            json!({ "rate_limit_per_minute": null }),
        )
        .await;
    assert_eq!(status, 403, "resetting the limit is the admin's too");

    app.dashboard(Method::PATCH, &format!("/v1/games/{game_id}"), &admin)
        .json(&json!({ "tier": "platinum" }))
        .expect_status(400)
        .await;

    let (_, all) = app.dashboard_call(Method::GET, "/v1/games", &admin).await;
    assert!(
        all["games"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["game_id"] == game_id.as_str()),
        "admin sees every game"
    );
}

#[tokio::test]
async fn roles_decide_what_members_may_do() {
    let app = spawn_app().await;
    let _admin = app.new_user().await;
    let owner = app.new_user().await;
    let game_id = app.create_game(&owner).await;
    let (viewer, _) = app.new_member(&owner, &game_id, "viewer").await;

    let (status, game) = app
        .dashboard_call(Method::GET, &format!("/v1/games/{game_id}"), &viewer)
        .await;
    assert_eq!(status, 200);
    assert_eq!(game["role"], "viewer");
    for (method, path, body) in [
        (
            Method::PATCH,
            format!("/v1/games/{game_id}"),
            json!({ "name": "mine now" }),
        ),
        (
            Method::POST,
            format!("/v1/games/{game_id}/api-keys"),
            json!({ "environment": "production" }),
        ),
        (
            Method::POST,
            format!("/v1/games/{game_id}/members"),
            json!({ "email": "x@studio.test", "role": "owner" }),
        ),
    ] {
        let (status, answer) = app.dashboard_json(method, &path, &viewer, body).await;
        assert_eq!(status, 403, "{path}: {answer}");
        assert!(answer["error"].is_string());
    }
    app.dashboard(Method::DELETE, &format!("/v1/games/{game_id}"), &viewer)
        .expect_status(403)
        .await;

    let (_, members) = app
        .dashboard_call(Method::GET, &format!("/v1/games/{game_id}/members"), &owner)
        .await;
    assert_eq!(members["members"].as_array().unwrap().len(), 2);
    let (_, me) = app.dashboard_call(Method::GET, "/v1/auth/me", &owner).await;
    let owner_id = me["id"].as_str().unwrap();
    let (status, _) = app
        .dashboard_call(
            Method::DELETE,
            &format!("/v1/games/{game_id}/members/{owner_id}"),
            &owner,
        )
        .await;
    assert_eq!(status, 409, "the last owner cannot leave");
}

#[tokio::test]
async fn nobody_sees_or_touches_another_users_game() {
    let app = spawn_app().await;
    let _admin = app.new_user().await;
    let (owner, game_id, _key) = app.game_with_key().await;
    let stranger = app.new_user().await;
    let (_, keys) = app
        .dashboard_call(
            Method::GET,
            &format!("/v1/games/{game_id}/api-keys"),
            &owner,
        )
        .await;
    let key_id = keys["api_keys"][0]["key_id"].as_str().unwrap().to_string();
    let (_, me) = app.dashboard_call(Method::GET, "/v1/auth/me", &owner).await;
    let owner_id = me["id"].as_str().unwrap().to_string();

    let routes = [
        (Method::GET, format!("/v1/games/{game_id}"), None),
        (
            Method::PATCH,
            format!("/v1/games/{game_id}"),
            Some(json!({ "name": "stolen" })),
        ),
        (Method::DELETE, format!("/v1/games/{game_id}"), None),
        (Method::GET, format!("/v1/games/{game_id}/members"), None),
        (
            Method::POST,
            format!("/v1/games/{game_id}/members"),
            Some(json!({ "email": "me@evil.test", "role": "owner" })),
        ),
        (
            Method::PATCH,
            format!("/v1/games/{game_id}/members/{owner_id}"),
            Some(json!({ "role": "viewer" })),
        ),
        (
            Method::DELETE,
            format!("/v1/games/{game_id}/members/{owner_id}"),
            None,
        ),
        (Method::GET, format!("/v1/games/{game_id}/api-keys"), None),
        (
            Method::POST,
            format!("/v1/games/{game_id}/api-keys"),
            Some(json!({ "environment": "production" })),
        ),
        (
            Method::DELETE,
            format!("/v1/games/{game_id}/api-keys/{key_id}"),
            None,
        ),
    ];
    for (method, path, body) in routes {
        let mut request = app.dashboard(method.clone(), &path, &stranger);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let (status, answer) = request.fetch().await;
        assert_eq!(status, 403, "{method} {path}: {answer}");
    }
    let (_, list) = app
        .dashboard_call(Method::GET, "/v1/games", &stranger)
        .await;
    assert!(list["games"].as_array().unwrap().is_empty());
    let game = app
        .dashboard(Method::GET, &format!("/v1/games/{game_id}"), &owner)
        .expect_status(200)
        .await;
    assert_eq!(game["name"], "Test Game", "nothing changed");
}
