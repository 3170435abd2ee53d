//! Schema definitions in the dashboard: created, replaced, listed, read and deleted,
//! validation, and who may change or see them.
use super::*;

#[tokio::test]
async fn schemas_are_created_replaced_listed_read_and_deleted() {
    let app = spawn_app().await;
    let (token, game_id, _key) = app.game_with_key().await;
    let base = format!("/v1/games/{game_id}/event-schemas");

    let (status, created) = put_schema(&app, &token, &game_id, "purchase", purchase_schema()).await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(created["event_name"], "purchase");
    assert_eq!(created["schema"], purchase_schema());
    let (status, replaced) = put_schema(
        &app,
        &token,
        &game_id,
        "purchase",
        json!({ "type": "object" }),
    )
    .await;
    assert_eq!(status, 200, "{replaced}");
    assert_eq!(replaced["created_at"], created["created_at"]);
    put_schema(&app, &token, &game_id, "boss fight", json!(true)).await;

    let (status, list) = app.dashboard_call(Method::GET, &base, &token).await;
    assert_eq!(status, 200);
    let names: Vec<&str> = list["event_schemas"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["event_name"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["boss fight", "purchase"]);

    let one = app
        .dashboard(Method::GET, &format!("{base}/purchase"), &token)
        .expect_status(200)
        .await;
    assert_eq!(one["schema"], json!({ "type": "object" }));

    let (status, _) = app
        .dashboard_call(Method::DELETE, &format!("{base}/purchase"), &token)
        .await;
    assert_eq!(status, 204);
    for method in [Method::GET, Method::DELETE] {
        let body = app
            .dashboard(method, &format!("{base}/purchase"), &token)
            .expect_status(404)
            .await;
        assert!(body["error"].is_string());
    }
}

/// The list names the standard kinds' ready schemas (docs/events.md), which check events of
/// those names until the game stores its own, so a studio sees that they are checked.
#[tokio::test]
async fn the_list_shows_the_ready_schemas_and_which_the_game_replaced() {
    let app = spawn_app().await;
    let (token, game_id, _key) = app.game_with_key().await;
    let base = format!("/v1/games/{game_id}/event-schemas");
    let ready = |list: &Value| -> Vec<(String, bool)> {
        list["ready_schemas"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                (
                    s["event_name"].as_str().unwrap().to_string(),
                    s["in_use"].as_bool().unwrap(),
                )
            })
            .collect()
    };
    let list = app
        .dashboard(Method::GET, &base, &token)
        .expect_status(200)
        .await;
    assert_eq!(list["event_schemas"], json!([]));
    assert_eq!(
        ready(&list),
        vec![("progression".into(), true), ("resource".into(), true)]
    );
    assert_eq!(
        list["ready_schemas"][0]["schema"]["required"],
        json!(["status", "level1"])
    );
    assert_eq!(
        list["ready_schemas"][1]["schema"]["properties"]["flow"]["enum"],
        json!(["source", "sink"])
    );

    // The game's own schema for `progression` applies instead of the ready one.
    let (status, _) = put_schema(
        &app,
        &token,
        &game_id,
        "progression",
        json!({ "type": "object" }),
    )
    .await;
    assert_eq!(status, 201);
    let list = app
        .dashboard(Method::GET, &base, &token)
        .expect_status(200)
        .await;
    assert_eq!(
        ready(&list),
        vec![("progression".into(), false), ("resource".into(), true)]
    );
    let (status, _) = app
        .dashboard_call(Method::DELETE, &format!("{base}/progression"), &token)
        .await;
    assert_eq!(status, 204);
    let list = app
        .dashboard(Method::GET, &base, &token)
        .expect_status(200)
        .await;
    assert_eq!(
        ready(&list),
        vec![("progression".into(), true), ("resource".into(), true)]
    );
}

#[tokio::test]
async fn invalid_schemas_are_refused_with_400() {
    let app = spawn_app().await;
    let (token, game_id, _key) = app.game_with_key().await;
    let cases: Vec<(Value, &str)> = vec![
        (json!({ "type": "banana" }), "unknown type"),
        (json!({ "minimum": "five" }), "non-numeric minimum"),
        (json!({ "required": "amount" }), "required not an array"),
        (
            json!({ "properties": { "a": { "pattern": "(" } } }),
            "broken regular expression",
        ),
        (
            json!({ "$schema": "http://json-schema.org/draft-07/schema#", "type": "object" }),
            "another draft",
        ),
        (
            json!({ "$ref": "https://example.com/schema.json" }),
            "remote reference",
        ),
        (json!(42), "not an object"),
        (json!("object"), "a string"),
    ];
    for (schema, case) in cases {
        let (status, body) = put_schema(&app, &token, &game_id, "purchase", schema).await;
        assert_eq!(status, 400, "{case}: {body}");
        assert!(body["error"].is_string(), "{case}");
    }
    let (status, _) = put_schema(&app, &token, &game_id, &"n".repeat(129), json!({})).await;
    assert_eq!(status, 400, "event names follow the event rules");
    let (_, list) = app
        .dashboard_call(
            Method::GET,
            &format!("/v1/games/{game_id}/event-schemas"),
            &token,
        )
        .await;
    assert_eq!(list["event_schemas"], json!([]));
}

#[tokio::test]
async fn only_editors_change_schemas_and_only_members_see_them() {
    let app = spawn_app().await;
    let _admin = app.new_user().await;
    let (owner, game_id, _key) = app.game_with_key().await;
    let (viewer, _) = app.new_member(&owner, &game_id, "viewer").await;
    let outsider = app.new_user().await;
    put_schema(&app, &owner, &game_id, "purchase", purchase_schema()).await;

    let (status, _) = put_schema(&app, &viewer, &game_id, "purchase", json!({})).await;
    assert_eq!(status, 403, "a viewer cannot change schemas");
    let (status, _) = app
        .dashboard_call(
            Method::GET,
            &format!("/v1/games/{game_id}/event-schemas/purchase"),
            &viewer,
        )
        .await;
    assert_eq!(status, 200, "a viewer reads them");
    let (status, _) = app
        .dashboard_call(
            Method::DELETE,
            &format!("/v1/games/{game_id}/event-schemas/purchase"),
            &viewer,
        )
        .await;
    assert_eq!(status, 403);
    for (method, path) in [
        (Method::GET, format!("/v1/games/{game_id}/event-schemas")),
        (
            Method::GET,
            format!("/v1/games/{game_id}/event-schemas/purchase"),
        ),
        (
            Method::DELETE,
            format!("/v1/games/{game_id}/event-schemas/purchase"),
        ),
    ] {
        let (status, _) = app.dashboard_call(method.clone(), &path, &outsider).await;
        assert_eq!(status, 403, "{method} {path} by another tenant");
    }
    let (status, _) = put_schema(&app, &outsider, &game_id, "purchase", json!({})).await;
    assert_eq!(status, 403);
    app.request(Method::GET, &format!("/v1/games/{game_id}/event-schemas"))
        .expect_status(401)
        .await;
}
