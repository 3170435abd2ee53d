//! The aggregates through a game's life: a rebuild while events arrive, a player's erasure,
//! retention deleting old days (folded ones too).
use super::*;

#[tokio::test]
async fn a_rebuild_counts_the_stored_events_again_while_new_ones_arrive() {
    let app = spawn_app().await;
    let token = app.new_user().await;
    let mut dice = Dice(0xbacf_111d);
    let game_id = game_with_events(&app, &token, &mut dice).await;
    let db = &app.state.db;

    let queued = playtrace::aggregates::backfill::rebuild(db, Some(vec![game_id]))
        .await
        .unwrap();
    assert_eq!(queued, 1);
    let before_backfill = app
        .dashboard(
            Method::GET,
            &format!("/v1/games/{game_id}/events/counts"),
            &token,
        )
        .expect_status(200)
        .await;
    assert_eq!(
        before_backfill["total"], 0,
        "cleared until the backfill counts the game again"
    );
    // Partial figures would read as a drop: no rule of the game fires until they are counted.
    let rule = app
        .dashboard(Method::POST, "/v1/alerts", &token)
        .json(&json!({
            "game_id": game_id, "name": "revenue watch", "type": "revenue_drop",
            "threshold": 1, "comparison_window_hours": 24, "email": "oncall@studio.test",
        }))
        .expect_status(201)
        .await;
    let evaluate = format!("/v1/alerts/{}/evaluate", rule["rule_id"].as_str().unwrap());
    let answer = app
        .dashboard(Method::POST, &evaluate, &token)
        .expect_status(200)
        .await;
    assert_eq!(answer["fired"], false, "{answer}");
    assert_eq!(
        answer["reason"],
        playtrace::alerts::evaluate::BACKFILL_PENDING,
        "{answer}"
    );
    // New events arrive while the backfill runs: each is counted once, by one or the other.
    let key = app
        .create_key(&token, &game_id.to_string(), "development")
        .await;
    let now = app.state.now();
    let arriving = async {
        for round in 0..5 {
            let batch: Vec<Value> = (0..20)
                .map(|i| {
                    let at = now - Duration::hours(i * 7 + round);
                    event(
                        "development",
                        "crash",
                        Some(&format!("player-{i}")),
                        at,
                        json!({}),
                    )
                    .body
                })
                .collect();
            app.game(Method::POST, "/v1/track", &key)
                .json(&json!(batch))
                .expect_status(202)
                .await;
        }
    };
    let (counted, ()) = tokio::join!(
        playtrace::aggregates::backfill::run_to_end(db, std::time::Duration::ZERO),
        arriving
    );
    assert!(counted.unwrap() > 0);

    assert_reads_match_the_events(&app, &token, game_id, &ALL_METRICS).await;
    let answer = app
        .dashboard(Method::POST, &evaluate, &token)
        .expect_status(200)
        .await;
    assert_ne!(
        answer["reason"],
        playtrace::alerts::evaluate::BACKFILL_PENDING,
        "counted: the rule is evaluated again ({answer})"
    );
}

#[tokio::test]
async fn erasing_a_player_forgets_who_it_was_and_keeps_the_counts() {
    let app = spawn_app().await;
    let token = app.new_user().await;
    let mut dice = Dice(0xe7a5_e000);
    let game_id = game_with_events(&app, &token, &mut dice).await;
    let series = |metric: &str| {
        let request = app.dashboard(
            Method::GET,
            &format!(
                "/v1/games/{game_id}/metrics?metric={metric}&from={}",
                app.state.now().date_naive() - Duration::days(45)
            ),
            &token,
        );
        async move { request.expect_status(200).await["points"].clone() }
    };
    let before = (
        series("events").await,
        series("active_users").await,
        series("retention_d7").await,
    );

    app.dashboard(
        Method::DELETE,
        &format!("/v1/games/{game_id}/players/player-1/data"),
        &token,
    )
    .expect_status(200)
    .await;

    let after = (
        series("events").await,
        series("active_users").await,
        series("retention_d7").await,
    );
    assert_eq!(before, after, "anonymous counts stay as they were");
    for table in [
        "analytics_player_hours",
        "analytics_player_days",
        "analytics_players",
    ] {
        let row = app
            .state
            .db
            .query_one_raw(Statement::from_sql_and_values(
                app.state.db.get_database_backend(),
                format!("SELECT CAST(COUNT(*) AS BIGINT) AS n FROM {table} WHERE game_id = $1 AND actor_id = $2"),
                [game_id.into(), "player-1".into()],
            ))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            row.try_get::<i64>("", "n").unwrap(),
            0,
            "{table} still knows player-1"
        );
    }
}

#[tokio::test]
async fn retention_deletes_the_aggregates_of_the_days_it_deletes() {
    let app = spawn_app().await;
    let token = app.new_user().await;
    let mut dice = Dice(0x0001_d1e5);
    let game_id = game_with_events(&app, &token, &mut dice).await;
    app.dashboard(Method::PATCH, &format!("/v1/games/{game_id}"), &token)
        .json(&json!({ "retention_days": 12 }))
        .expect_status(200)
        .await;
    // The days up to 5 days ago folded into one row a key: retention deletes those rows as it
    // deletes the writers' shard rows.
    let folded = playtrace::aggregates::fold::fold_before(
        &app.state.db,
        app.state.now() - Duration::days(5),
        None,
    )
    .await
    .unwrap();
    assert!(folded.rows > 0);

    let deleted = playtrace::events::retention::delete_expired_events(&app.state)
        .await
        .unwrap();

    assert!(deleted > 0);
    // Counts and active users follow the events that are left (first days are kept, so
    // retention is left out: see docs/analytics.md).
    let metrics = [
        Metric::Events,
        Metric::Crashes,
        Metric::LogErrors,
        Metric::Revenue,
        Metric::ActiveUsers,
    ];
    assert_reads_match_the_events(&app, &token, game_id, &metrics).await;
}
