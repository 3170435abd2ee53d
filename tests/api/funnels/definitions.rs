//! Funnel definitions: private to their game, validated, and changed by editors only.
use super::*;

#[tokio::test]
async fn funnels_are_private_to_their_game() {
    let app = spawn_app().await;
    let _admin = app.new_user().await; // the first account is the instance admin, who sees every game
    let (token, game_id, key) = app.game_with_key().await;
    let (other_token, other_game, other_key) = app.game_with_key().await;
    let mine = create_funnel(
        &app,
        &token,
        &game_id,
        json!({ "name": "mine", "steps": ["a", "b"] }),
    )
    .await;
    let theirs = create_funnel(
        &app,
        &other_token,
        &other_game,
        json!({ "name": "theirs", "steps": ["a", "b"] }),
    )
    .await;
    let theirs_id = theirs["funnel_id"].as_str().unwrap();

    let (status, list) = app.game_call(Method::GET, "/v1/funnels", &key).await;
    assert_eq!(status, 200);
    assert_eq!(list["funnels"].as_array().unwrap().len(), 1);
    assert_eq!(list["funnels"][0]["funnel_id"], mine["funnel_id"]);

    for (path, why) in [
        (format!("/v1/funnels/{theirs_id}"), "another game's funnel"),
        (format!("/v1/funnels/{}", Uuid::now_v7()), "unknown id"),
        ("/v1/funnels/not-a-uuid".to_string(), "malformed id"),
    ] {
        let (status, body) = app.game_call(Method::GET, &path, &key).await;
        assert_eq!(status, 404, "{why}: {body}");
        assert!(body["error"].is_string());
    }
    assert_eq!(
        report(&app, &other_key, theirs_id, "").await["funnel_id"],
        theirs["funnel_id"]
    );

    // Dashboard: another game's funnel under my game's path is 404; their game is 403.
    let path = format!("/v1/games/{game_id}/funnels/{theirs_id}");
    for method in [Method::GET, Method::DELETE] {
        let (status, _) = app.dashboard_call(method, &path, &token).await;
        assert_eq!(status, 404);
    }
    app.dashboard(
        Method::GET,
        &format!("/v1/games/{other_game}/funnels"),
        &token,
    )
    .expect_status(403)
    .await;
    let (status, _) = app.call(Method::GET, "/v1/funnels").await;
    assert_eq!(status, 401);
}

#[tokio::test]
async fn funnel_definitions_are_validated_and_editable_by_editors_only() {
    let app = spawn_app().await;
    let (token, game_id, _) = app.game_with_key().await;
    let path = format!("/v1/games/{game_id}/funnels");
    let twenty_one: Vec<String> = (0..21).map(|i| format!("e{i}")).collect();
    for (body, why) in [
        (json!({ "name": "f", "steps": ["only"] }), "one step"),
        (json!({ "name": "f", "steps": twenty_one }), "21 steps"),
        (json!({ "name": "f", "steps": [] }), "no steps"),
        (json!({ "name": "f" }), "steps missing"),
        (json!({ "steps": ["a", "b"] }), "name missing"),
        (json!({ "name": "", "steps": ["a", "b"] }), "empty name"),
        (
            json!({ "name": "x".repeat(101), "steps": ["a", "b"] }),
            "long name",
        ),
        (json!({ "name": "f", "steps": ["a", ""] }), "empty step"),
        (
            json!({ "name": "f", "steps": ["a", "b".repeat(129)] }),
            "long step",
        ),
        (json!({ "name": "f", "steps": ["a", null] }), "null step"),
        (
            json!({ "name": "f", "steps": ["a", ["b"]] }),
            "step is an array",
        ),
        (json!({ "name": "f", "steps": "a,b" }), "steps not an array"),
        (
            json!({ "name": "f", "mode": "fuzzy", "steps": ["a", "b"] }),
            "unknown mode",
        ),
        (
            json!({ "name": "f", "steps": ["a", "b"], "within_hours": 0 }),
            "zero window",
        ),
        (
            json!({ "name": "f", "steps": ["a", "b"], "within_hours": -3 }),
            "negative window",
        ),
        (
            json!({ "name": "f", "steps": ["a", "b"], "colour": "red" }),
            "unknown field",
        ),
    ] {
        let (status, body) = app.dashboard_json(Method::POST, &path, &token, body).await;
        assert_eq!(status, 400, "{why}: {body}");
        assert!(body["error"].is_string(), "{why}");
    }

    let twenty: Vec<String> = (0..20).map(|i| format!("e{i}")).collect();
    let funnel = create_funnel(
        &app,
        &token,
        &game_id,
        json!({ "name": "Long", "mode": "strict", "steps": twenty }),
    )
    .await;
    let funnel_path = format!("{path}/{}", funnel["funnel_id"].as_str().unwrap());

    // A viewer reads but cannot write.
    let (viewer, _) = app.new_member(&token, &game_id, "viewer").await;
    let (status, list) = app.dashboard_call(Method::GET, &path, &viewer).await;
    assert_eq!(status, 200);
    assert_eq!(list["funnels"][0]["name"], "Long");
    let (status, _) = app.dashboard_call(Method::GET, &funnel_path, &viewer).await;
    assert_eq!(status, 200);
    for (method, body) in [
        (Method::POST, json!({ "name": "v", "steps": ["a", "b"] })),
        (Method::PATCH, json!({ "name": "v" })),
        (Method::DELETE, json!({})),
    ] {
        let target = if method == Method::POST {
            &path
        } else {
            &funnel_path
        };
        let (status, body) = app
            .dashboard_json(method.clone(), target, &viewer, body)
            .await;
        assert_eq!(status, 403, "viewer {method}: {body}");
    }

    let updated = app
        .dashboard(Method::PATCH, &funnel_path, &token)
        .json(&json!({ "name": "Short", "mode": "loose", "steps": ["x", "y"] }))
        .expect_status(200)
        .await;
    assert_eq!(
        (updated["name"].as_str(), updated["mode"].as_str()),
        (Some("Short"), Some("loose"))
    );
    assert_eq!(updated["steps"], json!(["x", "y"]));
    app.dashboard(Method::PATCH, &funnel_path, &token)
        .json(&json!({ "steps": ["x"] }))
        .expect_status(400)
        .await;

    app.dashboard(Method::DELETE, &funnel_path, &token)
        .expect_status(204)
        .await;
    let (status, _) = app.dashboard_call(Method::GET, &funnel_path, &token).await;
    assert_eq!(status, 404);
}
