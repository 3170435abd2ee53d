//! PostgreSQL unreachable: tracks answer 503, and after it each event is stored once.
use super::*;

/// How many times each event_id of the game is stored, read straight from the database.
async fn stored_ids(db: &sea_orm::DatabaseConnection, game_id: &str) -> HashMap<String, usize> {
    let ids: Vec<Option<String>> = events::Entity::find()
        .select_only()
        .column(events::Column::EventId)
        .filter(events::Column::GameId.eq(Uuid::parse_str(game_id).unwrap()))
        .into_tuple()
        .all(db)
        .await
        .unwrap();
    let mut counts = HashMap::new();
    for id in ids {
        *counts
            .entry(id.expect("every event of the test has an event_id"))
            .or_default() += 1;
    }
    counts
}

#[tokio::test]
async fn while_postgres_is_unreachable_tracks_answer_503_and_after_it_each_event_is_stored_once() {
    if !services_backend() {
        return;
    }
    let backend = Backend::fresh().await;
    let proxy = Proxy::to(&backend.database_url).await;
    let via = proxy.url_for(&backend.database_url);
    // Both of the node's pools (requests' and writers') connect through the proxy.
    let app = spawn_on(backend.clone(), |settings| settings.database_url = via).await;
    let (token, game_id, key) = app.game_with_key().await;
    let db = sea_orm::Database::connect(&backend.database_url)
        .await
        .unwrap();

    let mut sent: Vec<String> = Vec::new();
    for i in 0..5 {
        let id = format!("before-{i}");
        let done = answer("track", track_one(&app, &key, &id)).await;
        assert_eq!(done.status, 202, "{}", done.body);
        sent.push(id);
    }

    // Four clients send events one after another while the database goes away.
    let stop = Arc::new(AtomicBool::new(false));
    let mut loaders = Vec::new();
    for client in 0..4 {
        let requests: Vec<RequestBuilder> = (0..1000)
            .map(|n| track_one(&app, &key, &format!("load-{client}-{n}")))
            .collect();
        let stop = stop.clone();
        loaders.push(tokio::spawn(async move {
            let mut outcomes = Vec::new();
            for (n, request) in requests.into_iter().enumerate() {
                if stop.load(Ordering::Acquire) {
                    break;
                }
                let done = answer("track under load", request).await;
                outcomes.push((format!("load-{client}-{n}"), done.status, done.body));
            }
            outcomes
        }));
    }
    // And dashboards read the game list meanwhile (a read, not a group write).
    let mut readers = Vec::new();
    for _ in 0..3 {
        let requests: Vec<RequestBuilder> = (0..1000)
            .map(|_| app.dashboard(Method::GET, "/v1/games", &token))
            .collect();
        let stop = stop.clone();
        readers.push(tokio::spawn(async move {
            let mut statuses = Vec::new();
            for request in requests {
                if stop.load(Ordering::Acquire) {
                    break;
                }
                let done = answer("dashboard read", request).await;
                statuses.push((done.status, done.body));
            }
            statuses
        }));
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    proxy.cut().await;
    stop.store(true, Ordering::Release);

    // Sent once the database is unreachable: never accepted.
    let during: Vec<String> = (0..3).map(|i| format!("during-{i}")).collect();
    let requests: Vec<_> = during
        .iter()
        .map(|id| answer("track while down", track_one(&app, &key, id)))
        .collect();
    let asked = std::time::Instant::now();
    let (ready, answers) = tokio::join!(
        async {
            let ready = answer("readyz", app.request(Method::GET, "/readyz")).await;
            (ready, asked.elapsed())
        },
        async {
            let answers = futures_util::future::join_all(requests).await;
            (answers, asked.elapsed())
        }
    );
    let ((ready, ready_took), (answers, tracks_took)) = (ready, answers);
    // A probe and a client learn within a few seconds that the database is gone (they waited
    // ten before). A track may queue behind the load's batch, which waits its own 2 s for a
    // connection first, so two waits can stack: 4.09 s on a busy CI machine.
    assert!(
        ready_took < Duration::from_millis(1_500),
        "/readyz took {ready_took:?}"
    );
    assert!(
        tracks_took < Duration::from_secs(6),
        "the 503s took {tracks_took:?}"
    );
    for done in &answers {
        assert_eq!(done.status, 503, "{}", done.body);
        assert!(
            done.body["error"].as_str().unwrap().contains("retry"),
            "{}",
            done.body
        );
    }
    assert_eq!(
        (ready.status, &ready.body),
        (
            503,
            &json!({ "status": "unavailable", "cold_store": false, "hot_store": true })
        )
    );
    let mut pending: Vec<String> = during.clone();
    sent.extend(during.iter().cloned());
    for loader in loaders {
        for (id, status, body) in loader.await.unwrap() {
            // In flight when the database went: committed (202) or not (503), never a 500.
            assert!(matches!(status, 202 | 503), "{id}: {status} {body}");
            if status != 202 {
                pending.push(id.clone());
            }
            sent.push(id);
        }
    }
    for reader in readers {
        for (status, body) in reader.await.unwrap() {
            // A read whose connection broke under it is an outage too: 503, never a 500.
            assert!(
                matches!(status, 200 | 503),
                "dashboard read: {status} {body}"
            );
        }
    }
    let stored = stored_ids(&db, &game_id).await;
    for id in &during {
        assert!(!stored.contains_key(id), "{id} was answered 503 but stored");
    }

    // Back: the node recovers on its own, and the clients' retries are each stored once.
    proxy.restore().await;
    let restored = Instant::now();
    for id in &pending {
        loop {
            let done = answer("track retried", track_one(&app, &key, id)).await;
            if done.status == 202 {
                break;
            }
            assert_eq!(done.status, 503, "{id}: {}", done.body);
            assert!(
                restored.elapsed() < Duration::from_secs(15),
                "{id} still refused 15 s after the database came back: {}",
                done.body
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    for i in 0..10 {
        let id = format!("after-{i}");
        let done = answer("track", track_one(&app, &key, &id)).await;
        assert_eq!(done.status, 202, "{}", done.body);
        sent.push(id);
    }
    let ready = answer("readyz", app.request(Method::GET, "/readyz")).await;
    assert_eq!(ready.status, 200, "{}", ready.body);

    let stored = stored_ids(&db, &game_id).await;
    let twice: Vec<_> = stored.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "stored more than once: {twice:?}");
    let sent: HashSet<String> = sent.into_iter().collect();
    let stored: HashSet<String> = stored.into_keys().collect();
    assert_eq!(stored, sent, "every event sent is stored, and nothing else");

    // The aggregates are written in the events' transaction: groups that failed when the
    // database went counted nothing, and their retries counted each event once.
    let (status, body) = app
        .dashboard_call(
            Method::GET,
            &format!("/v1/games/{game_id}/events/counts"),
            &token,
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        (body["total"].as_u64(), &body["counts"]),
        (
            Some(sent.len() as u64),
            &json!([{ "event_name": "tick", "count": sent.len() }])
        ),
        "the counts read from the aggregates are the events stored"
    );
    db.close().await.ok();
}
