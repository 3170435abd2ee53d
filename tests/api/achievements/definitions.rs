//! Achievement definitions in the dashboard: created, read, changed and deleted, duplicates,
//! validation, and who may change them.
use super::*;

#[tokio::test]
async fn definitions_can_be_created_read_changed_and_deleted() {
    let app = spawn_app().await;
    let (token, game_id, _) = app.game_with_key().await;

    let (status, created) = define(
        &app,
        &token,
        &game_id,
        json!({ "key": "speedrun", "name": "Speedrunner", "description": "Finish in 1h", "points": 40 }),
    )
    .await;
    assert_eq!(status, 201);
    assert_eq!(created["key"], "speedrun");
    assert_eq!(
        created["icon_url"], "",
        "icon_url defaults to an empty string"
    );
    assert_eq!(created["hidden"], false);
    assert_eq!(created["unlock_count"], 0);

    let path = format!("{}/speedrun", defs(&game_id));
    let (status, fetched) = app.dashboard_call(Method::GET, &path, &token).await;
    assert_eq!(
        (status, fetched["name"].clone()),
        (200, json!("Speedrunner"))
    );

    let (status, changed) = app
        .dashboard_json(
            Method::PATCH,
            &path,
            &token,
            json!({ "points": 55, "hidden": true, "icon_url": "https://cdn.example.com/s.png" }),
        )
        .await;
    assert_eq!(status, 200, "{changed}");
    assert_eq!(changed["points"], 55);
    assert_eq!(changed["hidden"], true);
    assert_eq!(
        changed["name"], "Speedrunner",
        "fields not sent stay as they were"
    );

    let (_, listed) = app
        .dashboard_call(Method::GET, &defs(&game_id), &token)
        .await;
    assert_eq!(listed["achievements"].as_array().unwrap().len(), 1);
    assert_eq!(
        listed["achievements"][0]["name"], "Speedrunner",
        "the dashboard never sees ???"
    );

    let response = app
        .dashboard(Method::DELETE, &path, &token)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 204);
    assert!(response.text().await.unwrap().is_empty());
    for method in [Method::GET, Method::DELETE] {
        let (status, body) = app.dashboard_call(method, &path, &token).await;
        assert_eq!(status, 404, "{body}");
        assert!(body["error"].is_string());
    }
}

#[tokio::test]
async fn a_duplicate_key_is_a_conflict_but_other_games_may_reuse_it() {
    let app = spawn_app().await;
    let (token, game_id, _) = app.game_with_key().await;
    let body = plain("win", "Win");
    assert_eq!(define(&app, &token, &game_id, body.clone()).await.0, 201);
    let (status, error) = define(&app, &token, &game_id, body.clone()).await;
    assert_eq!(status, 409);
    assert!(error["error"].as_str().unwrap().contains("already exists"));

    let other_game = app.create_game(&token).await;
    assert_eq!(define(&app, &token, &other_game, body).await.0, 201);
}

#[tokio::test]
async fn invalid_definitions_are_refused() {
    let app = spawn_app().await;
    let (token, game_id, _) = app.game_with_key().await;
    let cases = [
        (
            json!({ "name": "A", "description": "", "points": 1 }),
            "missing key",
        ),
        (
            json!({ "key": "a", "description": "", "points": 1 }),
            "missing name",
        ),
        (
            json!({ "key": "a", "name": "A", "points": 1 }),
            "missing description",
        ),
        (
            json!({ "key": "a", "name": "A", "description": "" }),
            "missing points",
        ),
        (
            json!({ "key": "", "name": "A", "description": "", "points": 1 }),
            "empty key",
        ),
        (
            json!({ "key": "has space", "name": "A", "description": "", "points": 1 }),
            "key with a space",
        ),
        (
            json!({ "key": "k".repeat(65), "name": "A", "description": "", "points": 1 }),
            "key too long",
        ),
        (
            json!({ "key": "a", "name": "  ", "description": "", "points": 1 }),
            "blank name",
        ),
        (
            json!({ "key": "a", "name": "A", "description": "d".repeat(1001), "points": 1 }),
            "description too long",
        ),
        (
            json!({ "key": "a", "name": "A", "description": "", "points": -1 }),
            "negative points",
        ),
        (
            json!({ "key": "a", "name": "A", "description": "", "points": "ten" }),
            "points not a number",
        ),
        (
            json!({ "key": "a", "name": "A", "description": "", "points": 1, "icon_url": "ftp://x" }),
            "icon not http",
        ),
        (
            json!({ "key": "a", "name": "A", "description": "", "points": 1, "colour": "red" }),
            "unknown field",
        ),
    ];
    for (body, case) in cases {
        let (status, error) = define(&app, &token, &game_id, body).await;
        assert_eq!(status, 400, "{case}: {error}");
        assert!(error["error"].is_string(), "{case}");
    }
    let path = format!("{}/a", defs(&game_id));
    assert_eq!(define(&app, &token, &game_id, plain("a", "A")).await.0, 201);
    for (body, case) in [
        (json!({ "points": 2_000_000 }), "points too high"),
        (json!({ "key": "b" }), "the key cannot change"),
        (json!({ "name": "" }), "empty name"),
    ] {
        let (status, _) = app.dashboard_json(Method::PATCH, &path, &token, body).await;
        assert_eq!(status, 400, "{case}");
    }
}

#[tokio::test]
async fn only_editors_and_owners_change_definitions() {
    let app = spawn_app().await;
    let _admin = app.new_user().await;
    let (owner, game_id, _) = app.game_with_key().await;
    let (viewer, _) = app.new_member(&owner, &game_id, "viewer").await;
    let stranger = app.new_user().await;
    assert_eq!(define(&app, &owner, &game_id, plain("a", "A")).await.0, 201);

    let (status, _) = app
        .dashboard_call(Method::GET, &defs(&game_id), &viewer)
        .await;
    assert_eq!(status, 200, "viewers read definitions");
    assert_eq!(
        define(&app, &viewer, &game_id, plain("b", "B")).await.0,
        403
    );
    let path = format!("{}/a", defs(&game_id));
    app.dashboard(Method::PATCH, &path, &viewer)
        .json(&json!({ "points": 9 }))
        .expect_status(403)
        .await;
    let (status, _) = app.dashboard_call(Method::DELETE, &path, &viewer).await;
    assert_eq!(status, 403);

    for (method, path) in [
        (Method::GET, defs(&game_id)),
        (Method::GET, path.clone()),
        (Method::DELETE, path.clone()),
    ] {
        let (status, _) = app.dashboard_call(method, &path, &stranger).await;
        assert_eq!(status, 403, "a non-member gets 403 on {path}");
    }
    let (status, _) = app.call(Method::GET, &defs(&game_id)).await;
    assert_eq!(status, 401);
}
