//! The `Presence` hot-store trait: players' latest activity, read offline after ten silent
//! minutes and gone after a day, with offline notices announced once and a per-game feed.
use crate::helpers::hot_stores as stores;
use chrono::{DateTime, Duration, TimeZone, Utc};
use playtrace::presence::feed::{cleared_message, offline_message, updated_message};
use playtrace::store::hot::{
    presence::{PresenceEntry, PresencePage, PresenceStatus},
    HotStore,
};
use serde_json::{json, Value};
use uuid::Uuid;

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 21, 10, 0, 0).unwrap()
}

fn entry(player: &str, status: PresenceStatus, at: DateTime<Utc>) -> PresenceEntry {
    PresenceEntry {
        player_id: player.to_string(),
        session_id: Some(format!("s-{player}")),
        status,
        activity: format!("{player} in the lobby"),
        data: json!({ "map": "harbor", "party": 3 }),
        updated_at: at,
    }
}

/// A player's entry as the store reads it at `now`.
/// Stores `entry` with the feed message the presence feature sends for it.
async fn set(store: &HotStore, game: Uuid, entry: PresenceEntry) {
    let message = updated_message(&entry);
    store.presence.set(game, &entry, &message).await.unwrap();
}

async fn stored(
    store: &HotStore,
    game: Uuid,
    player: &str,
    now: DateTime<Utc>,
) -> Option<PresenceEntry> {
    store.presence.get(game, player, now).await.unwrap()
}

/// A page of the game's active players at `now`, optionally of one status.
async fn active(
    store: &HotStore,
    game: Uuid,
    status: Option<PresenceStatus>,
    now: DateTime<Utc>,
    offset: u64,
    limit: u64,
) -> PresencePage {
    store
        .presence
        .active(game, status, now, offset, limit)
        .await
        .unwrap()
}

fn players(page: &PresencePage) -> Vec<&str> {
    page.entries.iter().map(|e| e.player_id.as_str()).collect()
}

#[tokio::test]
async fn an_entry_reads_offline_after_ten_silent_minutes_and_is_gone_after_a_day() {
    for (name, store) in stores().await {
        let game = Uuid::new_v4();
        let written = entry("ana", PresenceStatus::Waiting, t0());
        set(&store, game, written.clone()).await;

        let read_back = stored(&store, game, "ana", t0()).await.expect(name);
        assert_eq!(read_back, written, "{name}: stored as written");
        assert_eq!(
            read_back.status_at(t0() + Duration::seconds(599)),
            PresenceStatus::Waiting,
            "{name}"
        );
        let later = stored(&store, game, "ana", t0() + Duration::minutes(10))
            .await
            .expect(name);
        assert_eq!(
            later.status_at(t0() + Duration::minutes(10)),
            PresenceStatus::Offline,
            "{name}: offline at 10 min"
        );
        assert!(
            stored(&store, game, "ana", t0() + Duration::hours(23))
                .await
                .is_some(),
            "{name}"
        );
        assert!(
            stored(&store, game, "ana", t0() + Duration::hours(24))
                .await
                .is_none(),
            "{name}: kept 24 h"
        );
        assert!(
            stored(&store, game, "bob", t0()).await.is_none(),
            "{name}: unknown player"
        );
        assert!(
            stored(&store, Uuid::new_v4(), "ana", t0()).await.is_none(),
            "{name}: games are separate"
        );
    }
}

