//! Black-box tests of funnels: definitions in the dashboard, reports on the game side.
mod definitions;
mod reports;

use crate::helpers::{spawn_app, Fetch, TestApp};
use chrono::{DateTime, Duration, Utc};
use entity::{api_keys, events};
use reqwest::Method;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, TransactionTrait};
use serde_json::{json, Value};
use uuid::Uuid;

/// One event to store, as a game would have sent it at `at` (`client_timestamp`).
pub struct Ev {
    pub name: String,
    pub player: Option<String>,
    pub session: String,
    pub properties: Value,
    pub at: DateTime<Utc>,
    /// The key's environment when `None`.
    pub environment: Option<&'static str>,
}

/// An event by `player` (session `s-{player}`).
pub fn ev(name: &str, player: &str, at: DateTime<Utc>) -> Ev {
    Ev {
        name: name.into(),
        player: Some(player.into()),
        session: format!("s-{player}"),
        properties: json!({}),
        at,
        environment: None,
    }
}

impl Ev {
    pub fn props(mut self, properties: Value) -> Self {
        self.properties = properties;
        self
    }

    /// The same event without a player id (the user is then the session).
    pub fn anonymous(mut self) -> Self {
        self.player = None;
        self
    }
}

/// Stores events for the game exactly as ingestion does (the one place tests create events):
/// `actor_id` is the player, else the session; `revenue_amount` a purchase's numeric
/// `properties.amount`; `log_level` a log event's `properties.level`.
pub async fn seed_events(app: &TestApp, game_id: &str, list: &[Ev]) {
    let game_id: Uuid = game_id.parse().unwrap();
    let key = api_keys::Entity::find()
        .filter(api_keys::Column::GameId.eq(game_id))
        .one(&app.state.db)
        .await
        .unwrap()
        .expect("the game has an API key");
    let rows: Vec<events::Model> = list
        .iter()
        .map(|e| events::Model {
            id: Uuid::now_v7(),
            game_id,
            api_key_id: key.id,
            environment: e
                .environment
                .map_or_else(|| key.environment.clone(), str::to_string),
            event_name: e.name.clone(),
            event_id: None,
            player_id: e.player.clone(),
            session_id: e.session.clone(),
            actor_id: e.player.clone().unwrap_or_else(|| e.session.clone()),
            properties: e.properties.clone(),
            revenue_amount: (e.name == "purchase")
                .then(|| e.properties["amount"].as_f64())
                .flatten(),
            log_level: (e.name == "log")
                .then(|| e.properties["level"].as_str().map(String::from))
                .flatten(),
            occurred_at: e.at,
            received_at: app.state.now(),
        })
        .collect();
    // Stored with their aggregates in one transaction, as the event writer does.
    let txn = app.state.db.begin().await.unwrap();
    for chunk in rows.chunks(500) {
        events::Entity::insert_many(chunk.iter().cloned().map(events::ActiveModel::from))
            .exec_without_returning(&txn)
            .await
            .unwrap();
        let stored: Vec<&events::Model> = chunk.iter().collect();
        playtrace::aggregates::ingest::add_game(
            &mut playtrace::aggregates::Tx::SeaOrm(&txn),
            game_id,
            &stored,
            0,
        )
        .await
        .unwrap();
    }
    txn.commit().await.unwrap();
}

async fn create_funnel(app: &TestApp, token: &str, game_id: &str, body: Value) -> Value {
    app.dashboard(Method::POST, &format!("/v1/games/{game_id}/funnels"), token)
        .json(&body)
        .expect_status(201)
        .await
}

async fn report(app: &TestApp, key: &str, funnel_id: &str, query: &str) -> Value {
    app.game(Method::GET, &format!("/v1/funnels/{funnel_id}{query}"), key)
        .expect_status(200)
        .await
}

fn counts(report: &Value) -> Vec<u64> {
    report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["count"].as_u64().unwrap())
        .collect()
}

/// Five users walking open -> signup -> purchase in different ways, three days ago.
async fn seed_paths(app: &TestApp, game_id: &str) -> DateTime<Utc> {
    let t = app.state.now() - Duration::days(3);
    let m = |minutes: i64| t + Duration::minutes(minutes);
    seed_events(
        app,
        game_id,
        &[
            // in order
            ev("open", "p1", m(0)),
            ev("signup", "p1", m(1)),
            ev("purchase", "p1", m(2)),
            // all three, signup before open
            ev("signup", "p2", m(0)),
            ev("open", "p2", m(1)),
            ev("purchase", "p2", m(2)),
            // repeats count once
            ev("open", "p3", m(0)),
            ev("open", "p3", m(1)),
            ev("signup", "p3", m(2)),
            ev("signup", "p3", m(3)),
            // never opened
            ev("purchase", "p4", m(0)),
            // no player id: the session is the user
            ev("open", "anon", m(0)).anonymous(),
            ev("signup", "anon", m(1)).anonymous(),
            // an event that is no step
            ev("level_up", "p1", m(5)),
        ],
    )
    .await;
    t
}
