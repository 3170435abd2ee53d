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

/// Hour rows kept before their minutes were (migration 95) have none: a `dau_drop` window
/// whose edges split their hours reads those parts from the events, and answers the same.
#[tokio::test]
async fn dau_drop_over_hours_counted_before_minutes_were_kept_equals_the_raw_events() {
    let app = spawn_app().await;
    let token = app.new_user().await;
    let mut dice = Dice(0xd0_0d1e);
    let game_id = game_with_events(&app, &token, &mut dice).await;
    app.state
        .db
        .execute_raw(sea_orm::Statement::from_sql_and_values(
            app.state.db.get_database_backend(),
            "UPDATE analytics_player_hours SET minutes = NULL WHERE game_id = $1",
            [game_id.into()],
        ))
        .await
        .unwrap();
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
