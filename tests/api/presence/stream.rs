//! The dashboard's WebSocket feed of a game's presence: updates, clears and offline notices,
//! on every node, for members only.
use super::set_activity;
use crate::helpers::{services_backend, spawn_app, spawn_on, Fetch, TestApp};
use chrono::Duration;
use futures_util::StreamExt;
use reqwest::Method;
use serde_json::{json, Value};
use tokio_tungstenite::{
    connect_async,
    tungstenite::{client::IntoClientRequest, Message},
    MaybeTlsStream, WebSocketStream,
};

type Socket = WebSocketStream<MaybeTlsStream<tokio::net::TcpStream>>;

fn stream_url(app: &TestApp, query: &str) -> String {
    format!(
        "{}/v1/activity/stream{query}",
        app.address.replace("http://", "ws://")
    )
}

/// Opens the feed with the token in the Authorization header; the HTTP status on failure.
async fn open_stream(app: &TestApp, game_id: &str, token: Option<&str>) -> Result<Socket, u16> {
    let mut request = stream_url(app, &format!("?game_id={game_id}"))
        .into_client_request()
        .unwrap();
    if let Some(token) = token {
        request
            .headers_mut()
            .insert("authorization", format!("Bearer {token}").parse().unwrap());
    }
    connect(request).await
}

async fn connect(
    request: tokio_tungstenite::tungstenite::handshake::client::Request,
) -> Result<Socket, u16> {
    match connect_async(request).await {
        Ok((socket, response)) => {
            assert_eq!(response.status(), 101);
            Ok(socket)
        }
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            Err(response.status().as_u16())
        }
        Err(other) => panic!("websocket failed: {other}"),
    }
}

/// The next JSON message, skipping keep-alive frames; fails after `secs` seconds.
async fn next_message(socket: &mut Socket, secs: u64) -> Value {
    loop {
        let message = tokio::time::timeout(std::time::Duration::from_secs(secs), socket.next())
            .await
            .expect("a feed message in time")
            .expect("the feed is open")
            .expect("a readable frame");
        match message {
            Message::Text(text) => return serde_json::from_str(text.as_str()).unwrap(),
            Message::Ping(_) | Message::Pong(_) => continue,
            other => panic!("unexpected frame {other:?}"),
        }
    }
}

#[tokio::test]
async fn the_stream_pushes_updates_clears_and_offline_notices() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let mut socket = open_stream(&app, &game_id, Some(&token))
        .await
        .expect("member connects");

    set_activity(&app, &key, json!({ "player_id": "ana", "activity": "Raid", "details": { "boss": "kraken" }, "status": "playing" })).await;
    let updated = next_message(&mut socket, 5).await;
    assert_eq!(updated["type"], "activity.updated");
    assert_eq!(updated["player_id"], "ana");
    assert_eq!(updated["activity"], "Raid");
    assert_eq!(updated["details"], json!({ "boss": "kraken" }));
    assert_eq!(updated["status"], "playing");

    app.game(Method::DELETE, "/v1/activity", &key)
        .json(&json!({ "player_id": "ana" }))
        .send()
        .await
        .unwrap();
    let cleared = next_message(&mut socket, 5).await;
    assert_eq!(
        (cleared["type"].as_str(), cleared["player_id"].as_str()),
        (Some("activity.cleared"), Some("ana"))
    );

    set_activity(
        &app,
        &key,
        json!({ "player_id": "bob", "activity": "AFK", "status": "idle" }),
    )
    .await;
    assert_eq!(next_message(&mut socket, 5).await["player_id"], "bob");
    app.clock.advance(Duration::minutes(10));
    let offline = next_message(&mut socket, 10).await;
    assert_eq!(
        offline["type"], "presence.offline",
        "the worker notices the silence: {offline}"
    );
    assert_eq!(offline["player_id"], "bob");
    assert!(offline["last_updated"].as_str().unwrap().ends_with('Z'));
    socket.close(None).await.unwrap();
}

