//! Folding closed days' writer shards into one row (`playtrace::aggregates::fold`): every read
//! answers what the raw events say before and after a fold, with late events arriving for
//! folded days, and with events stored concurrently while folds run again and again.
use super::*;
use crate::progression_economy::event as standard_event;
use crate::progression_economy_generated::assert_reports_equal_the_events;
use std::sync::atomic::{AtomicBool, Ordering};

/// Folds every day up to now (and the few minutes ahead an event may be), as the worker does
/// with closed days.
async fn fold_everything(app: &TestApp) -> u64 {
    playtrace::aggregates::fold::fold_before(
        &app.state.db,
        app.state.now() + Duration::days(2),
        None,
    )
    .await
    .unwrap()
    .rows
}

/// Progression and resource events of a few steps and currencies over the last `days` days.
fn standard_events(app: &TestApp, dice: &mut Dice, count: usize, days: u64) -> Vec<Sent> {
    (0..count)
        .map(|_| {
            let environment = ["development", "production"][dice.roll(2) as usize];
            let ago = dice.roll(days) as i64;
            let mut body = if dice.roll(2) == 0 {
                let status = ["start", "complete", "fail"][dice.roll(3) as usize];
                let mut properties =
                    json!({ "status": status, "level1": format!("w{}", dice.roll(2)) });
                if dice.roll(2) == 0 {
                    properties["level2"] = json!(format!("l{}", dice.roll(3)));
                }
                if status == "complete" {
                    properties["attempt"] = json!(1 + dice.roll(4));
                }
                standard_event(app, "progression", ago, properties)
            } else {
                let flow = ["source", "sink"][dice.roll(2) as usize];
                let item_type = ["shop", "quest"][dice.roll(2) as usize];
                let properties = json!({
                    "flow": flow, "currency": "gold", "amount": 5 + dice.roll(20),
                    "item_type": item_type,
                });
                standard_event(app, "resource", ago, properties)
            };
            body["player_id"] = json!(format!("player-{}", dice.roll(14)));
            Sent { environment, body }
        })
        .collect()
}

async fn assert_everything_equals_the_events(app: &TestApp, token: &str, game_id: Uuid) {
    assert_reads_match_the_events(app, token, game_id, &ALL_METRICS).await;
    let today = app.state.now().date_naive();
    assert_reports_equal_the_events(app, token, game_id, (today - Duration::days(40), today)).await;
    assert_reports_equal_the_events(app, token, game_id, (today - Duration::days(2), today)).await;
}

#[tokio::test]
async fn after_a_fold_every_read_equals_the_raw_events_and_late_events_still_count() {
    let app = spawn_app().await;
    let token = app.new_user().await;
    let (game_id, keys) = game_with_keys(&app, &token).await;
    let mut dice = Dice(0xf01d_0001);
    let (first, late) = generate(&mut dice, app.state.now());
    send(&app, &keys, first).await;
    send(&app, &keys, standard_events(&app, &mut dice, 150, 6)).await;
    assert_everything_equals_the_events(&app, &token, game_id).await;

    assert!(fold_everything(&app).await > 0);
    assert_everything_equals_the_events(&app, &token, game_id).await;
    assert_eq!(fold_everything(&app).await, 0, "nothing left to fold");

    // Late events of folded days (some move a player's first day, so a folded cohort loses a
    // user) add writer shard rows again, which the next fold folds.
    send(&app, &keys, late).await;
    send(&app, &keys, standard_events(&app, &mut dice, 60, 6)).await;
    assert_everything_equals_the_events(&app, &token, game_id).await;
    assert!(fold_everything(&app).await > 0);
    assert_everything_equals_the_events(&app, &token, game_id).await;
}

