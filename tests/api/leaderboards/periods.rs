//! Periods: daily, weekly and monthly boards start empty each period and keep finished ones
//! readable; an all-time board resets once at its date.
use super::{board_page, define, ranked, ranking, score};
use crate::helpers::{spawn_app, Fetch};
use chrono::{Datelike, Duration};
use serde_json::json;

#[tokio::test]
async fn a_daily_board_starts_empty_each_day_and_keeps_yesterday_readable() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let (_, created) = define(
        &app,
        &token,
        &game_id,
        json!({ "board_name": "daily", "period": "daily" }),
    )
    .await;
    let today = created["current_period"].as_str().unwrap().to_string();
    assert_eq!(today, app.state.now().format("%Y-%m-%d").to_string());
    score(&app, &key, "daily", "ann", 30.0).await;
    score(&app, &key, "daily", "bob", 20.0).await;

    app.clock.advance(Duration::days(1));
    let (_, page) = board_page(&app, &key, "daily").await;
    assert_eq!(
        (page["total"].clone(), page["entries"].clone()),
        (json!(0), json!([])),
        "a new day starts empty"
    );
    assert_ne!(page["period"], today.as_str());
    let fresh = score(&app, &key, "daily", "bob", 5.0).await;
    assert_eq!(
        (fresh["rank"].clone(), fresh["updated"].clone()),
        (json!(1), json!(true)),
        "yesterday's best does not count today"
    );

    let archived = playtrace::leaderboards::archive_finished_periods(&app.state)
        .await
        .unwrap();
    assert_eq!(archived, 1, "yesterday is archived once");
    // The dashboard lists the periods, newest first, the finished one with its final count.
    let periods = app
        .dashboard(
            reqwest::Method::GET,
            &format!("/v1/games/{game_id}/leaderboards/daily/periods"),
            &token,
        )
        .expect_status(200)
        .await;
    assert_eq!(periods["current_period"], page["period"]);
    let listed = periods["periods"].as_array().unwrap();
    assert_eq!(listed.len(), 2, "{periods}");
    assert_eq!(listed[0]["period"], page["period"]);
    assert_eq!(listed[0]["archived_at"], serde_json::Value::Null);
    assert_eq!(
        (listed[1]["period"].clone(), listed[1]["entries"].clone()),
        (json!(today), json!(2))
    );
    assert!(listed[1]["archived_at"].is_string());
    assert_eq!(
        playtrace::leaderboards::archive_finished_periods(&app.state)
            .await
            .unwrap(),
        0
    );
    assert_eq!(
        ranking(&app, &key, &format!("daily?period={today}")).await,
        ranked(&[("ann", 30.0), ("bob", 20.0)])
    );
    let (_, page) = board_page(
        &app,
        &key,
        &format!("daily?period={today}&offset=1&limit=1"),
    )
    .await;
    assert_eq!(
        (page["total"].clone(), page["entries"][0]["rank"].clone()),
        (json!(2), json!(2))
    );
    let (status, body) = board_page(&app, &key, &format!("daily/players/bob?period={today}")).await;
    assert_eq!((status, body["rank"].clone()), (200, json!(2)), "{body}");
    assert_eq!(ranking(&app, &key, "daily").await, ranked(&[("bob", 5.0)]));
}

#[tokio::test]
async fn monthly_and_weekly_boards_are_keyed_by_their_period() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    for (name, period) in [("month", "monthly"), ("week", "weekly")] {
        let (status, body) = define(
            &app,
            &token,
            &game_id,
            json!({ "board_name": name, "period": period }),
        )
        .await;
        assert_eq!(status, 201, "{body}");
    }
    let week = app.state.now().iso_week();
    let (_, page) = board_page(&app, &key, "week").await;
    assert_eq!(
        page["period"],
        format!("{:04}-W{:02}", week.year(), week.week())
    );

    score(&app, &key, "month", "ann", 1.0).await;
    let (_, page) = board_page(&app, &key, "month").await;
    let month = app.state.now().format("%Y-%m").to_string();
    assert_eq!(page["period"], month.as_str());
    app.clock.advance(Duration::days(32));
    let (_, page) = board_page(&app, &key, "month").await;
    assert_eq!(page["total"], 0, "a new month starts empty");
    assert_eq!(
        ranking(&app, &key, &format!("month?period={month}")).await,
        ranked(&[("ann", 1.0)])
    );
}

#[tokio::test]
async fn an_all_time_board_resets_once_at_its_auto_reset_date() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let reset_at = (app.state.now() + Duration::days(3))
        .format("%Y-%m-%dT00:00:00Z")
        .to_string();
    let (status, created) = define(
        &app,
        &token,
        &game_id,
        json!({ "board_name": "season", "auto_reset_at": reset_at }),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(created["current_period"], "all_time");
    score(&app, &key, "season", "veteran", 100.0).await;

    app.clock.advance(Duration::days(4));
    let (_, page) = board_page(&app, &key, "season").await;
    assert_eq!(page["total"], 0, "the board reset at its date");
    let since = page["period"].as_str().unwrap().to_string();
    assert!(since.starts_with("since-"), "{since}");
    score(&app, &key, "season", "rookie", 1.0).await;
    assert_eq!(
        playtrace::leaderboards::archive_finished_periods(&app.state)
            .await
            .unwrap(),
        1
    );
    assert_eq!(
        ranking(&app, &key, "season?period=all_time").await,
        ranked(&[("veteran", 100.0)])
    );

    app.clock.advance(Duration::days(400));
    assert_eq!(
        ranking(&app, &key, "season").await,
        ranked(&[("rookie", 1.0)]),
        "it resets only once"
    );
    assert_eq!(
        playtrace::leaderboards::archive_finished_periods(&app.state)
            .await
            .unwrap(),
        0
    );
}
