//! Every alert kind evaluated from the aggregates answers what the raw events answer.
use super::*;

/// What an alert kind reads, computed from the raw events as the evaluation did before the
/// aggregates: (current, baseline) at `now`.
async fn reference_evaluation(
    app: &TestApp,
    scope: &Scope,
    kind: &str,
    window_hours: i64,
    now: DateTime<Utc>,
) -> (f64, f64) {
    let days = ((window_hours + 12) / 24).max(1);
    let (metric, buckets) = match kind {
        "crash_spike" | "log_error_spike" => (
            if kind == "crash_spike" {
                Metric::Crashes
            } else {
                Metric::LogErrors
            },
            Buckets {
                start: now - Duration::hours(window_hours + 1),
                seconds: 3600,
                count: window_hours as usize + 1,
            },
        ),
        "revenue_drop" | "dau_drop" => (
            if kind == "revenue_drop" {
                Metric::Revenue
            } else {
                Metric::ActiveUsers
            },
            Buckets {
                start: now - Duration::days(days + 1),
                seconds: 86_400,
                count: days as usize + 1,
            },
        ),
        _ => {
            let newest = playtrace::query::midnight(now.date_naive()) - Duration::days(8);
            (
                Metric::RetentionD7,
                Buckets {
                    start: newest - Duration::days(days),
                    seconds: 86_400,
                    count: days as usize + 1,
                },
            )
        }
    };
    let points: Vec<Point> = reference::series(&app.state.db, scope, metric, buckets, now)
        .await
        .unwrap();
    let (history, latest) = points.split_at(points.len() - 1);
    let values: Vec<f64> = if metric == Metric::RetentionD7 {
        history.iter().filter_map(|p| p.value).collect()
    } else {
        history.iter().map(|p| p.value.unwrap_or(0.0)).collect()
    };
    let baseline = if values.is_empty() {
        0.0
    } else {
        values.iter().sum::<f64>() / values.len() as f64
    };
    (latest[0].value.unwrap_or(0.0), baseline)
}

#[tokio::test]
async fn every_alert_kind_evaluated_from_the_aggregates_equals_the_raw_events() {
    let app = spawn_app().await;
    let token = app.new_user().await;
    let mut dice = Dice(0xa1e7_5eed);
    let game_id = game_with_events(&app, &token, &mut dice).await;
    let kinds = [
        "crash_spike",
        "log_error_spike",
        "revenue_drop",
        "dau_drop",
        "retention_drop",
    ];
    evaluations_equal_the_events(&app, &token, game_id, &kinds).await;
}

/// Day rows kept before their first and last seconds were (migration 97) have none: a
/// `dau_drop` window over them is read from the day rows' hours, the edges' hour rows' minutes
/// and the split minutes' events, and answers the same.
#[tokio::test]
async fn dau_drop_over_days_counted_before_seconds_were_kept_equals_the_raw_events() {
    dau_drop_over_older_rows_equals_the_raw_events(
        0x05ec_00d5,
        &["UPDATE analytics_player_days SET first_second = NULL, last_second = NULL WHERE game_id = $1"],
    )
    .await;
}

/// Day rows kept before the last second of the day before was (migration 99) have none: a
/// `dau_drop` window over them is read by grouping the day rows by player, and answers the
/// same.
#[tokio::test]
async fn dau_drop_over_days_counted_before_the_day_before_was_kept_equals_the_raw_events() {
    dau_drop_over_older_rows_equals_the_raw_events(
        0x9e71_0ad5,
        &["UPDATE analytics_player_days SET previous_last_second = NULL WHERE game_id = $1"],
    )
    .await;
}

/// Rows kept before the hour rows' minutes (migration 95) and the day rows' seconds were have
/// neither: the window's edges are read from the events, and it answers the same.
#[tokio::test]
async fn dau_drop_over_hours_counted_before_minutes_were_kept_equals_the_raw_events() {
    dau_drop_over_older_rows_equals_the_raw_events(
        0xd0_0d1e,
        &[
            "UPDATE analytics_player_days SET first_second = NULL, last_second = NULL WHERE game_id = $1",
            "UPDATE analytics_player_hours SET minutes = NULL WHERE game_id = $1",
        ],
    )
    .await;
}

