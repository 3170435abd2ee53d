//! Schedules clients can see: every read and submission answer carries the current period's
//! `period_start` and `resets_at`; an editor can reset a board by hand, archived like a period
//! that ended.
use super::{board_page, define, ranked, ranking, score};
use crate::helpers::{spawn_app, Fetch};
use chrono::{DateTime, Duration, Utc};
use reqwest::Method;
use serde_json::{json, Value};

fn instant(value: &Value) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(value.as_str().unwrap())
        .unwrap()
        .with_timezone(&Utc)
}

#[tokio::test]
async fn reads_and_answers_tell_when_the_period_began_and_when_it_resets() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    define(
        &app,
        &token,
        &game_id,
        json!({ "board_name": "day", "period": "daily" }),
    )
    .await;
    let answer = score(&app, &key, "day", "ann", 3.0).await;
    let start = instant(&answer["period_start"]);
    let today = app
        .state
        .now()
        .date_naive()
        .and_hms_opt(0, 0, 0)
        .unwrap()
        .and_utc();
    assert_eq!(start, today, "{answer}");
    assert_eq!(instant(&answer["resets_at"]), today + Duration::days(1));
    let (_, page) = board_page(&app, &key, "day").await;
    assert_eq!(
        (page["period_start"].clone(), page["resets_at"].clone()),
        (answer["period_start"].clone(), answer["resets_at"].clone())
    );
    let (_, standing) = board_page(&app, &key, "day/players/ann").await;
    assert_eq!(standing["resets_at"], answer["resets_at"]);

    // All-time boards never reset: both null, on a board made by a score too.
    let forever = score(&app, &key, "forever", "ann", 3.0).await;
    assert_eq!(
        (
            forever["period_start"].clone(),
            forever["resets_at"].clone()
        ),
        (Value::Null, Value::Null)
    );
    let (_, unknown) = board_page(&app, &key, "never-scored").await;
    assert_eq!(
        (
            unknown["period_start"].clone(),
            unknown["resets_at"].clone()
        ),
        (Value::Null, Value::Null)
    );
}

#[tokio::test]
async fn an_editor_can_reset_a_board_by_hand_and_the_old_period_is_archived() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    define(&app, &token, &game_id, json!({ "board_name": "season" })).await;
    score(&app, &key, "season", "ann", 30.0).await;
    score(&app, &key, "season", "bob", 20.0).await;
    app.clock.advance(Duration::seconds(10));

    let (status, reset) = app
        .dashboard_call(
            Method::POST,
            &format!("/v1/games/{game_id}/leaderboards/season/reset"),
            &token,
        )
        .await;
    assert_eq!(status, 200, "{reset}");
    let began = app.state.now() - instant(&reset["period_start"]);
    assert!(
        began >= Duration::zero() && began < Duration::seconds(2),
        "{reset}"
    );
    assert_eq!(
        reset["resets_at"],
        Value::Null,
        "an all-time board still never resets on its own"
    );
    let (_, page) = board_page(&app, &key, "season").await;
    assert_eq!(
        (page["total"].clone(), page["period"].clone()),
        (json!(0), reset["current_period"].clone())
    );
    let fresh = score(&app, &key, "season", "bob", 5.0).await;
    assert_eq!(fresh["rank"], 1);
    assert_eq!(fresh["period_start"], reset["period_start"]);

    // The period cut short reads as before and is archived like one that ended.
    assert_eq!(
        ranking(&app, &key, "season?period=all_time").await,
        ranked(&[("ann", 30.0), ("bob", 20.0)])
    );
    playtrace::leaderboards::archive_finished_periods(&app.state)
        .await
        .unwrap();
    let (_, periods) = app
        .dashboard_call(
            Method::GET,
            &format!("/v1/games/{game_id}/leaderboards/season/periods"),
            &token,
        )
        .await;
    let old = periods["periods"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["period"] == "all_time")
        .unwrap();
    assert_eq!(old["entries"], 2, "{periods}");
    assert!(!old["archived_at"].is_null());

    // Viewers may not reset; unknown boards are 404.
    let (viewer, _) = app.new_member(&token, &game_id, "viewer").await;
    app.dashboard(
        Method::POST,
        &format!("/v1/games/{game_id}/leaderboards/season/reset"),
        &viewer,
    )
    .expect_status(403)
    .await;
    app.dashboard(
        Method::POST,
        &format!("/v1/games/{game_id}/leaderboards/nope/reset"),
        &token,
    )
    .expect_status(404)
    .await;
}
