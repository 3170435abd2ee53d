use crate::helpers::spawn_app;
use reqwest::Method;

#[tokio::test]
async fn probes_docs_and_spec_answer() {
    let app = spawn_app().await;

    let (status, body) = app.call(Method::GET, "/healthz").await;
    assert_eq!(status, 200);
    assert_eq!(body["status"], "ok");

    let (status, body) = app.call(Method::GET, "/readyz").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["cold_store"], true);
    assert_eq!(body["hot_store"], true);

    let (status, spec) = app.call(Method::GET, "/openapi.json").await;
    assert_eq!(status, 200);
    assert!(spec["paths"]["/v1/auth/register"].is_object());

    let (status, docs) = app.docs_page().await;
    assert_eq!(status, 200);
    assert!(docs.to_lowercase().contains("swagger"));
}

#[tokio::test]
async fn graceful_shutdown_stops_the_server() {
    let app = spawn_app().await;
    let url = app.url("/healthz");
    app.stop().await;
    let result = reqwest::get(url).await;
    assert!(result.is_err(), "server still answers after shutdown");
}
