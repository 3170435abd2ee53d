//! Progression and economy on generated data (valid and invalid events, two environments,
//! retried event ids, several days): each report equals what the stored events say, before and
//! after a rebuild of the aggregates and after a fold of their writer shards.
use crate::helpers::{spawn_app, Fetch, TestApp};
use crate::progression_economy::{event, report};
use chrono::{Duration, NaiveDate};
use playtrace::events::standard::{Progression, Resource, Status};
use reqwest::Method;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::{json, Value};
use std::collections::BTreeMap;

struct Dice(u64);

impl Dice {
    fn roll(&mut self, sides: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % sides
    }
}

fn pick<'a>(dice: &mut Dice, words: &[&'a str]) -> &'a str {
    words[dice.roll(words.len() as u64) as usize]
}

/// The two reports computed from the stored events themselves.
async fn from_the_events(
    app: &TestApp,
    game_id: uuid::Uuid,
    from: NaiveDate,
    to: NaiveDate,
) -> (Value, Value) {
    let stored = entity::events::Entity::find()
        .filter(entity::events::Column::GameId.eq(game_id))
        .all(&app.state.db)
        .await
        .unwrap();
    let mut steps: BTreeMap<Vec<String>, [u64; 5]> = BTreeMap::new();
    let mut money: BTreeMap<(String, &str, String), (f64, u64)> = BTreeMap::new();
    for row in stored
        .iter()
        .filter(|row| (from..=to).contains(&row.occurred_at.date_naive()))
    {
        if let Some(progression) = Progression::of(&row.event_name, &row.properties) {
            let path = progression
                .levels
                .iter()
                .filter(|l| !l.is_empty())
                .map(|l| l.to_string())
                .collect();
            let counts = steps.entry(path).or_default();
            match progression.status {
                Status::Start => counts[0] += 1,
                Status::Complete => counts[1] += 1,
                Status::Fail => counts[2] += 1,
            }
            if let (Status::Complete, Some(attempt)) = (progression.status, progression.attempt) {
                counts[3] += 1;
                counts[4] += attempt as u64;
            }
        }
        if let Some(resource) = Resource::of(&row.event_name, &row.properties) {
            let key = (
                resource.currency.to_string(),
                resource.flow.as_str(),
                resource.item_type.to_string(),
            );
            let sums = money.entry(key).or_default();
            sums.0 += resource.amount;
            sums.1 += 1;
        }
    }
    let steps: BTreeMap<Vec<String>, Value> = steps
        .into_iter()
        .map(|(path, [s, c, f, n, t])| (path, json!([s, c, f, n, t])))
        .collect();
    (
        json!(steps.into_iter().collect::<Vec<_>>()),
        json!(money
            .into_iter()
            .map(|((c, f, i), (a, n))| json!([c, f, i, (a * 1e6).round(), n]))
            .collect::<Vec<_>>()),
    )
}

/// The two reports as the API answers them, in the shape of `from_the_events`.
async fn from_the_api(
    app: &TestApp,
    token: &str,
    game_id: uuid::Uuid,
    query: &str,
) -> (Value, Value) {
    let game_id = game_id.to_string();
    let progression = report(app, token, &game_id, "progression", query).await;
    let mut steps: Vec<(Vec<String>, Value)> = progression["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|step| {
            let (completes, average) = (
                step["completes"].as_u64().unwrap(),
                step["average_attempts"].as_f64(),
            );
            let path: Vec<String> = serde_json::from_value(step["levels"].clone()).unwrap();
            (
                path,
                json!([
                    step["starts"],
                    completes,
                    step["fails"],
                    average.is_some(),
                    average.map(|a| (a * 100.0).round())
                ]),
            )
        })
        .collect();
    steps.sort_by(|a, b| a.0.cmp(&b.0));
    let economy = report(app, token, &game_id, "economy", query).await;
    let mut money = Vec::new();
    for currency in economy["currencies"].as_array().unwrap() {
        for (flow, items) in [
            ("source", &currency["sources"]),
            ("sink", &currency["sinks"]),
        ] {
            for item in items.as_array().unwrap() {
                let item_type = item["item_type"].as_str().unwrap_or("");
                money.push(json!([
                    currency["currency"],
                    flow,
                    item_type,
                    (item["amount"].as_f64().unwrap() * 1e6).round(),
                    item["events"]
                ]));
            }
        }
    }
    money.sort_by_key(|row| row.to_string());
    (json!(steps), json!(money))
}

