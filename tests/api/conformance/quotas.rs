//! The `Quotas` hot-store trait: monthly event counters reserved all or nothing.
use crate::helpers::hot_stores as stores;
use playtrace::store::hot::quotas::{Ask, Reservation};
use std::collections::HashMap;
use uuid::Uuid;

#[tokio::test]
async fn a_missing_counter_is_reported_until_rebuilt() {
    for (name, store) in stores().await {
        let quotas = &store.quotas;
        assert_eq!(
            quotas.reserve("g:2026-11", 5, 100, None).await.unwrap(),
            Reservation::Missing,
            "{name}"
        );
        assert_eq!(
            quotas.current("g:2026-11").await.unwrap(),
            None,
            "{name}: asking creates nothing"
        );
        assert_eq!(
            quotas.reserve("g:2026-11", 5, 100, Some(40)).await.unwrap(),
            Reservation::Reserved { used: 45 },
            "{name}"
        );
        // a later rebuild does not overwrite the live count
        assert_eq!(
            quotas.reserve("g:2026-11", 5, 100, Some(0)).await.unwrap(),
            Reservation::Reserved { used: 50 },
            "{name}"
        );
        assert_eq!(
            quotas.current("g:2026-11").await.unwrap(),
            Some(50),
            "{name}"
        );
    }
}

#[tokio::test]
async fn reservations_are_all_or_nothing_and_releases_give_back() {
    for (name, store) in stores().await {
        let quotas = &store.quotas;
        assert_eq!(
            quotas.reserve("c", 8, 10, Some(0)).await.unwrap(),
            Reservation::Reserved { used: 8 },
            "{name}"
        );
        assert_eq!(
            quotas.reserve("c", 3, 10, None).await.unwrap(),
            Reservation::Refused { current: 8 },
            "{name}"
        );
        assert_eq!(
            quotas.current("c").await.unwrap(),
            Some(8),
            "{name}: a refusal counts nothing"
        );
        assert_eq!(
            quotas.reserve("c", 2, 10, None).await.unwrap(),
            Reservation::Reserved { used: 10 },
            "{name}"
        );
        assert_eq!(
            quotas.reserve("c", 0, 10, None).await.unwrap(),
            Reservation::Reserved { used: 10 },
            "{name}"
        );
        quotas.release("c", 4).await.unwrap();
        assert_eq!(quotas.current("c").await.unwrap(), Some(6), "{name}");
        quotas.release("c", 100).await.unwrap();
        assert_eq!(
            quotas.current("c").await.unwrap(),
            Some(0),
            "{name}: never below zero"
        );
        quotas.release("absent", 3).await.unwrap();
        assert_eq!(
            quotas.current("absent").await.unwrap(),
            None,
            "{name}: release creates nothing"
        );
        assert_eq!(
            quotas.reserve("other", 11, 10, Some(0)).await.unwrap(),
            Reservation::Refused { current: 0 },
            "{name}"
        );
    }
}

#[tokio::test]
async fn reservations_are_exact_under_concurrency() {
    for (name, store) in stores().await {
        let counter = format!("race-{}", Uuid::new_v4());
        let mut tasks = Vec::new();
        for _ in 0..60 {
            let store = store.clone();
            let counter = counter.clone();
            tasks.push(tokio::spawn(async move {
                store
                    .quotas
                    .reserve(&counter, 3, 100, Some(0))
                    .await
                    .unwrap()
            }));
        }
        let mut reserved = Vec::new();
        for task in tasks {
            if let Reservation::Reserved { used } = task.await.unwrap() {
                reserved.push(used);
            }
        }
        reserved.sort();
        assert_eq!(
            reserved,
            (1..=33).map(|i| i * 3).collect::<Vec<u64>>(),
            "{name}: 33 of 60 fit, each counted once"
        );
        assert_eq!(
            store.quotas.current(&counter).await.unwrap(),
            Some(99),
            "{name}"
        );
    }
}

