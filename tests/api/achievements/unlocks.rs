//! The game side: listing and unlocking, unlock counts and rarity, and player totals after a
//! definition is deleted.
use super::*;

#[tokio::test]
async fn listing_without_a_player_masks_hidden_achievements_and_sums_points() {
    let app = spawn_app().await;
    let (_, _, key) = game_with_achievements(&app).await;

    let body = list(&app, &key, "").await;
    let achievements = body["achievements"].as_array().unwrap();
    assert_eq!(achievements.len(), 3);
    assert_eq!(body["total_points"], 85);
    assert_eq!(body["unlocked_points"], 0);
    let secret = achievement(&body, "secret_ending");
    assert_eq!(
        (secret["name"].as_str(), secret["description"].as_str()),
        (Some("???"), Some("???"))
    );
    assert_eq!(secret["points"], 50);
    let explorer = achievement(&body, "explorer");
    assert_eq!(explorer["name"], "Explorer");
    assert_eq!(explorer["icon_url"], "https://cdn.example.com/explorer.png");
    for achievement in achievements {
        assert!(
            achievement.get("unlocked").is_none(),
            "no per-player fields without player_id"
        );
        assert!(achievement.get("unlocked_at").is_none());
    }
}

#[tokio::test]
async fn a_player_sees_their_unlocks_and_hidden_ones_once_unlocked() {
    let app = spawn_app().await;
    let (_, _, key) = game_with_achievements(&app).await;

    let (status, first) = unlock(&app, &key, "first_blood", "p1").await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(first["success"], true);
    assert_eq!(first["already_unlocked"], false);
    assert_eq!(first["total_points"], 10);
    assert_eq!(
        first["achievement"],
        json!({ "key": "first_blood", "name": "First Blood", "description": "Win a fight", "points": 10 })
    );

    let before = list(&app, &key, "?player_id=p1").await;
    let secret = achievement(&before, "secret_ending");
    assert_eq!(secret["name"], "???");
    assert_eq!(secret["unlocked"], false);
    assert!(
        secret["unlocked_at"].is_null() && secret.get("unlocked_at").is_some(),
        "unlocked_at is null while locked"
    );

    let (_, hidden) = unlock(&app, &key, "secret_ending", "p1").await;
    assert_eq!(
        hidden["achievement"]["name"], "True Ending",
        "the unlock answer shows the real text"
    );
    assert_eq!(hidden["total_points"], 60);

    let after = list(&app, &key, "?player_id=p1").await;
    assert_eq!(after["unlocked_points"], 60);
    assert_eq!(after["total_points"], 85);
    let by_key = |k: &str| achievement(&after, k);
    assert_eq!(by_key("secret_ending")["name"], "True Ending");
    assert_eq!(
        by_key("secret_ending")["description"],
        "Find the hidden door"
    );
    assert_eq!(by_key("secret_ending")["unlocked"], true);
    assert!(by_key("first_blood")["unlocked_at"]
        .as_str()
        .unwrap()
        .ends_with('Z'));
    assert_eq!(by_key("explorer")["unlocked"], false);

    let other = list(&app, &key, "?player_id=p2").await;
    assert_eq!(other["unlocked_points"], 0, "unlocks are per player");
    let secret = achievement(&other, "secret_ending");
    assert_eq!(
        secret["name"], "???",
        "still hidden for a player who has not unlocked it"
    );
}

#[tokio::test]
async fn unlocking_again_reports_already_unlocked_and_changes_nothing() {
    let app = spawn_app().await;
    let (token, game_id, key) = game_with_achievements(&app).await;
    assert_eq!(
        unlock(&app, &key, "explorer", "p1").await.1["already_unlocked"],
        false
    );
    let unlocked_at = |body: Value| achievement(&body, "explorer")["unlocked_at"].clone();
    let first_at = unlocked_at(list(&app, &key, "?player_id=p1").await);
    assert!(first_at.is_string());
    app.clock.advance(chrono::Duration::minutes(5));

    let (status, again) = unlock(&app, &key, "explorer", "p1").await;
    assert_eq!(status, 200);
    assert_eq!(again["success"], true);
    assert_eq!(again["already_unlocked"], true);
    assert_eq!(again["total_points"], 25);
    assert_eq!(
        unlocked_at(list(&app, &key, "?player_id=p1").await),
        first_at,
        "first unlock time kept"
    );
    let (_, def) = app
        .dashboard_call(Method::GET, &format!("{}/explorer", defs(&game_id)), &token)
        .await;
    assert_eq!(def["unlock_count"], 1);
}

#[tokio::test]
async fn bad_unlock_requests_are_refused() {
    let app = spawn_app().await;
    let (token, _, key) = game_with_achievements(&app).await;
    let cases = [
        (json!({ "player_id": "p1" }), 400, "missing achievement_key"),
        (
            json!({ "achievement_key": "explorer" }),
            400,
            "missing player_id",
        ),
        (json!({}), 400, "empty body"),
        (
            json!({ "achievement_key": "explorer", "player_id": "" }),
            400,
            "empty player_id",
        ),
        (
            json!({ "achievement_key": "explorer", "player_id": "p".repeat(129) }),
            400,
            "player_id too long",
        ),
        (
            json!({ "achievement_key": "explorer", "player_id": ["p1"] }),
            400,
            "player_id not a string",
        ),
        (
            json!({ "achievement_key": "no_such_thing", "player_id": "p1" }),
            404,
            "unknown key",
        ),
    ];
    for (body, expected, case) in cases {
        let (status, error) = app
            .game_json(Method::POST, "/v1/achievements/unlock", &key, body)
            .await;
        assert_eq!(status, expected, "{case}: {error}");
        assert!(error["error"].is_string(), "{case}");
    }

    // Another game's achievement is unknown to this game's key.
    let other_game = app.create_game(&token).await;
    let other_key = app.create_key(&token, &other_game, "development").await;
    assert_eq!(unlock(&app, &other_key, "explorer", "p1").await.0, 404);
    assert_eq!(
        list(&app, &other_key, "").await["achievements"]
            .as_array()
            .unwrap()
            .len(),
        0
    );

    app.request(Method::POST, "/v1/achievements/unlock")
        .json(&json!({}))
        .expect_status(401)
        .await;
}

