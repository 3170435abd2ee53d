//! The two ways a funnel is read (`funnels::query::Strategy`) give the same counts: a scan of
//! every event of the steps, and per player its first event of each step through the
//! (game, name, player, time) index. Generated players with repeated, out-of-order and
//! out-of-range steps, anonymous sessions and both environments; every mode, conversion
//! windows, ranges and environment filters.
use crate::{
    funnels::{seed_events, Ev},
    helpers::spawn_app,
};
use chrono::Duration;
use playtrace::funnels::{
    query::{step_counts_with, FunnelQuery, Strategy},
    service::Mode,
};
use serde_json::json;
use uuid::Uuid;

#[tokio::test]
async fn reading_per_player_counts_exactly_what_scanning_the_steps_counts() {
    let app = spawn_app().await;
    let (_token, game_id, _key) = app.game_with_key().await;
    let now = app.state.now();
    let mut state: u64 = 0x0f0e_1234_5678_9abc;
    let mut roll = |sides: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % sides
    };
    let names = ["open", "signup", "level", "buy", "other"];
    let mut events = Vec::new();
    for player in 0..60 {
        let anonymous = player % 7 == 0;
        for _ in 0..roll(25) {
            // Up to 12 days back, so some steps fall before the narrower ranges below.
            let at = now - Duration::minutes(roll(12 * 24 * 60) as i64 + 1);
            events.push(Ev {
                name: names[roll(names.len() as u64) as usize].to_string(),
                player: (!anonymous).then(|| format!("p{player}")),
                session: format!("s{player}-{}", roll(3)),
                properties: json!({}),
                at,
                environment: Some(if roll(4) == 0 {
                    "development"
                } else {
                    "production"
                }),
            });
        }
    }
    seed_events(&app, &game_id, &events).await;

    let game_id: Uuid = game_id.parse().unwrap();
    let today = playtrace::query::midnight(now.date_naive());
    let funnels: [&[&str]; 3] = [
        &["open", "signup", "buy"],
        &["open", "level", "level", "buy"],
        &["signup", "open", "other", "level", "buy"],
    ];
    let ranges = [
        (today - Duration::days(29), today + Duration::days(1)),
        (today - Duration::days(5), today - Duration::days(1)),
    ];
    let mut compared = 0;
    let mut reached_the_end = 0;
    for steps in funnels {
        let steps: Vec<String> = steps.iter().map(|s| s.to_string()).collect();
        for (from, to) in ranges {
            for environment in [None, Some("production"), Some("development")] {
                for (mode, within_hours) in [
                    (Mode::Loose, None),
                    (Mode::Strict, None),
                    (Mode::Strict, Some(1)),
                    (Mode::Strict, Some(48)),
                ] {
                    let query = FunnelQuery {
                        game_id,
                        environment,
                        steps: &steps,
                        mode,
                        within_hours,
                        from,
                        to,
                    };
                    let scanned = step_counts_with(&app.state.db, &query, Strategy::Scan)
                        .await
                        .unwrap();
                    let probed = step_counts_with(&app.state.db, &query, Strategy::PerPlayer)
                        .await
                        .unwrap();
                    assert_eq!(
                        probed, scanned,
                        "{steps:?} {mode:?} within {within_hours:?} {environment:?} {from}..{to}"
                    );
                    compared += 1;
                    reached_the_end += usize::from(*scanned.last().unwrap() > 0);
                }
            }
        }
    }
    assert_eq!(compared, 72);
    // The data reach every step often enough for the comparison to mean something.
    assert!(
        reached_the_end > 20,
        "{reached_the_end} funnels had a last step"
    );
}
