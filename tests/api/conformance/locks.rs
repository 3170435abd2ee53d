//! The `Locks` hot-store trait: exclusive leases with an expiry.
use crate::helpers::hot_stores as stores;
use chrono::{Duration, Utc};
use playtrace::store::hot::HotStore;
use uuid::Uuid;

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