/// A game's events, its aggregate rows made as older versions left them (`updates`), and
/// `dau_drop` evaluated and compared with the events.
async fn dau_drop_over_older_rows_equals_the_raw_events(seed: u64, updates: &[&str]) {
    let app = spawn_app().await;
    let token = app.new_user().await;
    let mut dice = Dice(seed);
    let game_id = game_with_events(&app, &token, &mut dice).await;
    for update in updates {
        app.state
            .db
            .execute_raw(sea_orm::Statement::from_sql_and_values(
                app.state.db.get_database_backend(),
                *update,
                [game_id.into()],
            ))
            .await
            .unwrap();
    }
    evaluations_equal_the_events(&app, &token, game_id, &["dau_drop"]).await;
}

/// Evaluates a rule of each kind (24 hours over both environments, 72 over one) and compares
/// it with the raw events at some second the evaluation ran in.
async fn evaluations_equal_the_events(app: &TestApp, token: &str, game_id: Uuid, kinds: &[&str]) {
    for &kind in kinds {
        for (window, environment) in [(24, None), (72, Some("development"))] {
            let mut rule = json!({
                "game_id": game_id,
                "name": format!("{kind} watch"),
                "type": kind,
                "threshold": 50,
                "comparison_window_hours": window,
                "email": "oncall@studio.test",
            });
            if let Some(environment) = environment {
                rule["environment"] = json!(environment);
            }
            let rule = app
                .dashboard(Method::POST, "/v1/alerts", token)
                .json(&rule)
                .expect_status(201)
                .await;
            let scope = Scope {
                game_id,
                environment: environment.map(str::to_string),
                event_name: None,
            };
            let before = app
                .state
                .now()
                .duration_trunc(Duration::seconds(1))
                .unwrap();
            let path = format!("/v1/alerts/{}/evaluate", rule["rule_id"].as_str().unwrap());
            let answer = app
                .dashboard(Method::POST, &path, token)
                .expect_status(200)
                .await;
            let after = app
                .state
                .now()
                .duration_trunc(Duration::seconds(1))
                .unwrap();
            let got = (
                answer["current_value"].as_f64().unwrap(),
                answer["baseline_value"].as_f64().unwrap(),
            );
            let mut seen = Vec::new();
            let mut second = before;
            while second <= after {
                let want = reference_evaluation(app, &scope, kind, window, second).await;
                if (got.0 - want.0).abs() < 0.01 && (got.1 - want.1).abs() < 0.01 {
                    break;
                }
                seen.push(want);
                second += Duration::seconds(1);
            }
            assert!(
                second <= after,
                "{kind} ({environment:?}, {window} h): evaluated {got:?}, the events say {seen:?}"
            );
        }
    }
}

/// A 24-hour window from any second (a `dau_drop` rule's) holds a player exactly when one of
/// its events falls in it, to the second: events on both sides of both edges, at the edge's
/// own second and in the last millisecond before the next.
#[tokio::test]
async fn day_windows_from_any_second_count_the_players_at_their_exact_edges() {
    let app = spawn_app().await;
    let token = app.new_user().await;
    let (game_id, keys) = game_with_keys(&app, &token).await;
    let today = app.state.now().date_naive();
    let start = playtrace::query::midnight(today - Duration::days(6))
        + Duration::hours(10)
        + Duration::minutes(30)
        + Duration::seconds(17);
    let day = Duration::days(1);
    let ms = Duration::milliseconds;
    let players: [(&str, &[DateTime<Utc>]); 8] = [
        ("just-before", &[start - Duration::seconds(1)]),
        ("at-the-edge", &[start]),
        ("half-a-second-in", &[start + ms(500)]),
        ("last-second", &[start + day - Duration::seconds(1)]),
        ("last-millisecond", &[start + day - ms(1)]),
        ("at-the-next-edge", &[start + day]),
        ("mid-third", &[start + day * 2 + Duration::hours(12)]),
        (
            "before-and-after",
            &[
                start - Duration::seconds(1),
                start + day + Duration::seconds(1),
            ],
        ),
    ];
    let mut sent = Vec::new();
    for (player, times) in players {
        for at in times {
            sent.push(event(
                "production",
                "session_start",
                Some(player),
                *at,
                json!({}),
            ));
        }
    }
    send(&app, &keys, sent).await;
    let buckets = Buckets {
        start,
        seconds: 86_400,
        count: 4,
    };
    for environment in [None, Some("production")] {
        let scope = Scope {
            game_id,
            environment: environment.map(str::to_string),
            event_name: None,
        };
        let now = app.state.now();
        let got: Vec<Option<f64>> =
            playtrace::analytics::series(&app.state.db, &scope, Metric::ActiveUsers, buckets, now)
                .await
                .unwrap()
                .iter()
                .map(|point| point.value)
                .collect();
        let reference: Vec<Option<f64>> =
            reference::series(&app.state.db, &scope, Metric::ActiveUsers, buckets, now)
                .await
                .unwrap()
                .iter()
                .map(|point| point.value)
                .collect();
        let want = vec![Some(4.0), Some(2.0), Some(1.0), Some(0.0)];
        assert_eq!(reference, want, "{environment:?}: the events say");
        assert_eq!(got, want, "{environment:?}: the aggregates say");
    }
}

