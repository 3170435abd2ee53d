//! CORS: browser games call the game-side routes from the origins their game allows; the
//! dashboard routes answer only the node's own origin.
use crate::{
    helpers::{read, spawn_app, TestApp},
    nodes::holds_within_a_second,
};
use reqwest::{header, Method};
use serde_json::{json, Value};

const GAME_SITE: &str = "https://mygame.example.com";

async fn set_origins(app: &TestApp, token: &str, game_id: &str, origins: Value) -> (u16, Value) {
    app.dashboard_json(
        Method::PATCH,
        &format!("/v1/games/{game_id}"),
        token,
        json!({ "allowed_origins": origins }),
    )
    .await
}

fn allowed_origin(response: &reqwest::Response) -> Option<String> {
    response
        .headers()
        .get(header::ACCESS_CONTROL_ALLOW_ORIGIN)
        .map(|v| v.to_str().unwrap().to_string())
}

#[tokio::test]
async fn a_game_route_preflight_is_answered_for_any_origin() {
    let app = spawn_app().await;
    let response = app
        .request(Method::OPTIONS, "/v1/track")
        .header(header::ORIGIN, "https://anyone.example")
        .header(header::ACCESS_CONTROL_REQUEST_METHOD, "POST")
        .header(
            header::ACCESS_CONTROL_REQUEST_HEADERS,
            "content-type, x-game-api-key",
        )
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 204);
    assert_eq!(
        allowed_origin(&response).as_deref(),
        Some("https://anyone.example")
    );
    let allowed_headers = response.headers()[header::ACCESS_CONTROL_ALLOW_HEADERS]
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        allowed_headers.contains("x-game-api-key"),
        "{allowed_headers}"
    );
}

#[tokio::test]
async fn browser_requests_are_served_only_from_the_origins_the_game_allows() {
    let app = spawn_app().await;
    let (token, game_id, key) = app.game_with_key().await;
    let track = |origin: Option<&'static str>| {
        let mut request = app
            .game(Method::POST, "/v1/track", &key)
            .json(&json!({ "event_name": "open", "session_id": "s" }));
        if let Some(origin) = origin {
            request = request.header(header::ORIGIN, origin);
        }
        request.send()
    };

    // By default no web origin may use the key; native clients send no Origin and are served.
    let refused = track(Some(GAME_SITE)).await.unwrap();
    assert_eq!(refused.status(), 403);
    let (_, body) = read(refused).await;
    assert_eq!(
        body["error"],
        "This origin is not allowed for this game (allowed_origins)"
    );
    assert_eq!(track(None).await.unwrap().status(), 202);

    let (status, game) = set_origins(&app, &token, &game_id, json!([GAME_SITE])).await;
    assert_eq!(status, 200, "{game}");
    assert_eq!(game["allowed_origins"], json!([GAME_SITE]));

    // With two nodes, the other one applies the change within a second.
    holds_within_a_second("allowed origin", || async {
        track(Some(GAME_SITE)).await.unwrap().status() == 202
    })
    .await;
    let served = track(Some(GAME_SITE)).await.unwrap();
    assert_eq!(served.status(), 202);
    assert_eq!(allowed_origin(&served).as_deref(), Some(GAME_SITE));
    let exposed = served.headers()[header::ACCESS_CONTROL_EXPOSE_HEADERS]
        .to_str()
        .unwrap()
        .to_string();
    assert!(exposed.contains("retry-after"), "{exposed}");
    let other = track(Some("https://copycat.example")).await.unwrap();
    assert_eq!(other.status(), 403);
    assert_eq!(allowed_origin(&other), None);

    // Only the 3 requests that were allowed in were stored.
    let stored = crate::events::stored(&app, &game_id).await;
    assert_eq!(stored.len(), 3);

    let (status, _) = set_origins(&app, &token, &game_id, json!(["*"])).await;
    assert_eq!(status, 200);
    holds_within_a_second("any origin", || async {
        track(Some("https://copycat.example"))
            .await
            .unwrap()
            .status()
            == 202
    })
    .await;
    let anyone = track(Some("https://copycat.example")).await.unwrap();
    assert_eq!(anyone.status(), 202);
    assert_eq!(
        allowed_origin(&anyone).as_deref(),
        Some("https://copycat.example")
    );
}

#[tokio::test]
async fn allowed_origins_must_be_origins() {
    let app = spawn_app().await;
    let (token, game_id, _key) = app.game_with_key().await;
    let too_many: Vec<String> = (0..21).map(|i| format!("https://g{i}.example")).collect();
    for (origins, why) in [
        (json!(["https://mygame.example.com/play"]), "a path"),
        (json!(["https://mygame.example.com/"]), "a trailing slash"),
        (json!(["mygame.example.com"]), "no scheme"),
        (json!(["ftp://mygame.example.com"]), "not http(s)"),
        (json!(too_many), "more than 20"),
    ] {
        let (status, body) = set_origins(&app, &token, &game_id, origins).await;
        assert_eq!(status, 400, "{why}: {body}");
        assert!(
            body["error"].as_str().unwrap().contains("allowed_origins"),
            "{why}: {body}"
        );
    }
    let (status, game) = set_origins(
        &app,
        &token,
        &game_id,
        json!(["http://localhost:5173", "https://mygame.example.com"]),
    )
    .await;
    assert_eq!(status, 200, "{game}");
    let (status, game) = set_origins(&app, &token, &game_id, json!([])).await;
    assert_eq!((status, game["allowed_origins"].clone()), (200, json!([])));
}

#[tokio::test]
async fn dashboard_routes_answer_only_the_nodes_own_origin() {
    let app = spawn_app().await;
    let token = app.new_user().await;
    let preflight = |origin: String| {
        app.request(Method::OPTIONS, "/v1/games")
            .header(header::ORIGIN, origin)
            .header(header::ACCESS_CONTROL_REQUEST_METHOD, "POST")
            .header(header::ACCESS_CONTROL_REQUEST_HEADERS, "authorization")
            .send()
    };
    let foreign = preflight("https://evil.example".into()).await.unwrap();
    assert_eq!(allowed_origin(&foreign), None);
    let own = preflight(app.address.clone()).await.unwrap();
    assert_eq!(allowed_origin(&own).as_deref(), Some(app.address.as_str()));

    let listed = app
        .dashboard(Method::GET, "/v1/games", &token)
        .header(header::ORIGIN, "https://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(
        allowed_origin(&listed),
        None,
        "the browser keeps the answer from evil.example"
    );
}
