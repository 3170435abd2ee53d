//! What a self-hoster meets when deploying: empty variables, closed sign-up, and invitations
//! without an SMTP server.
use crate::{
    events::durability::Server,
    helpers::{spawn_app, spawn_app_with, Backend, Fetch, PASSWORD},
    mail_sink::{token_in, MailSink},
};
use playtrace::cli::Registration;
use reqwest::Method;
use serde_json::json;

/// The binary on an empty database, as a new install starts it: its own pool runs every
/// migration (the tests' template databases are migrated on one plain connection, which once
/// hid a migration that failed on the binary's pooled SQLite connections), and it serves.
#[tokio::test]
async fn the_binary_migrates_an_empty_database_and_serves() {
    let backend = Backend::empty().await;
    let server = Server::start(&backend).await;
    let (status, registered) = reqwest::Client::new()
        .post(format!("{}/v1/auth/register", server.address))
        .json(&json!({ "email": "owner@studio.test", "password": PASSWORD }))
        .fetch()
        .await;
    assert_eq!(status, 201, "{registered}");
}

#[tokio::test]
async fn empty_variables_count_as_unset_and_invitation_links_reach_the_log() {
    let backend = Backend::fresh().await;
    let log = tempfile::NamedTempFile::new().unwrap();
    // As docker-compose writes `PLAYTRACE_SMTP_URL: ${PLAYTRACE_SMTP_URL:-}` when none is set.
    let server = Server::start_with(
        &backend,
        &[
            ("PLAYTRACE_SMTP_URL", ""),
            ("PLAYTRACE_PUBLIC_URL", ""),
            ("PLAYTRACE_JWT_SECRET", ""),
        ],
        Some(log.path()),
    )
    .await;
    let client = reqwest::Client::new();
    let base = &server.address;
    let (status, registered) = client
        .post(format!("{base}/v1/auth/register"))
        .json(&json!({ "email": "owner@studio.test", "password": PASSWORD }))
        .fetch()
        .await;
    assert_eq!(status, 201, "{registered}");
    let token = registered["token"].as_str().unwrap();
    let (_, game) = client
        .post(format!("{base}/v1/games"))
        .bearer_auth(token)
        .json(&json!({ "name": "Self-hosted" }))
        .fetch()
        .await;
    let game_id = game["game_id"].as_str().unwrap();
    let (status, body) = client
        .post(format!("{base}/v1/games/{game_id}/members"))
        .bearer_auth(token)
        .json(&json!({ "email": "teammate@studio.test", "role": "editor" }))
        .fetch()
        .await;
    assert_eq!(status, 201, "{body}");

    // The invitation's link is in the log (the mail is sent in the background)...
    let mut link = None;
    for _ in 0..50 {
        let text = std::fs::read_to_string(log.path()).unwrap();
        link = text
            .split_whitespace()
            .find_map(|word| word.strip_prefix("link="))
            .filter(|l| l.contains("/activate?token="))
            .map(str::to_string);
        if link.is_some() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let link = link.expect("the invitation link is logged");
    let log_text = std::fs::read_to_string(log.path()).unwrap();
    assert!(
        !log_text.contains("tokio_cron_scheduler"),
        "a start logs no line of the job scheduler's own: {log_text}"
    );
    // ...on the node's own address (an empty PLAYTRACE_PUBLIC_URL is the default), and its
    // token lets the teammate in.
    assert!(link.starts_with(&format!("{base}/")), "{link}");
    let token = link.rsplit("token=").next().unwrap();
    let (status, body) = client
        .post(format!("{base}/v1/auth/reset-password"))
        .json(&json!({ "token": token, "password": PASSWORD }))
        .fetch()
        .await;
    assert_eq!(status, 200, "{body}");
    let (status, _) = client
        .post(format!("{base}/v1/auth/login"))
        .json(&json!({ "email": "teammate@studio.test", "password": PASSWORD }))
        .fetch()
        .await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn closed_registration_admits_the_first_account_and_invitations_only() {
    let sink = MailSink::start();
    let app = spawn_app_with(|s| {
        s.registration = Registration::Closed;
        s.smtp_url = Some(sink.url.clone());
    })
    .await;
    let admin = app.new_user().await;

    let body = app
        .request(Method::POST, "/v1/auth/register")
        .json(&json!({ "email": "stranger@studio.test", "password": PASSWORD }))
        .expect_status(403)
        .await;
    assert_eq!(
        body["error"],
        "Registration is closed on this instance: ask an owner of a game to invite you"
    );

    // An invited teammate gets in through the invitation's token.
    let game_id = app.create_game(&admin).await;
    app.dashboard(
        Method::POST,
        &format!("/v1/games/{game_id}/members"),
        &admin,
    )
    .json(&json!({ "email": "invited@studio.test", "role": "viewer" }))
    .expect_status(201)
    .await;
    let token = token_in(&sink.wait_for("invited@studio.test").await);
    app.request(Method::POST, "/v1/auth/reset-password")
        .json(&json!({ "token": token, "password": PASSWORD }))
        .expect_status(200)
        .await;
}

#[tokio::test]
async fn json_logs_carry_one_access_line_per_request_without_colour_codes() {
    let backend = Backend::fresh().await;
    let log = tempfile::NamedTempFile::new().unwrap();
    let server = Server::start_with(
        &backend,
        &[("PLAYTRACE_LOG_FORMAT", "json")],
        Some(log.path()),
    )
    .await;
    let client = reqwest::Client::new();
    let response = client
        .get(format!("{}/v1/leaderboards/top", server.address))
        .header("x-game-api-key", "pt_not_a_key")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
    let request_id = response.headers()["x-request-id"]
        .to_str()
        .unwrap()
        .to_string();
    drop(server);
    let text = std::fs::read_to_string(log.path()).unwrap();
    assert!(!text.contains('\u{1b}'), "no colour codes in a log file");
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|line| {
            serde_json::from_str(line).unwrap_or_else(|_| panic!("not a JSON line: {line}"))
        })
        .collect();
    let access = lines
        .iter()
        .find(|line| {
            line["target"] == "playtrace::access" && line["request_id"] == request_id.as_str()
        })
        .unwrap_or_else(|| panic!("no access line for {request_id} in {text}"));
    assert_eq!(
        (
            access["level"].clone(),
            access["method"].clone(),
            access["path"].clone(),
            access["route"].clone(),
            access["status"].clone()
        ),
        (
            json!("INFO"),
            json!("GET"),
            json!("/v1/leaderboards/top"),
            json!("getLeaderboard"),
            json!(401)
        )
    );
    assert!(
        access["latency_ms"].as_f64().is_some_and(|ms| ms >= 0.0),
        "{access}"
    );
    assert!(access["timestamp"].is_string());
}

#[tokio::test]
async fn a_jwt_secret_under_32_bytes_is_refused_at_start() {
    let backend = Backend::fresh().await;
    let mut settings = backend.settings();
    settings.jwt_secret = Some("x".into());
    let error = match playtrace::app::Application::build(settings.clone()).await {
        Ok(_) => panic!("a one-character JWT secret was accepted"),
        Err(error) => error.to_string(),
    };
    assert!(
        error.contains("PLAYTRACE_JWT_SECRET") && error.contains("at least 32 bytes"),
        "{error}"
    );
    settings.jwt_secret = Some("s".repeat(32));
    assert!(playtrace::app::Application::build(settings).await.is_ok());
}

/// Without SMTP (or when the mail fails) the inviting owner gets the invitation's link in the
/// answer, and is told no mail went out; with SMTP the answer says the mail was sent and
/// carries no link (issue 27).
#[tokio::test]
async fn an_invitation_that_could_not_be_mailed_answers_its_link_to_the_owner() {
    // No SMTP server: the link, and "skipped".
    let app = spawn_app().await;
    let owner = app.new_user().await;
    let game_id = app.create_game(&owner).await;
    let (status, member) = invite(&app, &owner, &game_id, "ivy@studio.test").await;
    assert_eq!(status, 201, "{member}");
    assert_eq!(member["status"], "pending");
    assert_eq!(member["invitation_mail"], "skipped", "{member}");
    let link = member["invitation_link"]
        .as_str()
        .expect("the link")
        .to_string();
    assert!(
        link.starts_with(&format!("{}/activate?token=", app.address)),
        "{link}"
    );
    // The link lets the teammate in.
    let token = link.rsplit("token=").next().unwrap();
    app.request(Method::POST, "/v1/auth/reset-password")
        .json(&json!({ "token": token, "password": PASSWORD }))
        .expect_status(200)
        .await;
    // Listed members never carry it; an address with an account gets no invitation.
    let (_, list) = app
        .dashboard_call(Method::GET, &format!("/v1/games/{game_id}/members"), &owner)
        .await;
    for listed in list["members"].as_array().unwrap() {
        assert!(listed.get("invitation_link").is_none(), "{listed}");
    }
    let other = app.new_user().await;
    let (_, me) = app.dashboard_call(Method::GET, "/v1/auth/me", &other).await;
    let (status, member) = invite(&app, &owner, &game_id, me["email"].as_str().unwrap()).await;
    assert_eq!(status, 201, "{member}");
    assert!(member.get("invitation_link").is_none(), "{member}");
    assert!(member.get("invitation_mail").is_none(), "{member}");

    // SMTP: "sent", no link, and the mail is there.
    let sink = MailSink::start();
    let app = spawn_app_with(|s| s.smtp_url = Some(sink.url.clone())).await;
    let owner = app.new_user().await;
    let game_id = app.create_game(&owner).await;
    let (status, member) = invite(&app, &owner, &game_id, "jo@studio.test").await;
    assert_eq!(status, 201, "{member}");
    assert_eq!(member["invitation_mail"], "sent", "{member}");
    assert!(member.get("invitation_link").is_none(), "{member}");
    assert!(!token_in(&sink.wait_for("jo@studio.test").await).is_empty());

    // An SMTP server that is not there: "failed", and the link.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("smtp://{}", closed.local_addr().unwrap());
    drop(closed);
    let app = spawn_app_with(|s| s.smtp_url = Some(url)).await;
    let owner = app.new_user().await;
    let game_id = app.create_game(&owner).await;
    let (status, member) = invite(&app, &owner, &game_id, "kim@studio.test").await;
    assert_eq!(status, 201, "{member}");
    assert_eq!(member["invitation_mail"], "failed", "{member}");
    assert!(member["invitation_link"].is_string(), "{member}");
}

/// The owner invites `email` as an editor: status and answer.
async fn invite(
    app: &crate::helpers::TestApp,
    owner: &str,
    game_id: &str,
    email: &str,
) -> (u16, serde_json::Value) {
    app.dashboard_json(
        Method::POST,
        &format!("/v1/games/{game_id}/members"),
        owner,
        json!({ "email": email, "role": "editor" }),
    )
    .await
}