#[tokio::test]
async fn folds_running_while_events_arrive_lose_and_double_nothing() {
    let app = spawn_app().await;
    let token = app.new_user().await;
    let (game_id, keys) = game_with_keys(&app, &token).await;
    let mut dice = Dice(0xf01d_0002);
    // Rounds of the same players and steps, so the writers keep adding to the rows the folds
    // take.
    let mut rounds = Vec::new();
    for _ in 0..4 {
        let (first, late) = generate(&mut dice, app.state.now());
        let mut round = first;
        round.extend(late);
        round.extend(standard_events(&app, &mut dice, 200, 3));
        rounds.push(round);
    }
    send(&app, &keys, rounds.pop().unwrap()).await;

    let sending = AtomicBool::new(true);
    let folds = async {
        let mut folds = 0;
        let mut folded = 0;
        while sending.load(Ordering::Acquire) || folds < 2 {
            folded += fold_everything(&app).await;
            folds += 1;
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        (folds, folded)
    };
    let sends = async {
        let rounds = rounds.into_iter().map(|round| send(&app, &keys, round));
        futures_util::future::join_all(rounds).await;
        sending.store(false, Ordering::Release);
    };
    let ((folds, folded), ()) = tokio::join!(folds, sends);
    assert!(folds >= 2 && folded > 0, "{folds} folds, {folded} rows");

    // What the last folds left in the writers' shards, and then all of it folded.
    assert_everything_equals_the_events(&app, &token, game_id).await;
    fold_everything(&app).await;
    assert_everything_equals_the_events(&app, &token, game_id).await;
}

/// The number the statement `sql` answers as `n`.
async fn number(app: &TestApp, sql: &str, values: Vec<sea_orm::Value>) -> i64 {
    let row = app
        .state
        .db
        .query_one_raw(Statement::from_sql_and_values(
            app.state.db.get_database_backend(),
            sql,
            values,
        ))
        .await
        .unwrap()
        .unwrap();
    row.try_get::<i64>("", "n").unwrap()
}

/// The writers' shard rows of a game's progression days before `day` (shard -1 holds the
/// folded ones).
async fn shard_rows_before(app: &TestApp, game_id: Uuid, day: i64) -> i64 {
    let sql = "SELECT CAST(COUNT(*) AS BIGINT) AS n FROM analytics_progression_days \
               WHERE game_id = $1 AND shard <> -1 AND day < $2";
    number(app, sql, vec![game_id.into(), day.into()]).await
}

#[tokio::test]
async fn playtrace_aggregates_fold_folds_the_closed_days_and_leaves_today() {
    let app = spawn_app().await;
    let token = app.new_user().await;
    let (game_id, keys) = game_with_keys(&app, &token).await;
    let mut dice = Dice(0xf01d_0003);
    send(&app, &keys, standard_events(&app, &mut dice, 120, 6)).await;
    let today = playtrace::aggregates::day_of(app.state.now());
    assert!(shard_rows_before(&app, game_id, today - 1).await > 0);

    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_playtrace"))
        .args(["aggregates", "fold", "--database-url"])
        .arg(&app.backend.database_url)
        .env("RUST_LOG", "warn")
        .output()
        .await
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );

    // Days that ended more than 3 hours ago are folded: yesterday's at the latest.
    assert_eq!(shard_rows_before(&app, game_id, today - 1).await, 0);
    assert!(
        shard_rows_before(&app, game_id, today + 1).await > 0,
        "today's rows stay"
    );
    let today = app.state.now().date_naive();
    assert_reports_equal_the_events(&app, &token, game_id, (today - Duration::days(6), today))
        .await;
}

/// The pages of the event counts on PostgreSQL.
async fn event_count_pages(app: &TestApp) -> i64 {
    let sql = "SELECT CAST(pg_relation_size('analytics_event_counts') / 8192 AS BIGINT) AS n";
    number(app, sql, Vec::new()).await
}

/// Late events keep adding writer shard rows to folded days, and each fold deletes them again.
/// On PostgreSQL a fold vacuums what it deleted, so the next shard rows take the deleted ones'
/// space: the table stays the size of its keys however many rounds of late events and folds
/// go by (autovacuum is off on the CI machine's PostgreSQL, and may be busy elsewhere on a
/// studio's; without the vacuum, every round here added its rows' pages and the hour-count
/// reads, which scan the table's rows of their range, slowed as it grew).
#[tokio::test]
async fn rounds_of_late_events_and_folds_leave_the_event_counts_their_size_on_postgresql() {
    if !services_backend() {
        return; // SQLite reuses the pages of deleted rows itself.
    }
    let app = spawn_app().await;
    let token = app.new_user().await;
    let (game_id, keys) = game_with_keys(&app, &token).await;
    let at = app.state.now() - Duration::days(3);
    let late = || -> Vec<Sent> {
        (0..300)
            .map(|n| {
                let name = format!("late_{n:03}_with_a_name_long_enough_to_fill_pages");
                event("production", &name, Some("ana"), at, json!({}))
            })
            .collect()
    };
    let mut pages = Vec::new();
    for _ in 0..10 {
        send(&app, &keys, late()).await;
        assert!(fold_everything(&app).await >= 300);
        pages.push(event_count_pages(&app).await);
    }
    assert!(
        pages[9] <= pages[2] + 2,
        "the event counts grew with each round of late events and folds: {pages:?} pages"
    );
    // And the counts are still every round's events.
    let from = (at - Duration::days(1)).date_naive();
    let counts = app
        .dashboard(
            Method::GET,
            &format!("/v1/games/{game_id}/events/counts?from={from}"),
            &token,
        )
        .expect_status(200)
        .await;
    assert_eq!(counts["total"], 3_000, "{counts}");
    let late_000 = counts["counts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|count| count["event_name"] == "late_000_with_a_name_long_enough_to_fill_pages")
        .unwrap_or_else(|| panic!("late_000 counted: {counts}"));
    assert_eq!(late_000["count"], 10, "{counts}");
}
