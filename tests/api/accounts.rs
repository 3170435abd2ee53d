use crate::{
    helpers::{spawn_app, spawn_app_with, Fetch, PASSWORD},
    mail_sink::{token_in, MailSink},
};
use chrono::Duration;
use reqwest::Method;
use serde_json::{json, Value};

async fn login(app: &crate::helpers::TestApp, email: &str, password: &str) -> (u16, Value) {
    app.call_json(
        Method::POST,
        "/v1/auth/login",
        json!({ "email": email, "password": password }),
    )
    .await
}

#[tokio::test]
async fn register_login_and_me() {
    let app = spawn_app().await;
    let body = app
        .request(Method::POST, "/v1/auth/register")
        .json(&json!({ "email": "Ada@Studio.test", "password": PASSWORD }))
        .expect_status(201)
        .await;
    assert_eq!(body["user"]["email"], "ada@studio.test");
    assert!(body["backendVersion"].as_str().unwrap().contains('.'));
    assert!(uuid::Uuid::parse_str(body["user"]["id"].as_str().unwrap()).is_ok());
    assert!(
        body.to_string().find("argon2").is_none(),
        "no hash in responses"
    );

    let (status, body) = login(&app, "ADA@studio.test", PASSWORD).await;
    assert_eq!(status, 200, "{body}");
    let token = body["token"].as_str().unwrap();
    assert!(body["backendVersion"].is_string());

    let (status, me) = app.dashboard_call(Method::GET, "/v1/auth/me", token).await;
    assert_eq!(status, 200);
    assert_eq!(me["email"], "ada@studio.test");
    assert_eq!(
        me["is_admin"], true,
        "the first account is the instance admin"
    );

    let second = app.register("bob@studio.test").await;
    let (_, me) = app
        .dashboard_call(Method::GET, "/v1/auth/me", &second)
        .await;
    assert_eq!(me["is_admin"], false);
}

#[tokio::test]
async fn registration_input_is_validated() {
    let app = spawn_app().await;
    app.register("taken@studio.test").await;
    let cases = [
        (
            json!({ "email": "not-an-email", "password": PASSWORD }),
            400,
            "bad email",
        ),
        (
            json!({ "email": "x@studio.test", "password": "short" }),
            400,
            "short password",
        ),
        (
            json!({ "email": "TAKEN@studio.test", "password": PASSWORD }),
            409,
            "duplicate e-mail, any case",
        ),
    ];
    for (body, expected, case) in cases {
        let (status, answer) = app
            .call_json(Method::POST, "/v1/auth/register", body.clone())
            .await;
        assert_eq!(status, expected, "{case}: {answer}");
        assert!(answer["error"].is_string(), "{case}");
    }
}

#[tokio::test]
async fn wrong_password_and_unknown_user_look_the_same() {
    let app = spawn_app().await;
    app.register("carol@studio.test").await;
    let (status_wrong, wrong) = login(&app, "carol@studio.test", "wrong password").await;
    let (status_unknown, unknown) = login(&app, "nobody@studio.test", "wrong password").await;
    assert_eq!(status_wrong, 401);
    assert_eq!(status_unknown, 401);
    assert_eq!(wrong, unknown);
}

#[tokio::test]
async fn five_failures_lock_the_account_for_fifteen_minutes() {
    let app = spawn_app().await;
    app.register("dave@studio.test").await;
    for attempt in 1..=4 {
        let (status, _) = login(&app, "dave@studio.test", "nope nope nope").await;
        assert_eq!(status, 401, "attempt {attempt}");
    }
    let (status, body) = login(&app, "dave@studio.test", "nope nope nope").await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(body["code"], "ACCOUNT_LOCKED");

    let (status, body) = login(&app, "dave@studio.test", PASSWORD).await;
    assert_eq!(status, 403, "locked even with the right password");
    assert_eq!(body["code"], "ACCOUNT_LOCKED");

    app.clock.advance(Duration::minutes(16));
    let (status, _) = login(&app, "dave@studio.test", PASSWORD).await;
    assert_eq!(status, 200, "unlocked after 15 minutes");
}

#[tokio::test]
async fn tokens_expire_after_seven_days_and_foreign_algorithms_are_refused() {
    let app = spawn_app().await;
    let token = app.register("erin@studio.test").await;
    let (status, _) = app.dashboard_call(Method::GET, "/v1/auth/me", &token).await;
    assert_eq!(status, 200);

    // alg "none" with the same claims
    let claims = token.split('.').nth(1).unwrap();
    let none_header = "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0"; // {"alg":"none","typ":"JWT"}
    let forged = format!("{none_header}.{claims}.");
    app.dashboard(Method::GET, "/v1/auth/me", &forged)
        .expect_status(401)
        .await;

    let (status, body) = app.call(Method::GET, "/v1/auth/me").await;
    assert_eq!(status, 401);
    assert!(body["error"].is_string());

    app.clock.advance(Duration::days(7) + Duration::seconds(1));
    let (status, body) = app.dashboard_call(Method::GET, "/v1/auth/me", &token).await;
    assert_eq!(status, 401);
    assert_eq!(body["error"], "Token expired");
}