#[tokio::test]
async fn active_lists_are_newest_first_filtered_by_time_at_read_and_paged() {
    for (name, store) in stores().await {
        let game = Uuid::new_v4();
        for (i, player) in ["p0", "p1", "p2", "p3", "p4"].iter().enumerate() {
            let status = if i % 2 == 0 {
                PresenceStatus::Playing
            } else {
                PresenceStatus::Idle
            };
            set(
                &store,
                game,
                entry(player, status, t0() + Duration::minutes(i as i64)),
            )
            .await;
        }
        let now = t0() + Duration::minutes(5);
        let all = active(&store, game, None, now, 0, 100).await;
        assert_eq!(all.active_count, 5, "{name}");
        assert_eq!(
            players(&all),
            ["p4", "p3", "p2", "p1", "p0"],
            "{name}: newest first"
        );
        assert_eq!(
            all.entries[0].data,
            json!({ "map": "harbor", "party": 3 }),
            "{name}"
        );

        let page = active(&store, game, None, now, 1, 2).await;
        assert_eq!(
            (page.active_count, players(&page)),
            (5, vec!["p3", "p2"]),
            "{name}: offset and limit"
        );
        let playing = active(&store, game, Some(PresenceStatus::Playing), now, 0, 100).await;
        assert_eq!(
            (playing.active_count, players(&playing)),
            (3, vec!["p4", "p2", "p0"]),
            "{name}: by status"
        );
        let waiting = active(&store, game, Some(PresenceStatus::Waiting), now, 0, 100).await;
        assert_eq!(waiting.active_count, 0, "{name}");

        // Nothing sweeps here: the read alone leaves out entries silent for 10 minutes.
        let later = t0() + Duration::minutes(12);
        let remaining = active(&store, game, None, later, 0, 100).await;
        assert_eq!(
            (remaining.active_count, players(&remaining)),
            (2, vec!["p4", "p3"]),
            "{name}: p0..p2 went offline"
        );
        let none = active(&store, game, None, t0() + Duration::minutes(14), 0, 100).await;
        assert_eq!((none.active_count, none.entries.len()), (0, 0), "{name}");
    }
}

#[tokio::test]
async fn a_new_status_moves_the_player_between_filters_and_refreshes_it() {
    for (name, store) in stores().await {
        let game = Uuid::new_v4();
        set(&store, game, entry("ana", PresenceStatus::Playing, t0())).await;
        set(
            &store,
            game,
            entry("ana", PresenceStatus::Idle, t0() + Duration::minutes(8)),
        )
        .await;
        let now = t0() + Duration::minutes(12);
        let playing = active(&store, game, Some(PresenceStatus::Playing), now, 0, 10).await;
        let idle = active(&store, game, Some(PresenceStatus::Idle), now, 0, 10).await;
        assert_eq!((playing.active_count, idle.active_count), (0, 1), "{name}");
        let all = active(&store, game, None, now, 0, 10).await;
        assert_eq!(all.active_count, 1, "{name}: one entry per player");
        assert_eq!(all.entries[0].status, PresenceStatus::Idle, "{name}");
    }
}

#[tokio::test]
async fn clearing_forgets_the_entry() {
    for (name, store) in stores().await {
        let game = Uuid::new_v4();
        set(&store, game, entry("ana", PresenceStatus::Playing, t0())).await;
        assert!(
            store
                .presence
                .clear(game, "ana", &cleared_message("ana", t0()))
                .await
                .unwrap(),
            "{name}"
        );
        assert!(
            !store
                .presence
                .clear(game, "ana", &cleared_message("ana", t0()))
                .await
                .unwrap(),
            "{name}: nothing left to clear"
        );
        assert!(stored(&store, game, "ana", t0()).await.is_none(), "{name}");
        assert_eq!(
            active(&store, game, None, t0(), 0, 10).await.active_count,
            0,
            "{name}"
        );
        let announced = store
            .presence
            .announce_offline(t0() + Duration::hours(1), 100, offline_message)
            .await
            .unwrap();
        assert!(
            announced.is_empty(),
            "{name}: a cleared player never goes offline: {announced:?}"
        );
    }
}

