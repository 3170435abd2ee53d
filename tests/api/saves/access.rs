//! Who sees a save: only its own game, and the game's members in the dashboard by role.
use super::{get_save, put_save};
use crate::helpers::{spawn_app, Fetch};
use reqwest::Method;
use serde_json::json;
use uuid::Uuid;

#[tokio::test]
async fn games_see_only_their_own_saves() {
    let app = spawn_app().await;
    let (_, _, key_a) = app.game_with_key().await;
    let (_, _, key_b) = app.game_with_key().await;
    put_save(&app, &key_a, "hero", "s1", json!({ "owner": "a" }), 0).await;

    assert_eq!(get_save(&app, &key_b, "hero", "s1").await.0, 404);
    let (_, list) = app.game_call(Method::GET, "/v1/saves/hero", &key_b).await;
    assert!(list["saves"].as_array().unwrap().is_empty());
    assert_eq!(
        app.game_call(Method::DELETE, "/v1/saves/hero/s1", &key_b)
            .await
            .0,
        404
    );
    let (status, body) = put_save(&app, &key_b, "hero", "s1", json!({ "owner": "b" }), 0).await;
    assert_eq!(
        (status, body["version"].clone()),
        (200, json!(1)),
        "the same player and slot in another game is separate"
    );
    assert_eq!(
        get_save(&app, &key_a, "hero", "s1").await.1["data"],
        json!({ "owner": "a" })
    );
}

#[tokio::test]
async fn support_staff_list_read_and_delete_saves_in_the_dashboard() {
    let app = spawn_app().await;
    let _admin = app.new_user().await;
    let (owner, game_id, key) = app.game_with_key().await;
    let (viewer, _) = app.new_member(&owner, &game_id, "viewer").await;
    let (editor, _) = app.new_member(&owner, &game_id, "editor").await;
    let (stranger, _, _) = app.game_with_key().await;
    for slot in ["auto", "manual"] {
        put_save(&app, &key, "player-7", slot, json!({ "slot": slot }), 0).await;
    }
    let base = format!("/v1/games/{game_id}/saves/player-7");

    let (status, list) = app.dashboard_call(Method::GET, &base, &viewer).await;
    assert_eq!(status, 200, "{list}");
    let (_, game_list) = app.game_call(Method::GET, "/v1/saves/player-7", &key).await;
    assert_eq!(list, game_list, "the dashboard sees what the game sees");
    let (status, save) = app
        .dashboard_call(Method::GET, &format!("{base}/auto"), &viewer)
        .await;
    assert_eq!(status, 200);
    assert_eq!(save, get_save(&app, &key, "player-7", "auto").await.1);

    let other_game = format!("/v1/games/{}/saves/player-7", Uuid::now_v7());
    let cases = [
        (
            "viewer deletes",
            Method::DELETE,
            format!("{base}/auto"),
            Some(&viewer),
            403,
        ),
        (
            "stranger lists",
            Method::GET,
            base.clone(),
            Some(&stranger),
            403,
        ),
        (
            "stranger reads",
            Method::GET,
            format!("{base}/auto"),
            Some(&stranger),
            403,
        ),
        (
            "stranger deletes",
            Method::DELETE,
            format!("{base}/auto"),
            Some(&stranger),
            403,
        ),
        ("unknown game", Method::GET, other_game, Some(&owner), 403),
        ("no token", Method::GET, base.clone(), None, 401),
        (
            "absent slot",
            Method::GET,
            format!("{base}/nope"),
            Some(&viewer),
            404,
        ),
        (
            "bad slot",
            Method::GET,
            format!("{base}/a%20b"),
            Some(&viewer),
            400,
        ),
        (
            "editor deletes",
            Method::DELETE,
            format!("{base}/auto"),
            Some(&editor),
            204,
        ),
        (
            "deleted slot",
            Method::GET,
            format!("{base}/auto"),
            Some(&viewer),
            404,
        ),
        (
            "owner deletes",
            Method::DELETE,
            format!("{base}/manual"),
            Some(&owner),
            204,
        ),
        (
            "deleting again",
            Method::DELETE,
            format!("{base}/manual"),
            Some(&owner),
            404,
        ),
    ];
    for (case, method, path, token, expected) in cases {
        let (status, answer) = app
            .dashboard_or_anonymous(method, &path, token.map(String::as_str))
            .fetch()
            .await;
        assert_eq!(status, expected, "{case}: {answer}");
        assert!(
            status < 300 || answer["error"].is_string(),
            "{case}: {answer}"
        );
    }
    assert_eq!(
        get_save(&app, &key, "player-7", "auto").await.0,
        404,
        "the game sees the deletion"
    );
}