#[tokio::test]
async fn concurrent_unlocks_of_one_pair_unlock_exactly_once() {
    let app = spawn_app().await;
    let (token, game_id, key) = game_with_achievements(&app).await;
    let requests = (0..16).map(|_| unlock(&app, &key, "secret_ending", "racer"));
    let answers = futures_util::future::join_all(requests).await;
    let fresh = answers
        .iter()
        .filter(|(status, body)| *status == 200 && body["already_unlocked"] == false)
        .count();
    let repeats = answers
        .iter()
        .filter(|(status, body)| *status == 200 && body["already_unlocked"] == true)
        .count();
    assert_eq!((fresh, repeats), (1, 15), "{answers:?}");
    assert!(answers.iter().all(|(_, body)| body["total_points"] == 50));
    let (_, def) = app
        .dashboard_call(
            Method::GET,
            &format!("{}/secret_ending", defs(&game_id)),
            &token,
        )
        .await;
    assert_eq!(def["unlock_count"], 1);
}

#[tokio::test]
async fn unlock_counts_and_rarity_cover_the_games_players() {
    let app = spawn_app().await;
    let (token, game_id, key) = game_with_achievements(&app).await;
    // Four players have played (sent events); two of them unlock `first_blood`, one `explorer`.
    insert_events(&app, &game_id, &["p1", "p2", "p3", "p4"]).await;
    unlock(&app, &key, "first_blood", "p1").await;
    unlock(&app, &key, "first_blood", "p2").await;
    unlock(&app, &key, "explorer", "p1").await;

    let body = list(&app, &key, "").await;
    let by_key = |k: &str| achievement(&body, k);
    assert_eq!(by_key("first_blood")["unlock_count"], 2);
    assert_eq!(by_key("first_blood")["rarity"], 50.0);
    assert_eq!(by_key("explorer")["rarity"], 25.0);
    assert_eq!(by_key("secret_ending")["unlock_count"], 0);
    assert_eq!(by_key("secret_ending")["rarity"], 0.0);

    // A player who unlocks without having sent an event still counts as a player once the
    // per-node count is refreshed.
    unlock(&app, &key, "explorer", "newcomer").await;
    app.clock.advance(chrono::Duration::seconds(61));
    let (_, defs_body) = app
        .dashboard_call(Method::GET, &defs(&game_id), &token)
        .await;
    let explorer = achievement(&defs_body, "explorer");
    assert_eq!(explorer["unlock_count"], 2);
    assert_eq!(explorer["rarity"], 40.0, "2 of 5 players");
}

#[tokio::test]
async fn deleting_a_definition_removes_it_from_player_totals() {
    let app = spawn_app().await;
    let (token, game_id, key) = game_with_achievements(&app).await;
    unlock(&app, &key, "first_blood", "p1").await;
    unlock(&app, &key, "explorer", "p1").await;
    app.dashboard(
        Method::DELETE,
        &format!("{}/explorer", defs(&game_id)),
        &token,
    )
    .expect_status(204)
    .await;
    let body = list(&app, &key, "?player_id=p1").await;
    assert_eq!(body["unlocked_points"], 10);
    assert_eq!(body["total_points"], 60);
    assert_eq!(
        unlock(&app, &key, "first_blood", "p1").await.1["total_points"],
        10
    );
}

/// Puts one event per player straight into the events table (the events feature owns the
/// ingest route); rarity counts the distinct `actor_id`s there.
async fn insert_events(app: &TestApp, game_id: &str, players: &[&str]) {
    use sea_orm::{ActiveValue::Set, EntityTrait};
    let game_id = uuid::Uuid::parse_str(game_id).unwrap();
    let api_key_id = entity::api_keys::Entity::find()
        .all(&app.state.db)
        .await
        .unwrap()
        .into_iter()
        .find(|k| k.game_id == game_id)
        .unwrap()
        .id;
    for player in players {
        for _ in 0..2 {
            entity::events::Entity::insert(entity::events::ActiveModel {
                id: Set(uuid::Uuid::now_v7()),
                game_id: Set(game_id),
                api_key_id: Set(api_key_id),
                environment: Set("development".into()),
                event_name: Set("level_start".into()),
                event_id: Set(None),
                player_id: Set(Some(player.to_string())),
                session_id: Set(format!("s-{player}")),
                actor_id: Set(player.to_string()),
                properties: Set(json!({})),
                revenue_amount: Set(None),
                log_level: Set(None),
                occurred_at: Set(app.state.now()),
                received_at: Set(app.state.now()),
            })
            .exec_without_returning(&app.state.db)
            .await
            .unwrap();
        }
    }
}