#[tokio::test]
async fn the_reports_equal_the_stored_events_on_generated_data_and_after_a_rebuild() {
    let app = spawn_app().await;
    let (token, game_id, development) = app.game_with_key().await;
    let production = app.create_key(&token, &game_id, "production").await;
    let mut dice = Dice(0x5eed_2626);
    let mut bodies: [Vec<Value>; 2] = [Vec::new(), Vec::new()];
    for index in 0..400 {
        let properties = if dice.roll(2) == 0 {
            let mut properties = json!({ "status": pick(&mut dice, &["start", "complete", "fail", "start", "won"]) });
            for level in 1..=1 + dice.roll(3) {
                properties[format!("level{level}")] = json!(format!("l{}", dice.roll(3)));
            }
            if dice.roll(2) == 0 {
                properties["attempt"] = json!(dice.roll(5));
            }
            ("progression", properties)
        } else {
            let amount =
                dice.roll(1000) as f64 / 8.0 - if dice.roll(10) == 0 { 200.0 } else { 0.0 };
            let mut properties = json!({
                "flow": pick(&mut dice, &["source", "sink", "source", "sink", "trade"]),
                "currency": pick(&mut dice, &["gold", "gems"]), "amount": amount,
            });
            if dice.roll(3) > 0 {
                properties["item_type"] = json!(pick(&mut dice, &["shop", "reward", "quest"]));
            }
            ("resource", properties)
        };
        let mut body = event(&app, properties.0, dice.roll(6) as i64, properties.1);
        body["player_id"] = json!(format!("p{}", dice.roll(20)));
        body["event_id"] = json!(format!("e{index}"));
        bodies[dice.roll(2) as usize].push(body);
    }
    let mut requests = Vec::new();
    for (key, events) in [(&development, &bodies[0]), (&production, &bodies[1])] {
        // Sent twice: a retried event_id is counted once.
        for batch in events.chunks(41).chain(events.chunks(97).take(1)) {
            requests.push(
                app.game(Method::POST, "/v1/track", key)
                    .json(&json!(batch))
                    .expect_status(202),
            );
        }
    }
    futures_util::future::join_all(requests).await;

    let today = app.state.now().date_naive();
    let game: uuid::Uuid = game_id.parse().unwrap();
    let check = |from_days: i64, to_days: i64| {
        let range = (
            today - Duration::days(from_days),
            today - Duration::days(to_days),
        );
        assert_reports_equal_the_events(&app, &token, game, range)
    };
    check(5, 0).await;
    check(3, 2).await;
    // Every day's writer shards folded into one row: the same answers.
    let fold = || {
        playtrace::aggregates::fold::fold_before(
            &app.state.db,
            app.state.now() + Duration::days(2),
            None,
        )
    };
    assert!(fold().await.unwrap().rows > 0);
    check(5, 0).await;
    check(3, 2).await;

    // A rebuild clears the folded rows too, and its counts fold again.
    playtrace::aggregates::backfill::rebuild(&app.state.db, Some(vec![game]))
        .await
        .unwrap();
    playtrace::aggregates::backfill::run_to_end(&app.state.db, std::time::Duration::ZERO)
        .await
        .unwrap();
    check(5, 0).await;
    fold().await.unwrap();
    check(5, 0).await;
}

