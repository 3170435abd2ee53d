//! The `Leaderboards` hot-store trait: keep-best boards ranked with ties broken by who reached
//! the score first, loaded from the cold store and expiring.
use crate::helpers::hot_stores as stores;
use chrono::{Duration, Utc};
use playtrace::store::hot::{
    leaderboards::{HotBoard, HotEntry},
    HotStore,
};
use uuid::Uuid;

fn board(lower_is_better: bool) -> HotBoard {
    HotBoard {
        board_id: Uuid::new_v4().to_string(),
        period: "all_time".into(),
        lower_is_better,
        by_revision: false,
        expires_at: Some(Utc::now() + Duration::hours(2)),
    }
}

fn entry(player: &str, score: f64, reached_micros: i64) -> HotEntry {
    HotEntry {
        player_id: player.into(),
        score,
        reached_micros,
        payload: format!("{{\"p\":\"{player}\"}}"),
        revision: 0,
    }
}

/// (player, score, rank) of a whole board.
async fn standings(store: &HotStore, board: &HotBoard) -> Vec<(String, f64, u64)> {
    let page = store
        .leaderboards
        .page(board, 0, 1000, Utc::now())
        .await
        .unwrap()
        .expect("board loaded");
    page.entries
        .into_iter()
        .map(|r| (r.entry.player_id, r.entry.score, r.rank))
        .collect()
}

#[tokio::test]
async fn hot_boards_keep_the_best_score_and_rank_ties_by_who_reached_them_first() {
    for (name, store) in stores().await {
        let now = Utc::now();
        for lower in [false, true] {
            let board = board(lower);
            store
                .leaderboards
                .load(&board, &[], true, now)
                .await
                .unwrap();
            let better = if lower { 50.0 } else { 150.0 };
            let worse = if lower { 150.0 } else { 50.0 };

            let first = store
                .leaderboards
                .submit(&board, &entry("ann", 100.0, 10), now)
                .await
                .unwrap()
                .unwrap();
            assert!(first.changed, "{name}: a first score is stored");
            assert_eq!(first.standing.rank, 1, "{name}");
            let worse_kept = store
                .leaderboards
                .submit(&board, &entry("ann", worse, 20), now)
                .await
                .unwrap()
                .unwrap();
            assert!(!worse_kept.changed, "{name}: a worse score changes nothing");
            assert_eq!(
                worse_kept.standing.entry,
                entry("ann", 100.0, 10),
                "{name}: the stored entry is answered"
            );
            let equal = store
                .leaderboards
                .submit(&board, &entry("ann", 100.0, 30), now)
                .await
                .unwrap()
                .unwrap();
            assert!(!equal.changed, "{name}: an equal score changes nothing");
            let improved = store
                .leaderboards
                .submit(&board, &entry("ann", better, 40), now)
                .await
                .unwrap()
                .unwrap();
            assert!(improved.changed, "{name}: a better score replaces");
            assert_eq!(improved.standing.entry.score, better, "{name}");

            // Ties: bob reaches ann's score later than cid, so cid ranks ahead of bob.
            store
                .leaderboards
                .submit(&board, &entry("cid", better, 50), now)
                .await
                .unwrap();
            store
                .leaderboards
                .submit(&board, &entry("bob", better, 60), now)
                .await
                .unwrap();
            store
                .leaderboards
                .submit(&board, &entry("dan", worse, 5), now)
                .await
                .unwrap();
            assert_eq!(
                standings(&store, &board).await,
                vec![
                    ("ann".into(), better, 1),
                    ("cid".into(), better, 2),
                    ("bob".into(), better, 3),
                    ("dan".into(), worse, 4)
                ],
                "{name} lower={lower}"
            );
        }
    }
}

