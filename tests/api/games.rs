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

#[tokio::test]
async fn an_account_owns_at_most_the_capped_number_of_games_even_when_it_asks_all_at_once() {
    let app = crate::helpers::spawn_app_with(|settings| settings.max_games_per_user = 3).await;
    let admin = app.new_user().await; // the first account is the instance admin
    let owner = app.new_user().await;

    // Six creations at once: three are made, three refused, never a fourth game.
    let attempts = (0..6).map(|i| {
        app.dashboard_json(
            Method::POST,
            "/v1/games",
            &owner,
            json!({ "name": format!("Game {i}") }),
        )
    });
    let answers = futures_util::future::join_all(attempts).await;
    let made = answers.iter().filter(|(status, _)| *status == 201).count();
    let refused: Vec<&Value> = answers
        .iter()
        .filter(|(status, _)| *status == 403)
        .map(|(_, body)| body)
        .collect();
    assert_eq!((made, refused.len()), (3, 3), "{answers:?}");
    assert!(
        refused[0]["error"]
            .as_str()
            .unwrap()
            .starts_with("You own 3 games, the most one account may own"),
        "{}",
        refused[0]
    );
    let (_, listed) = app.dashboard_call(Method::GET, "/v1/games", &owner).await;
    let listed = listed["games"].as_array().unwrap();
    assert_eq!(listed.len(), 3, "{listed:?}");

    // Deleting one makes room again; being a member of others' games does not count.
    let first = listed[0]["game_id"].as_str().unwrap();
    let (status, body) = app
        .dashboard_call(Method::DELETE, &format!("/v1/games/{first}"), &owner)
        .await;
    assert_eq!(status, 204, "{body}");
    app.create_game(&owner).await;
    // The instance admin has no cap.
    for _ in 0..4 {
        app.create_game(&admin).await;
    }
}
