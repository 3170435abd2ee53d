//! Black-box tests of resending an invitation (`POST
//! /v1/games/{game_id}/members/{user_id}/invitation`): a new link replaces the old one, the
//! owner gets it when no mail goes out, and an address is not mailed more than once in 5
//! minutes.
use crate::helpers::{spawn_app, spawn_app_with, Fetch, TestApp, PASSWORD};
use crate::mail_sink::{token_in, MailSink};
use reqwest::Method;
use serde_json::{json, Value};

/// Invites `email` as an editor; returns the answer (201).
async fn invite(app: &TestApp, owner: &str, game_id: &str, email: &str) -> Value {
    app.dashboard(Method::POST, &format!("/v1/games/{game_id}/members"), owner)
        .json(&json!({ "email": email, "role": "editor" }))
        .expect_status(201)
        .await
}

fn resend_path(game_id: &str, member: &Value) -> String {
    format!(
        "/v1/games/{game_id}/members/{}/invitation",
        member["user_id"].as_str().unwrap()
    )
}

fn token_of(link: &Value) -> String {
    link.as_str()
        .unwrap()
        .rsplit("token=")
        .next()
        .unwrap()
        .to_string()
}

#[tokio::test]
async fn without_smtp_a_resent_invitation_answers_a_new_link_and_the_old_one_stops_working() {
    let app = spawn_app().await;
    let owner = app.new_user().await;
    let game_id = app.create_game(&owner).await;
    let member = invite(&app, &owner, &game_id, "ivy@studio.test").await;
    let old = token_of(&member["invitation_link"]);

    let resent = app
        .dashboard(Method::POST, &resend_path(&game_id, &member), &owner)
        .expect_status(200)
        .await;
    assert_eq!(resent["email"], "ivy@studio.test");
    assert_eq!(resent["status"], "pending");
    assert_eq!(resent["role"], "editor");
    assert_eq!(resent["invitation_mail"], "skipped", "{resent}");
    let new = token_of(&resent["invitation_link"]);
    assert_ne!(new, old);
    // Again at once: no mail goes out without SMTP, so nothing to wait for.
    let again = app
        .dashboard(Method::POST, &resend_path(&game_id, &member), &owner)
        .expect_status(200)
        .await;
    let newest = token_of(&again["invitation_link"]);

    for token in [&old, &new] {
        app.request(Method::POST, "/v1/auth/reset-password")
            .json(&json!({ "token": token, "password": PASSWORD }))
            .expect_status(400)
            .await;
    }
    app.request(Method::POST, "/v1/auth/reset-password")
        .json(&json!({ "token": newest, "password": PASSWORD }))
        .expect_status(200)
        .await;

    // Active now: nothing to resend.
    let refused = app
        .dashboard(Method::POST, &resend_path(&game_id, &member), &owner)
        .expect_status(409)
        .await;
    assert_eq!(
        refused["error"],
        "This member has already set a password: there is no invitation to resend"
    );
}

#[tokio::test]
async fn with_smtp_the_resent_invitation_is_mailed_at_most_once_in_five_minutes() {
    let sink = MailSink::start();
    let app = spawn_app_with(|s| s.smtp_url = Some(sink.url.clone())).await;
    let owner = app.new_user().await;
    let game_id = app.create_game(&owner).await;
    let member = invite(&app, &owner, &game_id, "jo@studio.test").await;
    let first = token_in(&sink.wait_for("jo@studio.test").await);

    // The invitation itself just went out.
    let refused = app
        .dashboard(Method::POST, &resend_path(&game_id, &member), &owner)
        .expect_status(429)
        .await;
    assert!(
        refused["error"]
            .as_str()
            .unwrap()
            .starts_with("An invitation e-mail went to this address less than 5 minutes ago"),
        "{refused}"
    );
    assert_eq!(sink.messages().len(), 1);

    app.clock.advance(chrono::Duration::minutes(6));
    let resent = app
        .dashboard(Method::POST, &resend_path(&game_id, &member), &owner)
        .expect_status(200)
        .await;
    assert_eq!(resent["invitation_mail"], "sent", "{resent}");
    assert!(resent.get("invitation_link").is_none(), "{resent}");
    let mails = sink.messages();
    assert_eq!(mails.len(), 2);
    let second = token_in(&mails[1]);
    assert_ne!(first, second);
    assert!(mails[1].data.contains("invited you"), "{}", mails[1].data);
}

#[tokio::test]
async fn only_an_owner_resends_and_only_to_a_member_of_the_game() {
    let app = spawn_app().await;
    let owner = app.new_user().await;
    let game_id = app.create_game(&owner).await;
    let member = invite(&app, &owner, &game_id, "kim@studio.test").await;
    let (editor, _) = app.new_member(&owner, &game_id, "editor").await;
    app.dashboard(Method::POST, &resend_path(&game_id, &member), &editor)
        .expect_status(403)
        .await;

    // Another game's owner cannot reach this game's invitee through their own game.
    let other_owner = app.new_user().await;
    let other_game = app.create_game(&other_owner).await;
    let missing = app
        .dashboard(
            Method::POST,
            &resend_path(&other_game, &member),
            &other_owner,
        )
        .expect_status(404)
        .await;
    assert_eq!(missing["error"], "No such member");
}