#[tokio::test]
async fn hot_boards_are_absent_until_loaded_and_after_they_expire() {
    for (name, store) in stores().await {
        let now = Utc::now();
        let board = board(false);
        let lb = &store.leaderboards;
        assert!(
            lb.submit(&board, &entry("ann", 1.0, 1), now)
                .await
                .unwrap()
                .is_none(),
            "{name}: not loaded"
        );
        assert!(
            lb.page(&board, 0, 10, now).await.unwrap().is_none(),
            "{name}"
        );
        assert!(
            lb.around(&board, "ann", 2, now).await.unwrap().is_none(),
            "{name}"
        );

        // A rebuild in two batches: the board is loaded once the last one is in.
        lb.load(
            &board,
            &[entry("ann", 5.0, 1), entry("bob", 7.0, 2)],
            false,
            now,
        )
        .await
        .unwrap();
        assert!(
            lb.page(&board, 0, 10, now).await.unwrap().is_none(),
            "{name}: loaded only when complete"
        );
        lb.load(
            &board,
            &[entry("ann", 9.0, 3), entry("cid", 1.0, 4)],
            true,
            now,
        )
        .await
        .unwrap();
        assert_eq!(
            standings(&store, &board).await,
            vec![
                ("ann".into(), 9.0, 1),
                ("bob".into(), 7.0, 2),
                ("cid".into(), 1.0, 3)
            ],
            "{name}: loads merge keep-best"
        );
        // Loading an older copy of an entry never rolls a better live score back.
        lb.load(&board, &[entry("ann", 5.0, 1)], true, now)
            .await
            .unwrap();
        assert_eq!(
            standings(&store, &board).await[0],
            ("ann".into(), 9.0, 1),
            "{name}"
        );

        lb.expire(&board, 0, now).await.unwrap();
        assert!(
            lb.page(&board, 0, 10, now).await.unwrap().is_none(),
            "{name}: dropped at once"
        );

        let empty = board.clone();
        lb.load(&empty, &[], true, now).await.unwrap();
        let page = lb
            .page(&empty, 0, 10, now)
            .await
            .unwrap()
            .expect("an empty board is loaded too");
        assert_eq!((page.total, page.entries.len()), (0, 0), "{name}");
    }
}

#[tokio::test]
async fn memory_boards_expire_with_the_clock() {
    let store = HotStore::in_process();
    let now = Utc::now();
    let mut board = board(false);
    board.expires_at = Some(now + Duration::minutes(5));
    store
        .leaderboards
        .load(&board, &[entry("ann", 1.0, 1)], true, now)
        .await
        .unwrap();
    assert!(store
        .leaderboards
        .page(&board, 0, 1, now + Duration::minutes(4))
        .await
        .unwrap()
        .is_some());
    assert!(store
        .leaderboards
        .page(&board, 0, 1, now + Duration::minutes(6))
        .await
        .unwrap()
        .is_none());
}

#[tokio::test]
async fn hot_boards_page_find_neighbours_and_remove_players() {
    for (name, store) in stores().await {
        let now = Utc::now();
        let board = board(false);
        let lb = &store.leaderboards;
        let entries: Vec<HotEntry> = (0..20)
            .map(|i| entry(&format!("p{i:02}"), i as f64, i))
            .collect();
        lb.load(&board, &entries, true, now).await.unwrap();

        let page = lb.page(&board, 5, 3, now).await.unwrap().unwrap();
        assert_eq!(page.total, 20, "{name}");
        let ranks: Vec<(u64, String)> = page
            .entries
            .iter()
            .map(|r| (r.rank, r.entry.player_id.clone()))
            .collect();
        assert_eq!(
            ranks,
            vec![(6, "p14".into()), (7, "p13".into()), (8, "p12".into())],
            "{name}"
        );
        assert_eq!(
            page.entries[0].entry.payload, "{\"p\":\"p14\"}",
            "{name}: payload kept"
        );
        assert!(
            lb.page(&board, 50, 10, now)
                .await
                .unwrap()
                .unwrap()
                .entries
                .is_empty(),
            "{name}: past the end"
        );
        assert!(
            lb.page(&board, 0, 0, now)
                .await
                .unwrap()
                .unwrap()
                .entries
                .is_empty(),
            "{name}: limit 0"
        );

        let around = lb.around(&board, "p10", 2, now).await.unwrap().unwrap();
        assert_eq!(around.player.as_ref().map(|p| p.rank), Some(10), "{name}");
        let neighbours: Vec<u64> = around.entries.iter().map(|r| r.rank).collect();
        assert_eq!(neighbours, vec![8, 9, 10, 11, 12], "{name}");
        let top = lb.around(&board, "p19", 3, now).await.unwrap().unwrap();
        assert_eq!(
            top.entries.iter().map(|r| r.rank).collect::<Vec<_>>(),
            vec![1, 2, 3, 4],
            "{name}: clipped at the top"
        );
        let absent = lb.around(&board, "nobody", 3, now).await.unwrap().unwrap();
        assert!(
            absent.player.is_none() && absent.entries.is_empty(),
            "{name}"
        );

        assert!(lb.remove(&board, "p19", now).await.unwrap(), "{name}");
        assert!(
            !lb.remove(&board, "p19", now).await.unwrap(),
            "{name}: already gone"
        );
        let page = lb.page(&board, 0, 1, now).await.unwrap().unwrap();
        assert_eq!(
            (page.total, page.entries[0].entry.player_id.as_str()),
            (19, "p18"),
            "{name}"
        );
    }
}