#[tokio::test]
async fn going_offline_is_announced_once_however_many_nodes_check() {
    for (name, store) in stores().await {
        let game = Uuid::new_v4();
        for i in 0..30 {
            set(
                &store,
                game,
                entry(&format!("p{i}"), PresenceStatus::Playing, t0()),
            )
            .await;
        }
        // Refreshed at +5 min: goes offline at +15, not +10.
        set(
            &store,
            game,
            entry("p0", PresenceStatus::Playing, t0() + Duration::minutes(5)),
        )
        .await;
        assert!(
            store
                .presence
                .announce_offline(t0() + Duration::seconds(599), 100, offline_message)
                .await
                .unwrap()
                .is_empty(),
            "{name}"
        );

        let at = t0() + Duration::minutes(10);
        let checkers: Vec<_> = (0..4)
            .map(|_| {
                let store = store.clone();
                tokio::spawn(async move {
                    store
                        .presence
                        .announce_offline(at, 7, offline_message)
                        .await
                        .unwrap()
                })
            })
            .collect();
        let mut announced = Vec::new();
        for checker in checkers {
            announced.extend(checker.await.unwrap());
        }
        announced.extend(
            store
                .presence
                .announce_offline(at, 100, offline_message)
                .await
                .unwrap(),
        );
        let mut names: Vec<String> = announced.iter().map(|w| w.player_id.clone()).collect();
        names.sort();
        names.dedup();
        assert_eq!(
            (announced.len(), names.len()),
            (29, 29),
            "{name}: each of p1..p29 exactly once"
        );
        assert!(
            announced
                .iter()
                .all(|w| w.game_id == game && w.last_updated == t0()),
            "{name}"
        );

        let p0 = store
            .presence
            .announce_offline(t0() + Duration::minutes(15), 100, offline_message)
            .await
            .unwrap();
        assert_eq!(
            p0.iter().map(|w| w.player_id.as_str()).collect::<Vec<_>>(),
            ["p0"],
            "{name}"
        );
        assert!(
            store
                .presence
                .announce_offline(t0() + Duration::hours(2), 100, offline_message)
                .await
                .unwrap()
                .is_empty(),
            "{name}"
        );
    }
}

#[tokio::test]
async fn the_feed_carries_one_games_updates_clears_and_offline_notices() {
    for (name, store) in stores().await {
        let game = Uuid::new_v4();
        let other_game = Uuid::new_v4();
        let mut feed = store.presence.subscribe(game).await.unwrap();
        set(
            &store,
            other_game,
            entry("elsewhere", PresenceStatus::Playing, t0()),
        )
        .await;
        set(&store, game, entry("ana", PresenceStatus::Waiting, t0())).await;
        store
            .presence
            .clear(
                game,
                "ana",
                &cleared_message("ana", t0() + Duration::minutes(1)),
            )
            .await
            .unwrap();
        set(&store, game, entry("bob", PresenceStatus::Playing, t0())).await;
        store
            .presence
            .announce_offline(t0() + Duration::minutes(10), 100, offline_message)
            .await
            .unwrap();

        let mut messages = Vec::new();
        for _ in 0..4 {
            let text = tokio::time::timeout(std::time::Duration::from_secs(5), feed.recv())
                .await
                .unwrap_or_else(|_| panic!("{name}: message expected, got {messages:?}"))
                .unwrap();
            messages.push(serde_json::from_str::<Value>(&text).unwrap());
        }
        assert_eq!(
            messages[0]["type"], "activity.updated",
            "{name}: {messages:?}"
        );
        assert_eq!(
            messages[0]["player_id"], "ana",
            "{name}: other games' messages are not delivered"
        );
        assert_eq!(messages[0]["status"], "waiting");
        assert_eq!(
            messages[0]["details"],
            json!({ "map": "harbor", "party": 3 })
        );
        assert_eq!(messages[0]["updated_at"], "2026-11-21T10:00:00Z");
        assert_eq!(
            (
                messages[1]["type"].as_str(),
                messages[1]["player_id"].as_str()
            ),
            (Some("activity.cleared"), Some("ana"))
        );
        assert_eq!(messages[2]["type"], "activity.updated", "{name}");
        assert_eq!(
            messages[3],
            json!({ "type": "presence.offline", "player_id": "bob", "last_updated": "2026-11-21T10:00:00Z" })
        );
    }
}
