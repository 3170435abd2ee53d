//! One conformance suite for the hot-store traits, run against the in-process store always and
//! against Redis on the services backend.
use crate::helpers::hot_stores as stores;
use chrono::{Duration, TimeZone, Utc};
use playtrace::store::hot::HotStore;
use uuid::Uuid;

#[tokio::test]
async fn limits_count_per_bucket_and_window() {
    for (name, store) in stores().await {
        let start = Utc.with_ymd_and_hms(2026, 11, 21, 10, 0, 10).unwrap();
        for expected in 1..=3 {
            let window = store.limits.hit("a", 1, 60, start).await.unwrap();
            assert_eq!(window.count, expected, "{name}");
            assert_eq!(window.resets_in_secs, 50, "{name}");
        }
        assert_eq!(
            store.limits.hit("b", 1, 60, start).await.unwrap().count,
            1,
            "{name}: buckets are separate"
        );
        let next = start + Duration::seconds(55);
        let window = store.limits.hit("a", 1, 60, next).await.unwrap();
        assert_eq!(window.count, 1, "{name}: a new window starts from zero");
        assert_eq!(window.resets_in_secs, 55, "{name}");
        let window = store.limits.hit("a", 10, 60, next).await.unwrap();
        assert_eq!(
            window.count, 11,
            "{name}: a cost counts as that many requests"
        );
    }
}

#[tokio::test]
async fn limits_are_exact_under_concurrency() {
    for (name, store) in stores().await {
        let now = Utc::now();
        let bucket = format!("c-{}", Uuid::new_v4());
        let mut tasks = Vec::new();
        for _ in 0..50 {
            let store = store.clone();
            let bucket = bucket.clone();
            tasks.push(tokio::spawn(async move {
                store.limits.hit(&bucket, 1, 3600, now).await.unwrap().count
            }));
        }
        let mut counts = Vec::new();
        for task in tasks {
            counts.push(task.await.unwrap());
        }
        counts.sort();
        assert_eq!(
            counts,
            (1..=50).collect::<Vec<u64>>(),
            "{name}: every hit counted once"
        );
    }
}

#[tokio::test]
async fn locks_are_exclusive_until_released() {
    for (name, store) in stores().await {
        let now = Utc::now();
        let lock = format!("l-{}", Uuid::new_v4());
        assert!(
            store.locks.try_acquire(&lock, 60, now).await.unwrap(),
            "{name}"
        );
        assert!(
            !store.locks.try_acquire(&lock, 60, now).await.unwrap(),
            "{name}: held"
        );
        store.locks.release(&lock).await.unwrap();
        assert!(
            store.locks.try_acquire(&lock, 60, now).await.unwrap(),
            "{name}: released"
        );

        let racers: Vec<_> = (0..20)
            .map(|_| {
                let store = store.clone();
                let lock = format!("{lock}-race");
                tokio::spawn(async move { store.locks.try_acquire(&lock, 60, now).await.unwrap() })
            })
            .collect();
        let mut winners = 0;
        for racer in racers {
            winners += racer.await.unwrap() as u32;
        }
        assert_eq!(winners, 1, "{name}: exactly one racer gets the lock");
    }
}

#[tokio::test]
async fn memory_locks_expire_with_the_clock() {
    let store = HotStore::in_process();
    let now = Utc::now();
    assert!(store.locks.try_acquire("x", 60, now).await.unwrap());
    assert!(!store
        .locks
        .try_acquire("x", 60, now + Duration::seconds(59))
        .await
        .unwrap());
    assert!(store
        .locks
        .try_acquire("x", 60, now + Duration::seconds(61))
        .await
        .unwrap());
}