#[tokio::test]
async fn hot_board_versions_change_with_every_change_and_across_rebuilds() {
    for (name, store) in stores().await {
        let now = Utc::now();
        let board = board(false);
        let lb = &store.leaderboards;
        assert_eq!(lb.version(&board, now).await.unwrap(), None, "{name}");
        lb.load(&board, &[entry("ann", 10.0, 1)], true, now)
            .await
            .unwrap();
        let loaded = lb.version(&board, now).await.unwrap().expect("loaded");
        assert_eq!(
            lb.version(&board, now).await.unwrap().as_deref(),
            Some(loaded.as_str()),
            "{name}: reading leaves it"
        );

        let worse = lb.submit(&board, &entry("ann", 5.0, 2), now).await.unwrap();
        assert!(!worse.unwrap().changed);
        let same = lb.version(&board, now).await.unwrap().unwrap();
        assert_eq!(same, loaded, "{name}: a submission that changed nothing");

        lb.submit(&board, &entry("ann", 20.0, 3), now)
            .await
            .unwrap();
        let better = lb.version(&board, now).await.unwrap().unwrap();
        assert_ne!(better, loaded, "{name}: a better score");

        assert!(lb.remove(&board, "ann", now).await.unwrap());
        let removed = lb.version(&board, now).await.unwrap().unwrap();
        assert_ne!(removed, better, "{name}: a removal");

        lb.expire(&board, 0, now).await.unwrap();
        assert_eq!(lb.version(&board, now).await.unwrap(), None, "{name}");
        lb.load(&board, &[], true, now).await.unwrap();
        let rebuilt = lb.version(&board, now).await.unwrap().unwrap();
        assert!(
            ![&loaded, &better, &removed].contains(&&rebuilt),
            "{name}: a rebuilt board never repeats a version"
        );
    }
}

#[tokio::test]
async fn hot_boards_keep_the_best_of_concurrent_submissions() {
    for (name, store) in stores().await {
        let now = Utc::now();
        let board = board(false);
        store
            .leaderboards
            .load(&board, &[], true, now)
            .await
            .unwrap();
        let mut tasks = Vec::new();
        for i in 0..60i64 {
            // Scores go up and down as they race; the best is computed below.
            let score = ((i * 37) % 101) as f64;
            let (racer_store, racer_board) = (store.clone(), board.clone());
            tasks.push(tokio::spawn(async move {
                racer_store
                    .leaderboards
                    .submit(&racer_board, &entry("racer", score, i), now)
                    .await
                    .unwrap()
                    .unwrap()
            }));
            let (store, board) = (store.clone(), board.clone());
            tasks.push(tokio::spawn(async move {
                store
                    .leaderboards
                    .submit(&board, &entry(&format!("other{i}"), 1.0, i), now)
                    .await
                    .unwrap()
                    .unwrap()
            }));
        }
        for task in tasks {
            task.await.unwrap();
        }
        let best = (0..60i64).map(|i| (i * 37) % 101).max().unwrap() as f64;
        let page = store
            .leaderboards
            .page(&board, 0, 1, now)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(page.total, 61, "{name}: one entry per player");
        assert_eq!(page.entries[0].entry.player_id, "racer", "{name}");
        assert_eq!(
            page.entries[0].entry.score, best,
            "{name}: the best score survived the race"
        );
    }
}

#[tokio::test]
async fn boards_kept_by_revision_keep_the_newest_change_whatever_its_score() {
    for (name, store) in stores().await {
        let now = Utc::now();
        let board = HotBoard {
            by_revision: true,
            ..board(false)
        };
        let at = |revision: i64, score: f64| HotEntry {
            revision,
            ..entry("ann", score, 1_000 + revision)
        };
        store
            .leaderboards
            .load(&board, &[], true, now)
            .await
            .unwrap();
        let first = store
            .leaderboards
            .submit(&board, &at(2, 30.0), now)
            .await
            .unwrap()
            .unwrap();
        assert!(first.changed, "{name}");
        // An older change landing late is ignored, a newer one replaces even a lower score.
        let late = store
            .leaderboards
            .submit(&board, &at(1, 90.0), now)
            .await
            .unwrap()
            .unwrap();
        assert!(!late.changed, "{name}");
        assert_eq!(
            (late.standing.entry.score, late.standing.entry.revision),
            (30.0, 2),
            "{name}"
        );
        let newer = store
            .leaderboards
            .submit(&board, &at(3, 5.0), now)
            .await
            .unwrap()
            .unwrap();
        assert!(newer.changed, "{name}");
        assert_eq!(newer.standing.entry.payload, at(3, 5.0).payload, "{name}");
        // A rebuild merging an older copy rolls nothing back.
        store
            .leaderboards
            .load(&board, &[at(2, 30.0)], true, now)
            .await
            .unwrap();
        let page = store
            .leaderboards
            .page(&board, 0, 10, now)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(page.entries.len(), 1, "{name}");
        assert_eq!(
            (page.entries[0].entry.score, page.entries[0].entry.revision),
            (5.0, 3),
            "{name}"
        );
    }
}
