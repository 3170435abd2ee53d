//! Moderation: scores outside a board's bounds wait for approval; banned players are refused.
use super::{define, ranked, ranking, score, submit};
use crate::helpers::{spawn_app, Fetch};
use reqwest::Method;
use serde_json::{json, Value};

#[tokio::test]
async fn scores_outside_the_bounds_wait_for_approval_and_banned_players_are_refused() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let (status, _) = define(
        &app,
        &token,
        &game_id,
        json!({ "board_name": "guarded", "min_score": 0, "max_score": 1000 }),
    )
    .await;
    assert_eq!(status, 201);
    score(&app, &key, "guarded", "honest", 800.0).await;
    score(&app, &key, "guarded", "lucky", 500.0).await;
    let flagged = score(&app, &key, "guarded", "lucky", 5000.0).await;
    assert_eq!(
        (flagged["status"].clone(), flagged["rank"].clone()),
        (json!("suspicious"), Value::Null)
    );
    let cheat = score(&app, &key, "guarded", "cheat", 999999.0).await;
    assert_eq!(cheat["status"], "suspicious");

    assert_eq!(
        ranking(&app, &key, "guarded").await,
        ranked(&[("honest", 800.0), ("lucky", 500.0)]),
        "suspicious scores stay off the public board"
    );
    let base = format!("/v1/games/{game_id}/leaderboards/guarded/entries");
    let (status, listed) = app
        .dashboard_call(Method::GET, &format!("{base}?status=suspicious"), &token)
        .await;
    assert_eq!(status, 200, "{listed}");
    let suspects: Vec<&str> = listed["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["player_id"].as_str().unwrap())
        .collect();
    assert_eq!(suspects, vec!["cheat", "lucky"]);
    assert_eq!(listed["total"], 2);
    app.dashboard(Method::GET, &format!("{base}?status=weird"), &token)
        .expect_status(400)
        .await;

    // The player search: one player's entries, the public one ranked on the whole board.
    let (status, found) = app
        .dashboard_call(Method::GET, &format!("{base}?player_id=lucky"), &token)
        .await;
    assert_eq!(status, 200, "{found}");
    let found: Vec<(Value, Value, Value)> = found["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["status"].clone(), e["score"].clone(), e["rank"].clone()))
        .collect();
    assert_eq!(
        found,
        vec![
            (json!("suspicious"), json!(5000), Value::Null),
            (json!("ok"), json!(500), json!(2))
        ],
        "best first, like every listing"
    );
    let (_, nobody) = app
        .dashboard_call(Method::GET, &format!("{base}?player_id=nobody"), &token)
        .await;
    assert_eq!(nobody["total"], 0);
    app.dashboard(Method::GET, &format!("{base}?player_id=a%00b"), &token)
        .expect_status(400)
        .await;

    let (status, approved) = app
        .dashboard_call(Method::POST, &format!("{base}/lucky/approve"), &token)
        .await;
    assert_eq!(status, 200, "{approved}");
    assert_eq!(
        (
            approved["score"].clone(),
            approved["rank"].clone(),
            approved["status"].clone()
        ),
        (json!(5000), json!(1), json!("ok"))
    );
    assert_eq!(
        ranking(&app, &key, "guarded").await,
        ranked(&[("lucky", 5000.0), ("honest", 800.0)])
    );
    let (status, _) = app
        .dashboard_call(Method::POST, &format!("{base}/lucky/approve"), &token)
        .await;
    assert_eq!(status, 404, "nothing left to approve");

    score(&app, &key, "guarded", "cheat", 10.0).await;
    let banned = app
        .dashboard(Method::POST, &format!("{base}/cheat/ban"), &token)
        .expect_status(200)
        .await;
    assert_eq!(
        (banned["banned"].clone(), banned["removed_entries"].clone()),
        (json!(true), json!(2))
    );
    assert_eq!(
        ranking(&app, &key, "guarded").await,
        ranked(&[("lucky", 5000.0), ("honest", 800.0)])
    );
    let (status, refused) = submit(
        &app,
        &key,
        json!({ "board_name": "guarded", "player_id": "cheat", "score": 5 }),
    )
    .await;
    assert_eq!(status, 403, "{refused}");
    assert_eq!(
        refused["error"],
        "This player is banned from this leaderboard"
    );
    assert_eq!(
        refused["code"], "PLAYER_BANNED",
        "a program tells a ban from other 403s"
    );
    let bans_url = format!("/v1/games/{game_id}/leaderboards/guarded/bans");
    let (status, bans) = app.dashboard_call(Method::GET, &bans_url, &token).await;
    assert_eq!(status, 200, "{bans}");
    assert_eq!(bans["bans"].as_array().unwrap().len(), 1);
    assert_eq!(bans["bans"][0]["player_id"], "cheat");
    assert_eq!(bans["bans"][0]["banned_at"], banned["banned_at"]);
    let (_, all) = app.dashboard_call(Method::GET, &base, &token).await;
    assert!(all["entries"]
        .as_array()
        .unwrap()
        .iter()
        .all(|e| e["player_id"] != "cheat"));

    // Banning is per board; lifting it lets the player back in.
    score(&app, &key, "another-board", "cheat", 5.0).await;
    app.dashboard(Method::DELETE, &format!("{base}/cheat/ban"), &token)
        .expect_status(204)
        .await;
    score(&app, &key, "guarded", "cheat", 5.0).await;
    app.dashboard(Method::DELETE, &format!("{base}/cheat/ban"), &token)
        .expect_status(404)
        .await;
    let (_, bans) = app.dashboard_call(Method::GET, &bans_url, &token).await;
    assert_eq!(bans["bans"], json!([]), "the lifted ban is off the list");
    app.dashboard(
        Method::GET,
        &format!("/v1/games/{game_id}/leaderboards/nope/bans"),
        &token,
    )
    .expect_status(404)
    .await;

    app.dashboard(
        Method::POST,
        &format!("/v1/games/{game_id}/leaderboards/nope/entries/x/ban"),
        &token,
    )
    .expect_status(404)
    .await;
    let viewer_game_stranger = app.new_user().await;
    app.dashboard(
        Method::POST,
        &format!("{base}/lucky/ban"),
        &viewer_game_stranger,
    )
    .expect_status(403)
    .await;
}
