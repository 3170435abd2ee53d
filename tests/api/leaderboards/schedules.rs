//! Schedules clients can see: every read and submission answer carries the current period's
//! `period_start` and `resets_at`; an editor can reset a board by hand, archived like a period
//! that ended; a board may reset on a cron schedule (`reset_schedule`) instead of a period.
use super::{board_page, change as patch, define, ranked, ranking, score};
use crate::helpers::{spawn_app, spawn_app_with, Fetch, TestApp};
use crate::receiver::Receiver;
use chrono::{DateTime, Datelike, Duration, SecondsFormat, Timelike, Utc, Weekday};
use reqwest::Method;
use serde_json::{json, Value};

fn instant(value: &Value) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(value.as_str().unwrap())
        .unwrap()
        .with_timezone(&Utc)
}

/// Asserts the board lists `period` as archived with `entries` entries.
async fn assert_archived(
    app: &TestApp,
    token: &str,
    game_id: &str,
    board: &str,
    period: &str,
    entries: u64,
) {
    let (_, periods) = app
        .dashboard_call(
            Method::GET,
            &format!("/v1/games/{game_id}/leaderboards/{board}/periods"),
            token,
        )
        .await;
    let old = periods["periods"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["period"] == period)
        .cloned()
        .unwrap_or_default();
    assert_eq!(old["entries"], entries, "{periods}");
    assert!(old["archived_at"].is_string(), "{periods}");
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
    assert_archived(&app, &token, &game_id, "season", "all_time", 2).await;

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

/// The first Friday 18:00 UTC after `now`, counted by hand.
fn next_friday_evening(now: DateTime<Utc>) -> DateTime<Utc> {
    let mut day = now.date_naive();
    loop {
        let evening = day.and_hms_opt(18, 0, 0).unwrap().and_utc();
        if day.weekday() == Weekday::Fri && evening > now {
            return evening;
        }
        day += Duration::days(1);
    }
}

#[tokio::test]
async fn a_scheduled_board_starts_over_at_each_firing_archives_and_delivers_the_results() {
    let app = spawn_app_with(|s| s.allow_private_webhooks = true).await;
    let receiver = Receiver::start().await;
    let (token, game_id, key) = app.game_with_key().await;
    let (status, created) = define(
        &app,
        &token,
        &game_id,
        json!({ "board_name": "friday", "reset_schedule": "0 18 * * FRI",
                "results_webhook": receiver.hook() }),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(created["reset_schedule"], "0 18 * * FRI");
    assert_eq!(
        created["period"], "all_time",
        "the schedule replaces the period"
    );
    // The first period runs from the board's creation to the next Friday evening.
    let first_end = next_friday_evening(app.state.now());
    assert_eq!(created["period_start"], created["created_at"], "{created}");
    assert_eq!(instant(&created["resets_at"]), first_end);
    let first_period = created["current_period"].as_str().unwrap().to_string();
    assert!(first_period.starts_with("since-"), "{first_period}");

    let answer = score(&app, &key, "friday", "ann", 30.0).await;
    score(&app, &key, "friday", "bob", 20.0).await;
    assert_eq!(
        (answer["period_start"].clone(), answer["resets_at"].clone()),
        (
            created["period_start"].clone(),
            created["resets_at"].clone()
        )
    );
    let (_, page) = board_page(&app, &key, "friday").await;
    assert_eq!(page["period"], first_period.as_str());
    assert_eq!(page["resets_at"], created["resets_at"]);
    assert_eq!(page["total"], 2);

    // A minute past the firing: a fresh period from the firing to the one a week later.
    app.clock
        .advance(first_end - app.state.now() + Duration::minutes(1));
    let (_, page) = board_page(&app, &key, "friday").await;
    assert_eq!(
        (page["total"].clone(), page["entries"].clone()),
        (json!(0), json!([])),
        "{page}"
    );
    assert_eq!(instant(&page["period_start"]), first_end);
    assert_eq!(instant(&page["resets_at"]), first_end + Duration::days(7));
    assert_eq!(
        page["period"],
        format!("since-{}", first_end.format("%Y-%m-%dT%H:%M:%SZ"))
    );
    let fresh = score(&app, &key, "friday", "bob", 5.0).await;
    assert_eq!(
        (fresh["rank"].clone(), fresh["updated"].clone()),
        (json!(1), json!(true)),
        "last week's best does not count this week"
    );
    assert_eq!(fresh["period_start"], page["period_start"]);
    assert_eq!(ranking(&app, &key, "friday").await, ranked(&[("bob", 5.0)]));

    // The old period is archived and stays readable.
    assert_eq!(
        playtrace::leaderboards::archive_finished_periods(&app.state)
            .await
            .unwrap(),
        1
    );
    assert_eq!(
        ranking(&app, &key, &format!("friday?period={first_period}")).await,
        ranked(&[("ann", 30.0), ("bob", 20.0)])
    );
    assert_archived(&app, &token, &game_id, "friday", &first_period, 2).await;

    // Its results are delivered once, as a period end.
    playtrace::leaderboards::deliver_results(&app.state)
        .await
        .unwrap();
    playtrace::leaderboards::deliver_results(&app.state)
        .await
        .unwrap();
    let bodies = receiver.bodies();
    assert_eq!(bodies.len(), 1, "{bodies:?}");
    let first_start = instant(&created["period_start"]);
    assert_eq!(
        bodies[0],
        json!({
            "game_id": game_id,
            "board_name": "friday",
            "period": first_period,
            "period_start": first_start
                .with_nanosecond(0)
                .unwrap()
                .to_rfc3339_opts(SecondsFormat::Secs, true),
            "period_end": first_end.to_rfc3339_opts(SecondsFormat::Secs, true),
            "reason": "period_end",
            "entries": [
                { "rank": 1, "player_id": "ann", "player_name": null, "score": 30 },
                { "rank": 2, "player_id": "bob", "player_name": null, "score": 20 },
            ],
        })
    );
}

#[tokio::test]
async fn a_reset_schedule_is_checked_and_takes_the_place_of_the_period() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    for (body, says) in [
        (
            json!({ "board_name": "b", "period": "daily", "reset_schedule": "0 18 * * FRI" }),
            "reset_schedule and period are exclusive",
        ),
        (
            json!({ "board_name": "b", "period": "all_time", "reset_schedule": "0 18 * * FRI" }),
            "reset_schedule and period are exclusive",
        ),
        (
            json!({ "board_name": "b", "reset_schedule": "every friday" }),
            "reset_schedule must be a cron expression of 5 fields",
        ),
        (
            json!({ "board_name": "b", "reset_schedule": "0 0 18 * * FRI" }),
            "reset_schedule must be a cron expression of 5 fields",
        ),
        (
            json!({ "board_name": "b", "reset_schedule": "*/5 * * * *" }),
            "reset_schedule must fire at most once an hour: \"*/5 * * * *\" fires 5 minutes apart",
        ),
        (
            json!({ "board_name": "b", "reset_schedule": "0 0 31 4 *" }),
            "reset_schedule never fires",
        ),
        (
            json!({ "board_name": "b", "reset_schedule": "0 * * * *",
                    "auto_reset_at": "2030-01-01T00:00:00Z" }),
            "auto_reset_at applies to boards without a reset_schedule only",
        ),
    ] {
        let (status, answer) = define(&app, &token, &game_id, body.clone()).await;
        assert_eq!(status, 400, "{body} -> {answer}");
        let error = answer["error"].as_str().unwrap_or_default();
        assert!(error.starts_with(says), "{body} -> {answer}");
    }
    app.dashboard(
        Method::GET,
        &format!("/v1/games/{game_id}/leaderboards/b"),
        &token,
    )
    .expect_status(404)
    .await;

    // The form's preview: the next firings, or the same refusal.
    let preview = app
        .dashboard(
            Method::GET,
            &format!(
                "/v1/games/{game_id}/leaderboard-schedule?reset_schedule=0%2018%20*%20*%20fri"
            ),
            &token,
        )
        .expect_status(200)
        .await;
    let friday = next_friday_evening(app.state.now());
    assert_eq!(preview["reset_schedule"], "0 18 * * fri");
    let firings: Vec<DateTime<Utc>> = preview["next_resets"]
        .as_array()
        .unwrap()
        .iter()
        .map(instant)
        .collect();
    assert_eq!(
        firings,
        [0, 7, 14].map(|days| friday + Duration::days(days))
    );
    let (status, refused) = app
        .dashboard_call(
            Method::GET,
            &format!("/v1/games/{game_id}/leaderboard-schedule?reset_schedule=*%20*%20*%20*%20*"),
            &token,
        )
        .await;
    assert_eq!(status, 400, "{refused}");
    assert!(refused["error"]
        .as_str()
        .unwrap_or_default()
        .starts_with("reset_schedule must fire at most once an hour"));

    // Hourly is the most often a board may reset.
    let (status, hourly) = define(
        &app,
        &token,
        &game_id,
        json!({ "board_name": "hourly", "reset_schedule": "0 * * * *" }),
    )
    .await;
    assert_eq!(status, 201, "{hourly}");
    let next_hour = (app.state.now() + Duration::hours(1))
        .with_minute(0)
        .and_then(|at| at.with_second(0))
        .and_then(|at| at.with_nanosecond(0))
        .unwrap();
    assert_eq!(instant(&hourly["resets_at"]), next_hour);

    // PATCH: a schedule replaces a daily period, a period replaces the schedule, null clears it.
    define(
        &app,
        &token,
        &game_id,
        json!({ "board_name": "day", "period": "daily" }),
    )
    .await;
    score(&app, &key, "day", "ann", 3.0).await;
    for refused in [
        json!({ "period": "weekly", "reset_schedule": "0 18 * * FRI" }),
        json!({ "reset_schedule": "* * * * *" }),
    ] {
        let (status, answer) = patch(&app, &token, &game_id, "day", refused).await;
        assert_eq!(status, 400, "{answer}");
    }
    let (status, scheduled) = patch(
        &app,
        &token,
        &game_id,
        "day",
        json!({ "reset_schedule": "0 18 * * FRI" }),
    )
    .await;
    assert_eq!(status, 200, "{scheduled}");
    assert_eq!(
        (
            scheduled["period"].clone(),
            scheduled["reset_schedule"].clone()
        ),
        (json!("all_time"), json!("0 18 * * FRI"))
    );
    assert_eq!(
        instant(&scheduled["resets_at"]),
        next_friday_evening(app.state.now())
    );
    let (_, page) = board_page(&app, &key, "day").await;
    assert_eq!(page["resets_at"], scheduled["resets_at"]);
    let (status, weekly) =
        patch(&app, &token, &game_id, "day", json!({ "period": "weekly" })).await;
    assert_eq!(status, 200, "{weekly}");
    assert_eq!(
        (weekly["period"].clone(), weekly["reset_schedule"].clone()),
        (json!("weekly"), Value::Null)
    );
    patch(
        &app,
        &token,
        &game_id,
        "day",
        json!({ "reset_schedule": "0 18 * * FRI" }),
    )
    .await;
    let (status, cleared) = patch(
        &app,
        &token,
        &game_id,
        "day",
        json!({ "reset_schedule": null }),
    )
    .await;
    assert_eq!(status, 200, "{cleared}");
    assert_eq!(
        (
            cleared["period"].clone(),
            cleared["reset_schedule"].clone(),
            cleared["resets_at"].clone()
        ),
        (json!("all_time"), Value::Null, Value::Null)
    );
}
