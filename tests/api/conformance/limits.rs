//! The `Limits` hot-store trait: fixed-window rate-limit counters.
use crate::helpers::hot_stores as stores;
use chrono::{Duration, TimeZone, Utc};
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