#[tokio::test]
async fn a_group_reserves_each_ask_in_order_all_or_nothing() {
    for (name, store) in stores().await {
        let quotas = &store.quotas;
        let (a, b, fresh) = (
            format!("a-{}", Uuid::new_v4()),
            format!("b-{}", Uuid::new_v4()),
            format!("fresh-{}", Uuid::new_v4()),
        );
        quotas.reserve(&a, 0, 10, Some(0)).await.unwrap();
        quotas.reserve(&b, 0, 10, Some(3)).await.unwrap();
        let asks = [
            Ask {
                counter: &a,
                amount: 8,
                limit: 10,
            },
            Ask {
                counter: &b,
                amount: 4,
                limit: 10,
            },
            Ask {
                counter: &a,
                amount: 5,
                limit: 10,
            },
            Ask {
                counter: &fresh,
                amount: 1,
                limit: 10,
            },
            Ask {
                counter: &a,
                amount: 2,
                limit: 10,
            },
        ];
        let answers = quotas.reserve_all(&asks, &HashMap::new()).await.unwrap();
        assert_eq!(
            answers,
            vec![
                Reservation::Reserved { used: 8 },
                Reservation::Reserved { used: 7 },
                Reservation::Refused { current: 8 },
                Reservation::Missing,
                Reservation::Reserved { used: 10 },
            ],
            "{name}: a refused ask leaves room for a later, smaller one"
        );
        assert_eq!(quotas.current(&a).await.unwrap(), Some(10), "{name}");
        assert_eq!(quotas.current(&fresh).await.unwrap(), None, "{name}");

        let rebuilt = HashMap::from([(fresh.clone(), 9)]);
        let again = quotas
            .reserve_all(&[asks[3], asks[3]], &rebuilt)
            .await
            .unwrap();
        assert_eq!(
            again,
            vec![
                Reservation::Reserved { used: 10 },
                Reservation::Refused { current: 10 }
            ],
            "{name}"
        );

        quotas
            .release_all(&[(&a, 3), (&b, 100), (&a, 1), ("never-made", 5)])
            .await
            .unwrap();
        assert_eq!(quotas.current(&a).await.unwrap(), Some(6), "{name}");
        assert_eq!(quotas.current(&b).await.unwrap(), Some(0), "{name}");
        assert_eq!(quotas.current("never-made").await.unwrap(), None, "{name}");
    }
}

/// Redis only (the in-process store goes with its process): a node killed between reserving
/// and storing leaves its hold behind; once its lease lapses and no live node holds anything
/// in the counter, the reclaim drops the counter so it is rebuilt from the cold store.
#[tokio::test]
async fn a_stopped_nodes_reservations_are_reclaimed_once_its_lease_lapses() {
    use fred::prelude::HashesInterface;
    use playtrace::store::hot::quotas::{Quotas, RedisQuotas};
    use std::{collections::HashMap, time::Duration};
    for (name, store) in stores().await {
        let Some(handle) = store.redis.clone() else {
            assert_eq!(store.quotas.reclaim_abandoned().await.unwrap(), 0, "{name}");
            continue;
        };
        let killed = RedisQuotas::with_lease(handle.clone(), Duration::from_millis(300));
        let live = RedisQuotas::new(handle.clone());
        let counter = format!("{}:2026-11", Uuid::new_v4());
        let counter = counter.as_str();
        // Stored so far: 100. The killed node reserves 7 and never stores them.
        assert_eq!(
            killed.reserve(counter, 7, 1000, Some(100)).await.unwrap(),
            Reservation::Reserved { used: 107 }
        );
        // The live node stores 5 (settled) and gives 2 back.
        live.reserve(counter, 7, 1000, None).await.unwrap();
        live.settle_all(&[(counter, 5)]).await.unwrap();
        live.release(counter, 2).await.unwrap();
        assert_eq!(live.current(counter).await.unwrap(), Some(112));
        // Within the lease nothing is reclaimed.
        assert_eq!(live.reclaim_abandoned().await.unwrap(), 0);
        assert_eq!(live.current(counter).await.unwrap(), Some(112));

        tokio::time::sleep(Duration::from_millis(400)).await;
        // While a live node holds a reservation in the counter, it waits.
        live.reserve(counter, 3, 1000, None).await.unwrap();
        assert_eq!(live.reclaim_abandoned().await.unwrap(), 0);
        assert_eq!(live.current(counter).await.unwrap(), Some(115));
        live.settle_all(&[(counter, 3)]).await.unwrap();
        // Then the counter goes, to be rebuilt from the cold store (which holds 108).
        assert_eq!(live.reclaim_abandoned().await.unwrap(), 1);
        assert_eq!(live.current(counter).await.unwrap(), None);
        // And the stopped node's lapsed lease with it: a node that restarts every day must not
        // grow the leases hash for ever. The live node's lease stays.
        let leases: HashMap<String, String> = handle
            .client()
            .unwrap()
            .hgetall(handle.key("quota-leases"))
            .await
            .unwrap();
        assert_eq!(leases.len(), 1, "{leases:?}");
        assert_eq!(
            live.reserve(counter, 1, 1000, Some(108)).await.unwrap(),
            Reservation::Reserved { used: 109 }
        );
        live.settle_all(&[(counter, 1)]).await.unwrap();
        // Settled holds leave nothing to reclaim.
        assert_eq!(live.reclaim_abandoned().await.unwrap(), 0);
        assert_eq!(live.current(counter).await.unwrap(), Some(109));
    }
}