#[tokio::test]
async fn the_stream_takes_the_token_as_a_query_parameter_and_only_for_members() {
    let app = spawn_app().await;
    let _admin = app.new_user().await;
    let (token, game_id, key) = app.game_with_key().await;
    let other_game = app.create_game(&token).await;

    let request = stream_url(&app, &format!("?game_id={game_id}&access_token={token}"))
        .into_client_request()
        .unwrap();
    let mut socket = connect(request).await.expect("the query token is accepted");
    let mut other = open_stream(&app, &other_game, Some(&token)).await.unwrap();
    set_activity(
        &app,
        &key,
        json!({ "player_id": "ana", "activity": "Raid" }),
    )
    .await;
    assert_eq!(next_message(&mut socket, 5).await["player_id"], "ana");
    let stray = tokio::time::timeout(std::time::Duration::from_millis(500), other.next()).await;
    assert!(stray.is_err(), "another game's feed stays quiet: {stray:?}");

    let stranger = app.new_user().await;
    assert_eq!(
        open_stream(&app, &game_id, Some(&stranger)).await.err(),
        Some(403),
        "not a member"
    );
    assert_eq!(
        open_stream(&app, &game_id, None).await.err(),
        Some(401),
        "no token"
    );
    assert_eq!(
        open_stream(&app, &game_id, Some("not-a-jwt")).await.err(),
        Some(401),
        "bad token"
    );
    let request = stream_url(&app, "").into_client_request().unwrap();
    let mut request = request;
    request
        .headers_mut()
        .insert("authorization", format!("Bearer {token}").parse().unwrap());
    assert_eq!(connect(request).await.err(), Some(400), "missing game_id");
}

#[tokio::test]
async fn dashboards_on_any_node_see_updates_sent_to_another() {
    if !services_backend() {
        return; // Two in-process stores share nothing; this needs the Redis backend.
    }
    let node_a = spawn_app().await;
    let node_b = spawn_on(node_a.backend.clone(), |_| {}).await;
    let (token, game_id, key) = node_a.game_with_key().await;
    let mut on_a = open_stream(&node_a, &game_id, Some(&token)).await.unwrap();
    let mut on_b = open_stream(&node_b, &game_id, Some(&token)).await.unwrap();

    set_activity(
        &node_a,
        &key,
        json!({ "player_id": "ana", "activity": "Raid" }),
    )
    .await;
    set_activity(
        &node_b,
        &key,
        json!({ "player_id": "bob", "activity": "Shop" }),
    )
    .await;
    for socket in [&mut on_a, &mut on_b] {
        let first = next_message(socket, 5).await;
        let second = next_message(socket, 5).await;
        assert_eq!(
            (first["player_id"].as_str(), second["player_id"].as_str()),
            (Some("ana"), Some("bob"))
        );
    }
    let (_, live) = node_b
        .dashboard_call(
            Method::GET,
            &format!("/v1/activity/live?game_id={game_id}"),
            &token,
        )
        .await;
    assert_eq!(
        live.as_array().unwrap().len(),
        2,
        "every node reads the same presence"
    );

    // Both nodes run the offline check; each dashboard still hears about bob exactly once.
    node_a.clock.advance(Duration::minutes(10));
    node_b.clock.advance(Duration::minutes(10));
    for socket in [&mut on_a, &mut on_b] {
        let mut offline = vec![
            next_message(socket, 10).await,
            next_message(socket, 10).await,
        ];
        offline.sort_by_key(|m| m["player_id"].as_str().unwrap().to_string());
        assert!(
            offline.iter().all(|m| m["type"] == "presence.offline"),
            "{offline:?}"
        );
        assert_eq!(
            (
                offline[0]["player_id"].as_str(),
                offline[1]["player_id"].as_str()
            ),
            (Some("ana"), Some("bob"))
        );
        let duplicate =
            tokio::time::timeout(std::time::Duration::from_millis(2500), socket.next()).await;
        assert!(duplicate.is_err(), "no second announcement: {duplicate:?}");
    }
}

/// Waits for the server to close the feed; returns the close code.
async fn closed(socket: &mut Socket, secs: u64) -> u16 {
    loop {
        let frame = tokio::time::timeout(std::time::Duration::from_secs(secs), socket.next())
            .await
            .expect("the feed closes in time");
        match frame {
            Some(Ok(Message::Close(Some(close)))) => return u16::from(close.code),
            Some(Ok(Message::Close(None))) | None | Some(Err(_)) => return 1005,
            Some(Ok(_)) => continue,
        }
    }
}

