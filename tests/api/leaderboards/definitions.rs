//! Board definitions in the dashboard: order, period, bounds, and who may change them.
use super::{board_page, define, ranked, ranking, score};
use crate::helpers::{spawn_app, Fetch};
use reqwest::Method;
use serde_json::{json, Value};

#[tokio::test]
async fn editors_define_boards_and_a_lower_is_better_board_keeps_the_lowest() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let (status, created) = define(
        &app,
        &token,
        &game_id,
        json!({ "board_name": "speedrun", "order": "lower", "period": "weekly" }),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(
        (created["order"].clone(), created["period"].clone()),
        (json!("lower"), json!("weekly"))
    );
    let week = created["current_period"].as_str().unwrap().to_string();
    assert!(
        week.len() == 8 && week.contains("-W"),
        "ISO week key: {week}"
    );

    score(&app, &key, "speedrun", "ann", 95.2).await;
    score(&app, &key, "speedrun", "bob", 80.0).await;
    let kept = score(&app, &key, "speedrun", "ann", 120.0).await;
    assert_eq!(kept["updated"], false, "a slower time is worse");
    assert_eq!(
        kept["order"], "lower",
        "a client learns the order from the answer"
    );
    let improved = score(&app, &key, "speedrun", "ann", 61.5).await;
    assert_eq!(
        (improved["updated"].clone(), improved["rank"].clone()),
        (json!(true), json!(1))
    );
    assert_eq!(
        ranking(&app, &key, "speedrun").await,
        ranked(&[("ann", 61.5), ("bob", 80.0)])
    );
    let (_, page) = board_page(&app, &key, "speedrun").await;
    assert_eq!(page["period"], week.as_str());

    let (status, body) = define(&app, &token, &game_id, json!({ "board_name": "speedrun" })).await;
    assert_eq!(status, 409, "{body}");

    // A board created by a first score is listed with the defaults.
    let first = score(&app, &key, "implicit", "ann", 1.0).await;
    assert_eq!(first["order"], "higher");
    let list = app
        .dashboard(
            Method::GET,
            &format!("/v1/games/{game_id}/leaderboards"),
            &token,
        )
        .expect_status(200)
        .await;
    let implicit = list["leaderboards"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["board_name"] == "implicit")
        .unwrap()
        .clone();
    assert_eq!(
        (implicit["order"].clone(), implicit["period"].clone()),
        (json!("higher"), json!("all_time"))
    );

    // Order is fixed once a board has entries; other settings change freely.
    let path = format!("/v1/games/{game_id}/leaderboards/speedrun");
    app.dashboard(Method::PATCH, &path, &token)
        .json(&json!({ "order": "higher" }))
        .expect_status(409)
        .await;
    let body = app
        .dashboard(Method::PATCH, &path, &token)
        .json(&json!({ "max_score": 500, "min_score": 1 }))
        .expect_status(200)
        .await;
    assert_eq!(
        (body["min_score"].clone(), body["max_score"].clone()),
        (json!(1), json!(500))
    );
    let (status, body) = app
        .dashboard_json(Method::PATCH, &path, &token, json!({ "max_score": null }))
        .await;
    assert_eq!(
        (status, body["max_score"].clone(), body["min_score"].clone()),
        (200, Value::Null, json!(1))
    );
    let (status, body) = app.dashboard_call(Method::GET, &path, &token).await;
    assert_eq!(
        (status, body["board_name"].clone()),
        (200, json!("speedrun"))
    );

    let (status, _) = app.dashboard_call(Method::DELETE, &path, &token).await;
    assert_eq!(status, 204);
    let (status, _) = app.dashboard_call(Method::GET, &path, &token).await;
    assert_eq!(status, 404);
    let (_, page) = board_page(&app, &key, "speedrun").await;
    assert_eq!(page["total"], 0, "entries went with the board");
}

#[tokio::test]
async fn definitions_are_validated_and_need_the_right_role() {
    let app = spawn_app().await;
    let _admin = app.new_user().await;
    let (token, game_id, _) = app.game_with_key().await;
    let cases = [
        (json!({ "order": "higher" }), "board_name missing"),
        (json!({ "board_name": "" }), "empty name"),
        (json!({ "board_name": "x".repeat(256) }), "name too long"),
        (
            json!({ "board_name": "b", "order": "best" }),
            "unknown order",
        ),
        (
            json!({ "board_name": "b", "period": "hourly" }),
            "unknown period",
        ),
        (
            json!({ "board_name": "b", "auto_reset_at": "next tuesday" }),
            "bad date",
        ),
        (
            json!({ "board_name": "b", "period": "daily", "auto_reset_at": "2030-01-01T00:00:00Z" }),
            "reset on a daily board",
        ),
        (
            json!({ "board_name": "b", "min_score": 10, "max_score": 5 }),
            "min above max",
        ),
        (
            json!({ "board_name": "b", "min_score": "low" }),
            "bound not a number",
        ),
        (
            json!({ "board_name": "b", "color": "red" }),
            "unknown field",
        ),
    ];
    for (body, case) in cases {
        let (status, answer) = define(&app, &token, &game_id, body).await;
        assert_eq!(status, 400, "{case}: {answer}");
    }

    // A viewer reads but cannot define; a stranger sees nothing.
    let (viewer, _) = app.new_member(&token, &game_id, "viewer").await;
    let (status, _) = define(&app, &viewer, &game_id, json!({ "board_name": "b" })).await;
    assert_eq!(status, 403);
    app.dashboard(
        Method::GET,
        &format!("/v1/games/{game_id}/leaderboards"),
        &viewer,
    )
    .expect_status(200)
    .await;
    let stranger = app.new_user().await;
    app.dashboard(
        Method::GET,
        &format!("/v1/games/{game_id}/leaderboards"),
        &stranger,
    )
    .expect_status(403)
    .await;
    let (status, _) = define(&app, &stranger, &game_id, json!({ "board_name": "b" })).await;
    assert_eq!(status, 403);
    app.request(Method::GET, &format!("/v1/games/{game_id}/leaderboards"))
        .expect_status(401)
        .await;
}