#[tokio::test]
async fn password_reset_by_email_works_once() {
    let sink = MailSink::start();
    let app = spawn_app_with(|s| s.smtp_url = Some(sink.url.clone())).await;
    app.register("frank@studio.test").await;

    for email in ["frank@studio.test", "ghost@studio.test"] {
        let body = app
            .request(Method::POST, "/v1/auth/forgot-password")
            .json(&json!({ "email": email }))
            .expect_status(202)
            .await;
        assert!(body["message"].is_string());
    }
    let mail = sink.wait_for("frank@studio.test").await;
    let token = token_in(&mail);
    assert_eq!(token.len(), 64);
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(
        sink.messages()
            .iter()
            .all(|m| !m.to.iter().any(|t| t.contains("ghost"))),
        "no mail to unknown addresses"
    );

    let reset = |token: String, password: &'static str| {
        app.request(Method::POST, "/v1/auth/reset-password")
            .json(&json!({ "token": token, "password": password }))
    };
    let (status, body) = reset(token.clone(), "brand new password").fetch().await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        login(&app, "frank@studio.test", "brand new password")
            .await
            .0,
        200
    );
    assert_eq!(login(&app, "frank@studio.test", PASSWORD).await.0, 401);

    let (status, _) = reset(token, "another password").fetch().await;
    assert_eq!(status, 400, "a token works once");
    let (status, _) = reset("00".repeat(32), "another password").fetch().await;
    assert_eq!(status, 400, "unknown token");
}

#[tokio::test]
async fn reset_tokens_expire_after_an_hour() {
    let sink = MailSink::start();
    let app = spawn_app_with(|s| s.smtp_url = Some(sink.url.clone())).await;
    app.register("gina@studio.test").await;
    app.request(Method::POST, "/v1/auth/forgot-password")
        .json(&json!({ "email": "gina@studio.test" }))
        .send()
        .await
        .unwrap();
    let token = token_in(&sink.wait_for("gina@studio.test").await);
    app.clock.advance(Duration::minutes(61));
    app.request(Method::POST, "/v1/auth/reset-password")
        .json(&json!({ "token": token, "password": "too late now" }))
        .expect_status(400)
        .await;
}

#[tokio::test]
async fn invited_accounts_are_pending_until_they_set_a_password() {
    let sink = MailSink::start();
    let app = spawn_app_with(|s| s.smtp_url = Some(sink.url.clone())).await;
    let owner = app.new_user().await;
    let game_id = app.create_game(&owner).await;
    let (status, member) = app
        .dashboard_json(
            Method::POST,
            &format!("/v1/games/{game_id}/members"),
            &owner,
            json!({ "email": "hank@studio.test", "role": "editor" }),
        )
        .await;
    assert_eq!(status, 201, "{member}");
    assert_eq!(member["status"], "pending");

    // A guess answers as for nobody; the invitation's token shows the state (issue 29).
    let (status, _) = login(&app, "hank@studio.test", "anything at all").await;
    assert_eq!(status, 401);
    let token = token_in(&sink.wait_for("hank@studio.test").await);
    let (status, body) = login(&app, "hank@studio.test", &token).await;
    assert_eq!(status, 403);
    assert_eq!(body["code"], "ACCOUNT_PENDING");

    app.request(Method::POST, "/v1/auth/reset-password")
        .json(&json!({ "token": token, "password": "hank's password" }))
        .expect_status(200)
        .await;
    let (status, body) = login(&app, "hank@studio.test", "hank's password").await;
    assert_eq!(status, 200, "{body}");
    let hank = body["token"].as_str().unwrap();
    let game = app
        .dashboard(Method::GET, &format!("/v1/games/{game_id}"), hank)
        .expect_status(200)
        .await;
    assert_eq!(game["role"], "editor");
}

/// The password hash stored for `email`, read behind the HTTP surface.
async fn stored_hash(app: &crate::helpers::TestApp, email: &str) -> String {
    use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
    entity::users::Entity::find()
        .filter(entity::users::Column::Email.eq(email))
        .one(&app.state.db)
        .await
        .unwrap()
        .expect("the account exists")
        .password_hash
        .expect("it has a password")
}

#[tokio::test]
async fn a_sign_in_moves_a_password_to_the_nodes_current_hash_cost() {
    // Arrange: an account whose password was hashed at the suite's cost (64 KiB, 1 pass), and
    // a node of the same instance set to a higher one.
    let old = spawn_app().await;
    old.register("uma@studio.test").await;
    assert!(stored_hash(&old, "uma@studio.test")
        .await
        .contains("m=64,t=1,p=1"));
    let new = crate::helpers::spawn_on(old.backend.clone(), |s| {
        s.password_hash_memory_kib = 256;
        s.password_hash_iterations = 2;
    })
    .await;

    // Act: a wrong password changes nothing; the right one signs in.
    assert_eq!(
        login(&new, "uma@studio.test", "not the password").await.0,
        401
    );
    let kept = stored_hash(&new, "uma@studio.test").await;
    let (status, body) = login(&new, "uma@studio.test", PASSWORD).await;

    // Assert: the hash is now the node's cost, and the password still works on either node.
    assert!(kept.contains("m=64,t=1,p=1"), "{kept}");
    assert_eq!(status, 200, "{body}");
    let moved = stored_hash(&new, "uma@studio.test").await;
    assert!(
        moved.starts_with("$argon2id$v=19$m=256,t=2,p=1$"),
        "{moved}"
    );
    assert_eq!(login(&new, "uma@studio.test", PASSWORD).await.0, 200);
    assert_eq!(login(&old, "uma@studio.test", PASSWORD).await.0, 200);
}