#[tokio::test]
async fn losing_access_closes_the_stream_on_every_node() {
    let app = spawn_app().await;
    let _admin = app.new_user().await;
    let owner = app.new_user().await;
    let game_id = app.create_game(&owner).await;
    let key = app.create_key(&owner, &game_id, "production").await;
    let (viewer, viewer_id) = app.new_member(&owner, &game_id, "viewer").await;

    // With Redis the viewer watches through another node than the one the change is made on.
    let other = match services_backend() {
        true => Some(spawn_on(app.backend.clone(), |_| {}).await),
        false => None,
    };
    let viewer_node = other.as_ref().unwrap_or(&app);
    let mut watching = open_stream(viewer_node, &game_id, Some(&viewer))
        .await
        .expect("the viewer connects");
    let mut owning = open_stream(&app, &game_id, Some(&owner))
        .await
        .expect("the owner connects");

    let (status, _) = app
        .dashboard_call(
            Method::DELETE,
            &format!("/v1/games/{game_id}/members/{viewer_id}"),
            &owner,
        )
        .await;
    assert_eq!(status, 204);
    assert_eq!(closed(&mut watching, 5).await, 1008, "policy violation");
    match open_stream(viewer_node, &game_id, Some(&viewer)).await {
        Err(status) => assert_eq!(status, 403),
        Ok(_) => panic!("a removed member must not reconnect"),
    }

    // Everyone else's feed goes on, and the revocation itself never reaches a dashboard.
    set_activity(
        &app,
        &key,
        json!({ "player_id": "ana", "activity": "Raid" }),
    )
    .await;
    let updated = next_message(&mut owning, 5).await;
    assert_eq!(
        (updated["type"].as_str(), updated["player_id"].as_str()),
        (Some("activity.updated"), Some("ana"))
    );

    app.dashboard(Method::DELETE, &format!("/v1/games/{game_id}"), &owner)
        .expect_status(204)
        .await;
    assert_eq!(closed(&mut owning, 5).await, 1008);
}

#[tokio::test]
async fn one_user_holds_at_most_the_capped_number_of_feeds_and_a_closed_one_frees_its_slot() {
    let app = crate::helpers::spawn_app_with(|settings| settings.max_feeds_per_user = 3).await;
    let _admin = app.new_user().await;
    let (token, game_id, _key) = app.game_with_key().await;
    let mut feeds = Vec::new();
    for _ in 0..3 {
        feeds.push(open_stream(&app, &game_id, Some(&token)).await.unwrap());
    }
    // The fourth of the same user is refused before the upgrade, on any game of theirs.
    let other_game = app.create_game(&token).await;
    assert_eq!(
        open_stream(&app, &game_id, Some(&token)).await.err(),
        Some(429)
    );
    assert_eq!(
        open_stream(&app, &other_game, Some(&token)).await.err(),
        Some(429)
    );
    // What the refusal says (a WebSocket handshake, as a browser sends it).
    // The cap is per node: this asks the node the feeds above went to.
    let (status, body) = app
        .client
        .get(format!(
            "{}/v1/activity/stream?game_id={game_id}",
            app.address
        ))
        .bearer_auth(&token)
        .header("connection", "Upgrade")
        .header("upgrade", "websocket")
        .header("sec-websocket-version", "13")
        .header("sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ==")
        .fetch()
        .await;
    assert_eq!(status, 429, "{body}");
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("at most 3 per user"),
        "{body}"
    );
    // Another member of the same game is not held back by it.
    let (member, _) = app.new_member(&token, &game_id, "viewer").await;
    let mut theirs = open_stream(&app, &game_id, Some(&member)).await.unwrap();

    // A feed the dashboard closes gives its slot back.
    let mut closed = feeds.pop().unwrap();
    closed.close(None).await.unwrap();
    let mut reopened = None;
    for _ in 0..50 {
        if let Ok(socket) = open_stream(&app, &game_id, Some(&token)).await {
            reopened = Some(socket);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let mut reopened = reopened.expect("a slot is free again once a feed closed");
    reopened.close(None).await.unwrap();
    theirs.close(None).await.unwrap();
}
