//! Boards created by a first score: the score may name the board's order; a game may refuse
//! such boards or cap how many scores make; the dashboard's board list pages and searches.
use super::{define, ranked, ranking, submit};
use crate::helpers::{spawn_app, Fetch, TestApp};
use reqwest::Method;
use serde_json::{json, Value};

async fn patch_game(app: &TestApp, token: &str, game_id: &str, body: Value) -> (u16, Value) {
    app.dashboard_json(Method::PATCH, &format!("/v1/games/{game_id}"), token, body)
        .await
}

async fn board_list(app: &TestApp, token: &str, game_id: &str, query: &str) -> (u16, Value) {
    app.dashboard_call(
        Method::GET,
        &format!("/v1/games/{game_id}/leaderboards{query}"),
        token,
    )
    .await
}

#[tokio::test]
async fn a_first_score_may_set_the_order_and_later_scores_must_agree() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let (status, first) = submit(
        &app,
        &key,
        json!({ "board_name": "speedrun", "player_id": "ann", "score": 60, "order": "lower" }),
    )
    .await;
    assert_eq!(
        (status, first["order"].clone()),
        (200, json!("lower")),
        "{first}"
    );
    let (status, better) = submit(
        &app,
        &key,
        json!({ "board_name": "speedrun", "player_id": "ann", "score": 48 }),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(
        (better["score"].clone(), better["updated"].clone()),
        (json!(48), json!(true))
    );

    // A score naming another order is refused: it would be ranked otherwise than the game thinks.
    let (status, refused) = submit(
        &app,
        &key,
        json!({ "board_name": "speedrun", "player_id": "bob", "score": 99, "order": "higher" }),
    )
    .await;
    assert_eq!(status, 409, "{refused}");
    assert!(
        refused["error"]
            .as_str()
            .unwrap()
            .contains("order is lower"),
        "{refused}"
    );
    assert_eq!(
        ranking(&app, &key, "speedrun").await,
        ranked(&[("ann", 48.0)])
    );

    let (_, definition) = app
        .dashboard_call(
            Method::GET,
            &format!("/v1/games/{game_id}/leaderboards/speedrun"),
            &token,
        )
        .await;
    assert_eq!(
        (
            definition["order"].clone(),
            definition["created_by_score"].clone()
        ),
        (json!("lower"), json!(true))
    );
}

#[tokio::test]
async fn an_unknown_order_is_refused_and_stores_nothing() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let (status, body) = submit(
        &app,
        &key,
        json!({ "board_name": "typo", "player_id": "ann", "score": 1, "order": "smaller" }),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"], "order must be higher or lower");
    let (_, list) = board_list(&app, &token, &game_id, "").await;
    assert_eq!(list["total"], 0, "no board was created: {list}");
}