/// Asserts that the progression and economy reports of the days `from` to `to` equal what the
/// stored events say.
pub(crate) async fn assert_reports_equal_the_events(
    app: &TestApp,
    token: &str,
    game: uuid::Uuid,
    (from, to): (NaiveDate, NaiveDate),
) {
    let query = format!("from={from}&to={to}");
    let (steps, money) = from_the_events(app, game, from, to).await;
    let (api_steps, api_money) = from_the_api(app, token, game, &query).await;
    // The reference's attempts as the API shows them: whether any, and the average.
    let steps: Vec<Value> = steps
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            let counts = &row[1];
            let (n, t) = (counts[3].as_u64().unwrap(), counts[4].as_u64().unwrap());
            let average = (n > 0).then(|| ((t as f64 / n as f64) * 100.0).round());
            json!([row[0], [counts[0], counts[1], counts[2], n > 0, average]])
        })
        .collect();
    assert_eq!(json!(steps), api_steps, "progression {query}");
    let mut money: Vec<Value> = money.as_array().unwrap().clone();
    money.sort_by_key(|row| row.to_string());
    assert_eq!(json!(money), api_money, "economy {query}");
    assert!(!money.is_empty() && !steps.is_empty());
}

/// The `sessions` metric of the last 7 days, as the dashboard reads it.
async fn sessions(app: &TestApp, token: &str, game_id: &str) -> Value {
    let series = app
        .dashboard(
            Method::GET,
            &format!(
                "/v1/games/{game_id}/metrics?metric=sessions&from={}",
                app.state.now().date_naive() - Duration::days(6)
            ),
            token,
        )
        .expect_status(200)
        .await;
    series["points"].clone()
}

#[tokio::test]
async fn the_migration_counts_the_stored_progression_and_resource_events_again() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let (other_game, other_key) = {
        let game = app.create_game(&token).await;
        let key = app.create_key(&token, &game, "development").await;
        (game, key)
    };
    app.game(Method::POST, "/v1/track", &key)
        .json(&json!([
            event(
                &app,
                "progression",
                2,
                json!({ "status": "complete", "level1": "w1", "attempt": 3 })
            ),
            event(
                &app,
                "resource",
                2,
                json!({ "flow": "sink", "currency": "gold", "amount": 7 })
            ),
            event(&app, "session_start", 1, json!({})),
        ]))
        .expect_status(202)
        .await;
    app.game(Method::POST, "/v1/track", &other_key)
        .json(&json!([event(&app, "crash", 1, json!({}))]))
        .expect_status(202)
        .await;
    let read = |game: String| {
        let (app, token) = (&app, &token);
        async move {
            let progression = report(app, token, &game, "progression", "").await;
            let economy = report(app, token, &game, "economy", "").await;
            (
                progression["steps"].clone(),
                economy["currencies"].clone(),
                sessions(app, token, &game).await,
            )
        }
    };
    let before = read(game_id.clone()).await;
    let other_before = read(other_game.clone()).await;
    assert_eq!(before.0.as_array().unwrap().len(), 1);

    // As when upgrading: the migration runs on a store whose events were counted without it.
    let db = &app.state.db;
    use migration::MigratorTrait;
    // Roll back to just before the progression migration (later ones go down and up with it).
    let steps = migration::Migrator::migrations()
        .iter()
        .rev()
        .position(|m| m.name().contains("_000040_"))
        .expect("the progression migration is listed") as u32
        + 1;
    migration::Migrator::down(db, Some(steps)).await.unwrap();
    migration::Migrator::up(db, None).await.unwrap();
    let queued = |game: &str| playtrace::aggregates::backfill::is_queued(db, game.parse().unwrap());
    assert!(
        queued(&game_id).await.unwrap(),
        "a game with progression or resource events is counted again"
    );
    assert!(
        !queued(&other_game).await.unwrap(),
        "a game without them is left alone"
    );
    assert_eq!(
        read(game_id.clone()).await.0,
        json!([]),
        "cleared until the backfill has counted it"
    );

    playtrace::aggregates::backfill::run_to_end(db, std::time::Duration::ZERO)
        .await
        .unwrap();
    assert_eq!(
        read(game_id).await,
        before,
        "every aggregate counted once again, sessions included"
    );
    assert_eq!(read(other_game).await, other_before);
}
