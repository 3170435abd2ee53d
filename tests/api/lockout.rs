//! Sign-in lockout and registration per client address (issue 29, finding 3 and "per-address
//! throttles"): a stranger's guesses lock an address only for the stranger, a client spraying
//! guesses over many addresses is locked out of all of them, and one client cannot register
//! accounts without end. The node trusts `X-Forwarded-For` here (`--trust-proxy`), as behind a
//! proxy, so that one test can speak as several clients.
use crate::helpers::{spawn_app_with, Fetch, TestApp, PASSWORD};
use playtrace::clock::Clock;
use reqwest::Method;
use serde_json::{json, Value};

const STRANGER: &str = "203.0.113.7";
const OWNER: &str = "198.51.100.20";

async fn sign_in_from(app: &TestApp, client: &str, email: &str, password: &str) -> (u16, Value) {
    app.request(Method::POST, "/v1/auth/login")
        .header("x-forwarded-for", client)
        .json(&json!({ "email": email, "password": password }))
        .fetch()
        .await
}

async fn register_from(app: &TestApp, client: &str, email: &str) -> reqwest::Response {
    app.request(Method::POST, "/v1/auth/register")
        .header("x-forwarded-for", client)
        .json(&json!({ "email": email, "password": PASSWORD }))
        .send()
        .await
        .expect("the node answers")
}

#[tokio::test]
async fn a_strangers_guesses_do_not_lock_the_owner_out() {
    let app = spawn_app_with(|s| s.trust_proxy = true).await;
    app.register("olga@studio.test").await;

    // Act: five wrong guesses from a stranger's address.
    let mut statuses = Vec::new();
    for _ in 0..5 {
        statuses.push(
            sign_in_from(&app, STRANGER, "olga@studio.test", "a guess")
                .await
                .0,
        );
    }

    // Assert: the stranger is locked out, for every password; the owner, elsewhere, is not.
    assert_eq!(statuses, [401, 401, 401, 401, 403]);
    let (status, body) = sign_in_from(&app, STRANGER, "olga@studio.test", PASSWORD).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (403, Some("ACCOUNT_LOCKED")),
        "{body}"
    );
    let (status, body) = sign_in_from(&app, OWNER, "olga@studio.test", "a typo").await;
    assert_eq!(
        status, 401,
        "the owner's own typo is not met by the stranger's lock: {body}"
    );
    let (status, body) = sign_in_from(&app, OWNER, "olga@studio.test", PASSWORD).await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn a_client_spraying_guesses_over_many_addresses_is_locked_out_of_all_of_them() {
    // The production default: 20 failures over any addresses.
    let app = spawn_app_with(|s| s.trust_proxy = true).await;
    app.register("piet@studio.test").await;

    // Act: one guess at each of 20 addresses (never five at one).
    let mut statuses = Vec::new();
    for n in 0..20 {
        let email = format!("user{n}@studio.test");
        statuses.push(sign_in_from(&app, STRANGER, &email, "123456").await.0);
    }

    // Assert: the 20th locks the client out of every address, an account's right password
    // included (a correct guess is not confirmed); another client is not affected.
    assert_eq!(statuses[..19], [401; 19]);
    assert_eq!(statuses[19], 403);
    let (status, body) = sign_in_from(&app, STRANGER, "piet@studio.test", PASSWORD).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (403, Some("ACCOUNT_LOCKED")),
        "{body}"
    );
    let (status, body) = sign_in_from(&app, OWNER, "piet@studio.test", PASSWORD).await;
    assert_eq!(status, 200, "{body}");

    // And 15 minutes later the client may try again.
    app.clock.advance(chrono::Duration::minutes(16));
    let (status, body) = sign_in_from(&app, STRANGER, "piet@studio.test", PASSWORD).await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn an_unlock_lifts_the_address_lock_for_every_client() {
    let app = spawn_app_with(|s| s.trust_proxy = true).await;
    app.register("rosa@studio.test").await;
    for client in [STRANGER, OWNER] {
        for _ in 0..5 {
            sign_in_from(&app, client, "rosa@studio.test", "a guess").await;
        }
    }
    assert_eq!(
        sign_in_from(&app, OWNER, "rosa@studio.test", PASSWORD)
            .await
            .0,
        403
    );

    // Act: the operator unlocks the address (a password reset clears the same rows:
    // `accounts_abuse`).
    let email = playtrace::accounts::service::Email::parse("rosa@studio.test").unwrap();
    let unlocked = playtrace::accounts::admin::unlock(&app.state.db, &email)
        .await
        .unwrap();

    // Assert
    assert!(unlocked);
    for client in [STRANGER, OWNER] {
        let (status, body) = sign_in_from(&app, client, "rosa@studio.test", PASSWORD).await;
        assert_eq!(status, 200, "{client}: {body}");
    }
}

#[tokio::test]
async fn one_client_registers_at_most_its_hourly_share_of_accounts() {
    let app = spawn_app_with(|s| {
        s.trust_proxy = true;
        s.registrations_per_hour = 3;
    })
    .await;
    // A clock hour's window: keep the test away from its end.
    let second_of_hour = app.clock.now().timestamp().rem_euclid(3600);
    if second_of_hour > 3000 {
        app.clock
            .advance(chrono::Duration::seconds(3602 - second_of_hour));
    }

    // Act
    let mut statuses = Vec::new();
    for n in 0..3 {
        let email = format!("bot{n}@studio.test");
        statuses.push(
            register_from(&app, STRANGER, &email)
                .await
                .status()
                .as_u16(),
        );
    }
    let refused = register_from(&app, STRANGER, "bot3@studio.test").await;

    // Assert: the fourth is refused with when to come back, and nothing is created for it;
    // another client registers as usual.
    assert_eq!(statuses, [201, 201, 201]);
    assert_eq!(refused.status().as_u16(), 429);
    let retry_after: u64 = refused.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        (1..=3600).contains(&retry_after),
        "Retry-After: {retry_after}"
    );
    let body: Value = refused.json().await.unwrap();
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("Too many registrations"),
        "{body}"
    );
    let (status, _) = sign_in_from(&app, OWNER, "bot3@studio.test", PASSWORD).await;
    assert_eq!(status, 401, "the refused registration created an account");
    let created = register_from(&app, OWNER, "someone@studio.test").await;
    assert_eq!(created.status().as_u16(), 201);
}