#[tokio::test]
async fn a_game_can_refuse_scores_for_boards_the_dashboard_did_not_define() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let (status, game) = patch_game(
        &app,
        &token,
        &game_id,
        json!({ "leaderboards_from_scores": false }),
    )
    .await;
    assert_eq!(
        (status, game["leaderboards_from_scores"].clone()),
        (200, json!(false))
    );

    let (status, refused) = submit(
        &app,
        &key,
        json!({ "board_name": "spam-1", "player_id": "ann", "score": 1 }),
    )
    .await;
    assert_eq!(status, 404, "{refused}");
    assert!(
        refused["error"]
            .as_str()
            .unwrap()
            .contains("defined in the dashboard"),
        "{refused}"
    );
    let (_, list) = board_list(&app, &token, &game_id, "").await;
    assert_eq!(list["total"], 0);

    // A defined board takes scores as ever.
    define(&app, &token, &game_id, json!({ "board_name": "arena" })).await;
    let (status, _) = submit(
        &app,
        &key,
        json!({ "board_name": "arena", "player_id": "ann", "score": 1 }),
    )
    .await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn boards_made_by_scores_are_capped_per_game() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let (status, _) = patch_game(&app, &token, &game_id, json!({ "score_board_limit": 3 })).await;
    assert_eq!(status, 200);
    let (status, refused) = patch_game(
        &app,
        &token,
        &game_id,
        json!({ "score_board_limit": 10_001 }),
    )
    .await;
    assert_eq!(status, 400, "{refused}");

    // Concurrent first scores of new boards never pass the limit together.
    let mut tasks = Vec::new();
    for i in 0..8 {
        let request = app
            .game(Method::POST, "/v1/leaderboards", &key)
            .json(&json!({ "board_name": format!("auto-{i}"), "player_id": "ann", "score": 1 }));
        tasks.push(tokio::spawn(async move { request.fetch().await }));
    }
    let mut created = 0;
    for task in tasks {
        let (status, body) = task.await.unwrap();
        match status {
            200 => created += 1,
            409 => assert!(body["error"].as_str().unwrap().contains("limit"), "{body}"),
            other => panic!("unexpected {other}: {body}"),
        }
    }
    assert_eq!(created, 3);
    let (_, list) = board_list(&app, &token, &game_id, "").await;
    assert_eq!(list["total"], 3);

    // Boards defined in the dashboard do not count; scores to existing boards still go in.
    define(&app, &token, &game_id, json!({ "board_name": "defined" })).await;
    let (status, _) = submit(
        &app,
        &key,
        json!({ "board_name": "defined", "player_id": "ann", "score": 1 }),
    )
    .await;
    assert_eq!(status, 200);
    let existing = list["leaderboards"][0]["board_name"]
        .as_str()
        .unwrap()
        .to_string();
    let (status, _) = submit(
        &app,
        &key,
        json!({ "board_name": existing, "player_id": "bob", "score": 2 }),
    )
    .await;
    assert_eq!(status, 200);
    // Changed in the dashboard, a board made by a score frees its place.
    let (status, adopted) = app
        .dashboard_json(
            Method::PATCH,
            &format!("/v1/games/{game_id}/leaderboards/{existing}"),
            &token,
            json!({ "period": "daily" }),
        )
        .await;
    assert_eq!(
        (status, adopted["created_by_score"].clone()),
        (200, json!(false))
    );
    let (status, _) = submit(
        &app,
        &key,
        json!({ "board_name": "one-more", "player_id": "ann", "score": 1 }),
    )
    .await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn the_board_list_pages_and_searches_by_name() {
    let app = spawn_app().await;
    let (token, game_id, _) = app.game_with_key().await;
    for name in ["Arena-EU", "arena-us", "speedrun", "100%_done", "100x_done"] {
        let (status, _) = define(&app, &token, &game_id, json!({ "board_name": name })).await;
        assert_eq!(status, 201);
    }
    let names = |list: &Value| -> Vec<String> {
        list["leaderboards"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["board_name"].as_str().unwrap().to_string())
            .collect()
    };
    let (status, all) = board_list(&app, &token, &game_id, "?limit=2&offset=1").await;
    assert_eq!(status, 200, "{all}");
    assert_eq!(
        (
            all["total"].clone(),
            all["limit"].clone(),
            all["offset"].clone()
        ),
        (json!(5), json!(2), json!(1))
    );
    assert_eq!(all["leaderboards"].as_array().unwrap().len(), 2);

    let (_, found) = board_list(&app, &token, &game_id, "?search=ARENA").await;
    assert_eq!(names(&found), ["Arena-EU", "arena-us"], "any case");
    assert_eq!(found["total"], 2);
    // Wildcards are plain characters in a search.
    let (_, found) = board_list(&app, &token, &game_id, "?search=%25_").await;
    assert_eq!(names(&found), ["100%_done"]);

    for query in ["?limit=0", "?limit=501", "?offset=-1"] {
        let (status, body) = board_list(&app, &token, &game_id, query).await;
        assert_eq!(status, 400, "{query}: {body}");
    }
}
