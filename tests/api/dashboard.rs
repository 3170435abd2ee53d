//! The web dashboard served at `/`: its files with the right types and cache headers, the app's
//! page for its own routes (and e-mailed links), the API's paths untouched.
use crate::helpers::spawn_app;
use reqwest::{header, Method};

#[tokio::test]
async fn the_dashboard_is_served_at_the_root_and_for_its_own_routes() {
    let app = spawn_app().await;
    let client = reqwest::Client::new();
    let page = |path: &str| client.get(app.url(path)).send();

    let index = page("/").await.unwrap();
    assert_eq!(index.status(), 200);
    assert_eq!(index.headers()[header::CONTENT_TYPE], "text/html");
    assert_eq!(index.headers()[header::CACHE_CONTROL], "no-cache");
    assert_eq!(index.headers()["referrer-policy"], "no-referrer");
    assert!(index.headers()[header::CONTENT_SECURITY_POLICY]
        .to_str()
        .unwrap()
        .contains("default-src 'self'"));
    let html = index.text().await.unwrap();
    assert!(html.contains(r#"<div id="root"></div>"#), "{html}");

    // Client-side routes, as a reload or an e-mailed link opens them, get the same page.
    for path in [
        "/sign-in",
        "/reset-password?token=abc",
        "/activate?token=abc",
        "/games/3f1c/settings/keys",
    ] {
        let response = page(path).await.unwrap();
        assert_eq!(response.status(), 200, "{path}");
        assert_eq!(response.text().await.unwrap(), html, "{path}");
    }

    // The hashed bundle the page names is cached for good, with its own content type.
    let script = html
        .split('"')
        .find(|part| part.starts_with("/assets/") && part.ends_with(".js"))
        .expect("index.html names its script");
    let response = page(script).await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()[header::CONTENT_TYPE], "text/javascript");
    assert_eq!(
        response.headers()[header::CACHE_CONTROL],
        "public, max-age=31536000, immutable"
    );
    let etag = response.headers()[header::ETAG].clone();
    let again = client
        .get(app.url(script))
        .header(header::IF_NONE_MATCH, etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 304, "a cached copy is revalidated by ETag");

    // Compressed copies made at build time, the best one the browser takes.
    let plain = page(script).await.unwrap().bytes().await.unwrap().len();
    for (accept, expected) in [
        ("gzip, deflate, br", Some("br")),
        ("gzip", Some("gzip")),
        ("br;q=0, gzip;q=0.5", Some("gzip")),
        ("identity", None),
    ] {
        let answer = client
            .get(app.url(script))
            .header(header::ACCEPT_ENCODING, accept)
            .send()
            .await
            .unwrap();
        let encoding = answer.headers().get(header::CONTENT_ENCODING).cloned();
        assert_eq!(answer.headers()[header::VARY], "accept-encoding");
        assert_eq!(answer.headers()[header::CONTENT_TYPE], "text/javascript");
        assert_eq!(
            encoding.as_ref().map(|v| v.to_str().unwrap()),
            expected,
            "{accept}"
        );
        let size = answer.bytes().await.unwrap().len();
        if expected.is_some() {
            assert!(size * 2 < plain, "{accept}: {size} of {plain} bytes");
        }
    }

    // The app's page for a client route comes compressed too.
    let route = client
        .get(app.url("/games/3f1c"))
        .header(header::ACCEPT_ENCODING, "br")
        .send()
        .await
        .unwrap();
    assert_eq!(route.headers()[header::CONTENT_ENCODING], "br");
    assert_eq!(route.headers()[header::CONTENT_TYPE], "text/html");

    // A missing file is a 404, not the app's page.
    assert_eq!(page("/assets/nope-123.js").await.unwrap().status(), 404);
    assert_eq!(page("/favicon.svg").await.unwrap().status(), 200);
}

#[tokio::test]
async fn the_api_paths_are_untouched_by_the_dashboard() {
    let app = spawn_app().await;
    let (status, body) = app.call(Method::GET, "/v1/nothing-here").await;
    assert_eq!(status, 404);
    assert!(body["error"].is_string(), "{body}");
    let (status, body) = app.call(Method::GET, "/healthz").await;
    assert_eq!((status, body["status"].as_str()), (200, Some("ok")));
    let (status, spec) = app.call(Method::GET, "/openapi.json").await;
    assert_eq!(status, 200);
    assert!(spec["paths"].is_object());
    let (_, docs) = app.docs_page().await;
    assert!(docs.to_lowercase().contains("swagger"));
    // Other methods on the dashboard's paths are the API's (JSON errors).
    let (status, body) = app.call(Method::POST, "/games").await;
    assert_eq!(status, 404, "{body}");
    assert!(body["error"].is_string(), "{body}");
}

#[tokio::test]
async fn a_node_serves_another_build_from_a_folder_without_leaving_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("assets")).unwrap();
    std::fs::write(dir.path().join("index.html"), "<p>local build</p>").unwrap();
    std::fs::write(dir.path().join("assets/app-1.css"), "p{}").unwrap();
    let app = crate::helpers::spawn_app_with(|settings| {
        settings.dashboard_dir = Some(dir.path().to_path_buf());
    })
    .await;
    let get = |path: &str| reqwest::get(app.url(path));
    let index = get("/games").await.unwrap();
    assert_eq!(index.text().await.unwrap(), "<p>local build</p>");
    let css = get("/assets/app-1.css").await.unwrap();
    assert_eq!(css.headers()[header::CONTENT_TYPE], "text/css");
    // Clients tidy `..` away before sending; a raw request keeps it, and gets nothing outside.
    for path in ["/assets/../../Cargo.toml", "/assets/..%2f..%2fCargo.toml"] {
        let head = raw_get(&app.address, path).await;
        assert!(head.starts_with("HTTP/1.1 404"), "{path}: {head}");
    }
}

