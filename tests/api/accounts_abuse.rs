//! Accounts under abuse (issue 29): a flood of sign-ins, guessing, session revocation and
//! mail bombing, each seen from outside.
use crate::helpers::{spawn_app_with, Fetch};
use futures_util::future::join_all;
use reqwest::Method;
use serde_json::json;
use std::time::{Duration, Instant};

#[tokio::test]
async fn a_flood_of_sign_ins_is_bounded_and_game_routes_do_not_wait_for_it() {
    let app = spawn_app_with(|settings| {
        settings.password_hash_workers = Some(1);
        settings.password_hash_queue = 4;
        settings.rate_limit_per_minute = 100_000;
    })
    .await;
    let (_, _, key) = app.game_with_key().await;

    // Act: 60 sign-ins at once, and game reads meanwhile.
    let sign_ins = join_all((0..60).map(|i| {
        let request = app.request(Method::POST, "/v1/auth/login").json(
            &json!({ "email": format!("guess{i}@studio.test"), "password": "not the password" }),
        );
        async move {
            let response = request.send().await.unwrap();
            let retry_after = response
                .headers()
                .get("retry-after")
                .map(|v| v.to_str().unwrap().to_string());
            let (status, body) = crate::helpers::read(response).await;
            (status, retry_after, body)
        }
    }));
    let reads = async {
        tokio::time::sleep(Duration::from_millis(20)).await;
        let mut slowest = Duration::ZERO;
        for _ in 0..10 {
            let started = Instant::now();
            let (status, body) = app.game_call(Method::GET, "/v1/config", &key).await;
            assert_eq!(status, 200, "{body}");
            slowest = slowest.max(started.elapsed());
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        slowest
    };
    let (answers, slowest) = tokio::join!(sign_ins, reads);

    // Assert: the ones over the queue were told to come back, the rest were checked.
    let busy: Vec<_> = answers
        .iter()
        .filter(|(status, ..)| *status == 503)
        .collect();
    assert!(!busy.is_empty(), "no sign-in was turned away");
    for (_, retry_after, body) in &busy {
        assert_eq!(retry_after.as_deref(), Some("1"));
        assert_eq!(
            body["error"],
            "Too many sign-ins are being checked right now; try again in a moment"
        );
    }
    for (status, _, body) in &answers {
        assert!(*status == 503 || *status == 401, "{status} {body}");
    }
    assert!(
        slowest < Duration::from_millis(1500),
        "a game read waited {slowest:?} behind the sign-ins"
    );

    // Once the flood has passed, signing in works again.
    let (status, _) = app
        .request(Method::POST, "/v1/auth/login")
        .json(&json!({ "email": "guess0@studio.test", "password": "not the password" }))
        .fetch()
        .await;
    assert_eq!(status, 401);
}