/// On PostgreSQL a `dau_drop` window is read through the (game, scope, day) index, whatever the
/// planner would choose for the table on its own. On this small table, once analysed, it
/// chooses a sequential scan of every player's days, and at 10M events it chose one too (a parallel
/// scan of the whole table, 63-98 ms, when the visibility map made the index look dear): the
/// read's cost must follow the window, not the game's history. Seen from the index's scan
/// count, which the node's connection reports once it is idle.
#[tokio::test]
async fn day_windows_are_read_through_the_day_index_on_postgresql() {
    if !services_backend() {
        return; // SQLite's plan has no such choice to make here.
    }
    let app = spawn_app().await;
    let token = app.new_user().await;
    let (game_id, keys) = game_with_keys(&app, &token).await;
    let now = app.state.now();
    let mut sent = Vec::new();
    for (index, player) in ["ana", "ben", "cleo"].into_iter().enumerate() {
        for days_ago in 0..8 {
            let at = now - Duration::days(days_ago) - Duration::hours(index as i64 + 1);
            sent.push(event(
                "production",
                "session_start",
                Some(player),
                at,
                json!({}),
            ));
        }
    }
    send(&app, &keys, sent).await;
    let stats = &app.state.db;
    let scans = || async {
        stats
            .query_one_raw(sea_orm::Statement::from_string(
                sea_orm::DatabaseBackend::Postgres,
                "SELECT CAST(idx_scan AS BIGINT) AS scans FROM pg_stat_user_indexes \
                 WHERE indexrelname = 'analytics_player_days_by_day_edges'",
            ))
            .await
            .unwrap()
            .expect("the index exists")
            .try_get::<i64>("", "scans")
            .unwrap()
    };
    // Statistics as autovacuum leaves them: with them, the planner left alone scans this
    // one-page table from end to end.
    stats
        .execute_unprepared("ANALYZE analytics_player_days")
        .await
        .unwrap();
    let before = scans().await;
    let now = app
        .state
        .now()
        .duration_trunc(Duration::seconds(1))
        .unwrap();
    let buckets = Buckets {
        start: now - Duration::days(8),
        seconds: 86_400,
        count: 8,
    };
    let scope = Scope {
        game_id,
        environment: None,
        event_name: None,
    };
    let points =
        playtrace::analytics::series(&app.state.db, &scope, Metric::ActiveUsers, buckets, now)
            .await
            .unwrap();
    assert_eq!(
        points.iter().map(|point| point.value).collect::<Vec<_>>(),
        vec![Some(3.0); 8],
        "every 24 hours of the window had the three players"
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    while scans().await == before {
        assert!(
            std::time::Instant::now() < deadline,
            "the window's day rows were not read through analytics_player_days_by_day_edges"
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
}

/// Each day row holds the last second of its player's day before, whatever order the days
/// arrive in and however many writers (both nodes in the two-node pass) add them at once:
/// days before a player's first (late events), later seconds of a day whose next day is
/// stored, and adjacent days of the same player in concurrent requests. A 24-hour window
/// from a second inside the day then counts what the events say.
#[tokio::test]
async fn day_rows_hold_the_day_befores_last_second_however_the_days_arrive() {
    let app = spawn_app().await;
    let token = app.new_user().await;
    let (game_id, keys) = game_with_keys(&app, &token).await;
    let mut dice = Dice(0x1a57_5ec0);
    let today = app.state.now().date_naive();
    let midnight = |days_ago: i64| playtrace::query::midnight(today - Duration::days(days_ago));
    let edge = Duration::hours(13) + Duration::minutes(7) + Duration::seconds(41);
    let players: Vec<String> = (0..8).map(|player| format!("walker-{player}")).collect();
    // Three waves: the recent days, then the days before them (late events), then seconds
    // on both sides of the window's edge on every day; each wave shuffled and sent two events
    // to a request, all at once.
    let mut waves: Vec<Vec<Sent>> = vec![Vec::new(), Vec::new(), Vec::new()];
    for player in &players {
        for days_ago in 1..=8 {
            if dice.roll(4) == 0 {
                continue;
            }
            let wave = if days_ago > 4 { 1 } else { 0 };
            let at = midnight(days_ago) + Duration::seconds(dice.roll(86_400) as i64);
            waves[wave].push(event(
                "production",
                "session_start",
                Some(player),
                at,
                json!({}),
            ));
            let near_edge = midnight(days_ago) + edge + Duration::seconds(dice.roll(7) as i64 - 3);
            waves[2].push(event(
                "production",
                "level_up",
                Some(player),
                near_edge,
                json!({}),
            ));
        }
    }
    for mut wave in waves {
        for i in (1..wave.len()).rev() {
            wave.swap(i, dice.roll(i as u64 + 1) as usize);
        }
        send_in(&app, &keys, wave, 2).await;
    }
    let wrong = app
        .state
        .db
        .query_all_raw(Statement::from_sql_and_values(
            app.state.db.get_database_backend(),
            "SELECT d.scope, d.actor_id, d.day, CAST(d.previous_last_second AS BIGINT) AS got, \
             CAST(COALESCE(o.last_second, -1) AS BIGINT) AS want FROM analytics_player_days d \
             LEFT JOIN analytics_player_days o ON o.game_id = d.game_id AND o.scope = d.scope \
             AND o.actor_id = d.actor_id AND o.day = d.day - 1 WHERE d.game_id = $1 \
             AND (d.previous_last_second IS NULL \
               OR d.previous_last_second <> COALESCE(o.last_second, -1))",
            [game_id.into()],
        ))
        .await
        .unwrap();
    let wrong: Vec<(String, String, i64, Option<i64>, i64)> = wrong
        .iter()
        .map(|row| {
            (
                row.try_get("", "scope").unwrap(),
                row.try_get("", "actor_id").unwrap(),
                row.try_get("", "day").unwrap(),
                row.try_get("", "got").unwrap(),
                row.try_get("", "want").unwrap(),
            )
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "rows without their day before's last second: {wrong:?}"
    );
    let stored = app
        .state
        .db
        .query_one_raw(Statement::from_sql_and_values(
            app.state.db.get_database_backend(),
            "SELECT CAST(count(*) AS BIGINT) AS n FROM analytics_player_days WHERE game_id = $1",
            [game_id.into()],
        ))
        .await
        .unwrap()
        .unwrap()
        .try_get::<i64>("", "n")
        .unwrap();
    assert!(stored > 60, "the players' days were stored ({stored} rows)");
    for start_days_ago in [8, 5] {
        let buckets = Buckets {
            start: midnight(start_days_ago) + edge,
            seconds: 86_400,
            count: 4,
        };
        for environment in [None, Some("production")] {
            let scope = Scope {
                game_id,
                environment: environment.map(str::to_string),
                event_name: None,
            };
            let now = app.state.now();
            let values = |points: Vec<Point>| points.iter().map(|p| p.value).collect::<Vec<_>>();
            let got = playtrace::analytics::series(
                &app.state.db,
                &scope,
                Metric::ActiveUsers,
                buckets,
                now,
            )
            .await
            .unwrap();
            let want = reference::series(&app.state.db, &scope, Metric::ActiveUsers, buckets, now)
                .await
                .unwrap();
            assert_eq!(
                values(got),
                values(want),
                "{environment:?}, from {}: aggregates, then events",
                buckets.start
            );
        }
    }
}