/// The status line of a GET sent as written, without a client normalising the path.
async fn raw_get(address: &str, path: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let host = address.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(host).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.unwrap();
    answer.lines().next().unwrap_or_default().to_string()
}

/// The policy a page of the node's origin is served with, as directives by name.
fn directives(response: &reqwest::Response) -> std::collections::HashMap<String, String> {
    response.headers()[header::CONTENT_SECURITY_POLICY]
        .to_str()
        .unwrap()
        .split(';')
        .filter_map(|directive| {
            let directive = directive.trim();
            let (name, value) = directive.split_once(' ').unwrap_or((directive, ""));
            (!name.is_empty()).then(|| (name.to_string(), value.to_string()))
        })
        .collect()
}

#[tokio::test]
async fn the_api_docs_page_runs_only_its_own_scripts_talks_only_to_its_origin_and_cannot_be_framed()
{
    let app = spawn_app().await;
    let docs = reqwest::get(app.url("/docs")).await.unwrap();
    assert_eq!(docs.status(), 200);
    assert_eq!(docs.headers()[header::X_FRAME_OPTIONS], "DENY");
    assert_eq!(docs.headers()[header::X_CONTENT_TYPE_OPTIONS], "nosniff");
    let policy = directives(&docs);
    assert_eq!(policy["default-src"], "'none'");
    assert_eq!(policy["connect-src"], "'self'");
    assert_eq!(policy["frame-ancestors"], "'none'");
    // Scripts by hash only: every inline script of the page is listed, nothing else runs.
    let scripts = &policy["script-src"];
    assert!(
        scripts
            .split(' ')
            .all(|source| source.starts_with("'sha256-")),
        "{scripts}"
    );
    let html = docs.text().await.unwrap();
    assert_eq!(
        scripts.split(' ').count(),
        html.matches("</script>").count(),
        "one hash per inline script"
    );
    assert!(
        html.contains("SwaggerUIBundle"),
        "the page is the Swagger UI"
    );
}

#[tokio::test]
async fn the_dashboards_policy_opens_sockets_and_requests_to_its_own_origin_only() {
    let app = spawn_app().await;
    let index = reqwest::get(app.url("/")).await.unwrap();
    let policy = directives(&index);
    // 'self' covers the live feed's ws:// or wss:// on the same host; any other host is out.
    assert_eq!(policy["connect-src"], "'self'");
    assert_eq!(policy["frame-ancestors"], "'none'");
    assert_eq!(policy["script-src"], "'self'");
}
