//! `spawn_app()` and the `TestApp` helpers every suite uses.
use crate::{pg_template, sqlite_template};
use playtrace::{
    app::Application,
    cli::Settings,
    clock::{Clock, OffsetClock},
    state::AppState,
};
use reqwest::{Method, RequestBuilder, Response};
use serde_json::{json, Value};
use std::sync::Arc;
use uuid::Uuid;

pub const PASSWORD: &str = "correct horse battery";

/// Which backend the suite runs on: `embedded` (SQLite + in-process) unless
/// `PLAYTRACE_TEST_BACKEND=services` (PostgreSQL + Redis).
pub fn services_backend() -> bool {
    std::env::var("PLAYTRACE_TEST_BACKEND").is_ok_and(|v| v == "services")
}

pub fn postgres_admin_url() -> String {
    std::env::var("PLAYTRACE_TEST_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432".into())
}

/// The URL of `database` on the test server. Without TLS, as the local server runs: sqlx 0.9
/// otherwise asks for TLS first, and over TCP that question costs each new connection about
/// 90 ms (its next write waits on the delayed ACK, Nagle's algorithm still being on), which
/// was most of a test's start on this backend (docs/testing.md).
pub fn postgres_url(database: &str) -> String {
    format!("{}/{database}?sslmode=disable", postgres_admin_url())
}

pub fn redis_url() -> String {
    std::env::var("PLAYTRACE_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into())
}

/// Where one test's data lives: a fresh SQLite file, or a fresh PostgreSQL database plus a
/// fresh Redis key prefix. Two apps built from one `Backend` share everything, like two nodes.
#[derive(Clone)]
pub struct Backend {
    pub database_url: String,
    pub redis_url: Option<String>,
    pub redis_prefix: String,
    _dir: Option<Arc<tempfile::TempDir>>,
}

impl Backend {
    /// A backend migrated from the suite's template (a copy, or PostgreSQL's `TEMPLATE`).
    pub async fn fresh() -> Self {
        Self::new(true).await
    }

    /// A backend with nothing in it (no migration run): what a new install starts on.
    pub async fn empty() -> Self {
        Self::new(false).await
    }

    async fn new(migrated: bool) -> Self {
        let id = Uuid::new_v4().simple().to_string();
        if services_backend() {
            let name = format!("pt_test_{id}");
            let mut create = format!("CREATE DATABASE {name}");
            if migrated {
                let template = pg_template::migrated_template().await;
                create.push_str(&format!(" TEMPLATE {template}"));
            }
            let db = sea_orm::Database::connect(postgres_url("postgres"))
                .await
                .expect("PostgreSQL is reachable");
            sea_orm::ConnectionTrait::execute_unprepared(&db, &create)
                .await
                .expect("create test database");
            db.close().await.ok();
            Self {
                database_url: postgres_url(&name),
                redis_url: Some(redis_url()),
                redis_prefix: format!("pt-test:{id}:"),
                _dir: None,
            }
        } else {
            let dir = tempfile::tempdir().expect("temp dir");
            let path = dir.path().join("playtrace.db");
            if migrated {
                sqlite_template::copy_migrated_to(&path).await;
            }
            Self {
                database_url: format!("sqlite://{}?mode=rwc", path.display()),
                redis_url: None,
                redis_prefix: format!("pt-test:{id}:"),
                _dir: Some(Arc::new(dir)),
            }
        }
    }

    pub fn settings(&self) -> Settings {
        let mut settings = Settings::defaults();
        settings.listen = "127.0.0.1:0".into();
        settings.database_url = self.database_url.clone();
        settings.redis_url = self.redis_url.clone();
        settings.redis_prefix = self.redis_prefix.clone();
        settings.db_max_connections = 5;
        // A real argon2id hash at a test suite's cost (Django's and Rails' suites do the
        // same): at OWASP's 19 MiB x 2 passes, hashing was 60% of the suite's CPU. The tests
        // of the hashing pool and of answer times set the production cost back (`owasp_cost`).
        settings.password_hash_memory_kib = 64;
        settings.password_hash_iterations = 1;
        // Every test's requests come from 127.0.0.1; the throttle's own tests set it back.
        settings.registrations_per_hour = 10_000;
        settings
    }
}

/// Puts back the production cost of a password hash, for a test whose meaning depends on the
/// time a hash takes.
pub fn owasp_cost(settings: &mut Settings) {
    let cost = playtrace::auth::password::Cost::OWASP;
    settings.password_hash_memory_kib = cost.memory_kib;
    settings.password_hash_iterations = cost.iterations;
}

pub struct TestApp {
    /// The first node's address (see `url` for where requests go).
    pub address: String,
    pub client: reqwest::Client,
    pub clock: Arc<OffsetClock>,
    /// The node's state, for tests that look behind the HTTP surface.
    #[allow(dead_code)]
    pub state: AppState,
    pub backend: Backend,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    handle: Option<tokio::task::JoinHandle<()>>,
    /// With `PLAYTRACE_TEST_NODES=2`: a second node on the same stores and clock; requests
    /// alternate between the two.
    second: Option<Box<TestApp>>,
    turn: std::sync::atomic::AtomicUsize,
}

/// How many nodes `spawn_app` starts: `PLAYTRACE_TEST_NODES` (1 or 2; 2 needs the services
/// backend, where nodes share PostgreSQL and Redis).
fn nodes() -> usize {
    let wanted = std::env::var("PLAYTRACE_TEST_NODES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1);
    if wanted > 1 && services_backend() {
        2
    } else {
        1
    }
}

pub async fn spawn_app() -> TestApp {
    spawn_app_with(|_| {}).await
}

/// Starts the app on a fresh backend: one node, or two behind the same `TestApp` (requests
/// alternating between them) with `PLAYTRACE_TEST_NODES=2` on the services backend.
pub async fn spawn_app_with(customize: impl FnOnce(&mut Settings)) -> TestApp {
    let backend = Backend::fresh().await;
    let mut settings = backend.settings();
    customize(&mut settings);
    let clock = OffsetClock::new();
    let mut app = start_node(backend.clone(), settings.clone(), clock.clone()).await;
    if nodes() == 2 {
        // One public URL for the deployment, as behind a load balancer.
        let mut settings = settings;
        settings
            .public_url
            .get_or_insert_with(|| app.address.clone());
        app.second = Some(Box::new(start_node(backend, settings, clock).await));
    }
    app
}

/// Starts a node on an existing backend (a second node shares the first one's data).
pub async fn spawn_on(backend: Backend, customize: impl FnOnce(&mut Settings)) -> TestApp {
    let mut settings = backend.settings();
    customize(&mut settings);
    start_node(backend, settings, OffsetClock::new()).await
}

async fn start_node(backend: Backend, settings: Settings, clock: Arc<OffsetClock>) -> TestApp {
    let app = Application::build_with_clock(settings, clock.clone())
        .await
        .expect("application builds");
    let address = format!("http://127.0.0.1:{}", app.port());
    let state = app.state().clone();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let handle = tokio::spawn(async move {
        app.run_until(async move {
            let _ = stopped.await;
        })
        .await
        .expect("server runs");
    });
    TestApp {
        address,
        client: reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap(),
        clock,
        state,
        backend,
        stop: Some(stop),
        handle: Some(handle),
        second: None,
        turn: Default::default(),
    }
}

impl TestApp {
    /// Moves the app's clock (every node's: they share it) past the next minute boundary when
    /// one is less than 20 seconds away, so that a test counting requests against a per-minute
    /// limit runs inside one fixed window.
    pub fn away_from_a_minute_boundary(&self) {
        self.away_from_a_minute_boundary_with(&[]);
    }

    /// The same for this node and `others` (nodes started with `spawn_on`, each with its own
    /// clock): every clock moves by the same amount, so the nodes keep agreeing on the minute.
    pub fn away_from_a_minute_boundary_with(&self, others: &[&TestApp]) {
        let second_of_minute = self.clock.now().timestamp().rem_euclid(60);
        if second_of_minute > 40 {
            let step = chrono::Duration::seconds(62 - second_of_minute);
            self.clock.advance(step);
            for other in others {
                other.clock.advance(step);
            }
        }
    }

    /// Where the next request goes: the first node, or each node in turn when there are two.
    pub fn url(&self, path: &str) -> String {
        let address = match &self.second {
            Some(second)
                if self.turn.fetch_add(1, std::sync::atomic::Ordering::Relaxed) % 2 == 1 =>
            {
                &second.address
            }
            _ => &self.address,
        };
        format!("{address}{path}")
    }

    pub fn request(&self, method: Method, path: &str) -> RequestBuilder {
        self.client.request(method, self.url(path))
    }

    /// A request as the dashboard makes it.
    pub fn dashboard(&self, method: Method, path: &str, token: &str) -> RequestBuilder {
        self.request(method, path).bearer_auth(token)
    }

    /// A request as the dashboard makes it, or with no credentials when `token` is `None`.
    pub fn dashboard_or_anonymous(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
    ) -> RequestBuilder {
        match token {
            Some(token) => self.dashboard(method, path, token),
            None => self.request(method, path),
        }
    }

    /// A request as a game client makes it.
    pub fn game(&self, method: Method, path: &str, api_key: &str) -> RequestBuilder {
        self.request(method, path).header("x-game-api-key", api_key)
    }

    /// A request as a game client makes it for a signed-in player: the key and a player token.
    pub fn player(&self, method: Method, path: &str, api_key: &str, token: &str) -> RequestBuilder {
        self.game(method, path, api_key)
            .header("x-player-token", token)
    }

    /// A request with no credentials, sent and read: status and JSON body.
    pub async fn call(&self, method: Method, path: &str) -> (u16, Value) {
        self.request(method, path).fetch().await
    }

    /// `call` with a JSON body.
    pub async fn call_json(&self, method: Method, path: &str, body: Value) -> (u16, Value) {
        self.request(method, path).json(&body).fetch().await
    }

    /// A dashboard request (bearer token), sent and read: status and JSON body.
    pub async fn dashboard_call(&self, method: Method, path: &str, token: &str) -> (u16, Value) {
        self.dashboard(method, path, token).fetch().await
    }

    /// `dashboard_call` with a JSON body.
    pub async fn dashboard_json(
        &self,
        method: Method,
        path: &str,
        token: &str,
        body: Value,
    ) -> (u16, Value) {
        self.dashboard(method, path, token)
            .json(&body)
            .fetch()
            .await
    }

    /// A game client's request (API key), sent and read: status and JSON body.
    pub async fn game_call(&self, method: Method, path: &str, api_key: &str) -> (u16, Value) {
        self.game(method, path, api_key).fetch().await
    }

    /// `game_call` with a JSON body.
    pub async fn game_json(
        &self,
        method: Method,
        path: &str,
        api_key: &str,
        body: Value,
    ) -> (u16, Value) {
        self.game(method, path, api_key).json(&body).fetch().await
    }

    /// The Swagger UI page, `GET /docs` (HTML, so not through `Fetch`): status and text.
    pub async fn docs_page(&self) -> (u16, String) {
        let docs = self.request(Method::GET, "/docs").send().await.unwrap();
        (docs.status().as_u16(), docs.text().await.unwrap())
    }

    pub async fn register(&self, email: &str) -> String {
        let (status, body) = self
            .call_json(
                Method::POST,
                "/v1/auth/register",
                json!({ "email": email, "password": PASSWORD }),
            )
            .await;
        assert_eq!(status, 201, "register {email}");
        body["token"].as_str().unwrap().to_string()
    }

    /// Registers a fresh account and adds it to the game with `role` (through the owner's
    /// token); returns the new member's token and user id.
    pub async fn new_member(&self, owner: &str, game_id: &str, role: &str) -> (String, String) {
        let email = format!("member-{}@studio.test", Uuid::new_v4().simple());
        let token = self.register(&email).await;
        let (status, body) = self
            .dashboard_json(
                Method::POST,
                &format!("/v1/games/{game_id}/members"),
                owner,
                json!({ "email": email, "role": role }),
            )
            .await;
        assert_eq!(status, 201, "{body}");
        let (_, me) = self
            .dashboard_call(Method::GET, "/v1/auth/me", &token)
            .await;
        let user_id = me["id"].as_str().unwrap().to_string();
        (token, user_id)
    }

    /// Registers a fresh account with a unique address; returns its token.
    pub async fn new_user(&self) -> String {
        self.register(&format!("dev-{}@studio.test", Uuid::new_v4().simple()))
            .await
    }

    pub async fn create_game(&self, token: &str) -> String {
        let (status, body) = self
            .dashboard_json(
                Method::POST,
                "/v1/games",
                token,
                json!({ "name": "Test Game" }),
            )
            .await;
        assert_eq!(status, 201);
        body["game_id"].as_str().unwrap().to_string()
    }

    pub async fn create_key(&self, token: &str, game_id: &str, environment: &str) -> String {
        self.new_key(token, game_id, environment).await.0
    }

    /// A new API key of the game: (raw key, key_id).
    pub async fn new_key(&self, token: &str, game_id: &str, environment: &str) -> (String, String) {
        let (status, body) = self
            .dashboard_json(
                Method::POST,
                &format!("/v1/games/{game_id}/api-keys"),
                token,
                json!({ "environment": environment }),
            )
            .await;
        assert_eq!(status, 201, "{body}");
        let text = |field: &str| body[field].as_str().unwrap().to_string();
        (text("key"), text("key_id"))
    }

    /// Revokes an API key; the revocation answers 204.
    pub async fn revoke_key(&self, token: &str, game_id: &str, key_id: &str) {
        let (status, body) = self
            .dashboard_call(
                Method::DELETE,
                &format!("/v1/games/{game_id}/api-keys/{key_id}"),
                token,
            )
            .await;
        assert_eq!(status, 204, "{body}");
    }

    /// A fresh user with a fresh game and a development key: (token, game_id, api_key).
    pub async fn game_with_key(&self) -> (String, String, String) {
        let token = self.new_user().await;
        let game_id = self.create_game(&token).await;
        let key = self.create_key(&token, &game_id, "development").await;
        (token, game_id, key)
    }

    /// Stops the server gracefully and waits for it.
    pub async fn stop(mut self) {
        if let Some(second) = self.second.take() {
            Box::pin(second.stop()).await;
        }
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(handle) = self.handle.take() {
            let _ = handle.await;
        }
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        if let Some(handle) = self.handle.take() {
            handle.abort();
        }
    }
}

/// Status and JSON body of a response (Null when the body is empty).
pub async fn read(response: Response) -> (u16, Value) {
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    let body = if text.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).unwrap_or(Value::String(text))
    };
    (status, body)
}

/// Sends a built request and reads the answer: `request.fetch().await` is
/// `read(request.send().await.unwrap()).await`.
/// Sends a request again after a 503 (nothing stored, retry), as a client does, up to 20
/// times 200 ms apart: a loaded machine (CI runs the suite beside two browser suites on 2
/// cores) can answer some of a burst so. Tests that count exact totals after a burst then also
/// hold that a 503 stored nothing.
pub async fn retried<F, Fut>(send: F) -> (u16, Value)
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = (u16, Value)>,
{
    for _ in 0..20 {
        let (status, body) = send().await;
        if status != 503 {
            return (status, body);
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    send().await
}

pub trait Fetch {
    fn fetch(self) -> impl std::future::Future<Output = (u16, Value)> + Send;

    /// `fetch` that asserts the status; returns the body. A wrong status panics with the
    /// method, path, expected and received status and the body.
    fn expect_status(self, expected: u16) -> impl std::future::Future<Output = Value> + Send;
}

impl Fetch for RequestBuilder {
    /// Also checks the status against the OpenAPI document (`contract::check`).
    async fn fetch(self) -> (u16, Value) {
        let (_, status, body) = exchange(self).await;
        (status, body)
    }

    async fn expect_status(self, expected: u16) -> Value {
        let (request, status, body) = exchange(self).await;
        assert_eq!(
            status, expected,
            "{request}: expected {expected}, got {status}: {body}"
        );
        body
    }
}

/// Sends a request and reads the answer, checking its status against the OpenAPI document
/// (`contract::check`); returns "METHOD url" for messages, the status and the body.
async fn exchange(request: RequestBuilder) -> (String, u16, Value) {
    let (client, request) = request.build_split();
    let request = request.unwrap();
    let (method, path) = (request.method().clone(), request.url().path().to_string());
    let target = format!("{method} {}", request.url());
    let (status, body) = read(client.execute(request).await.unwrap()).await;
    crate::contract::check(&method, &path, status, &body);
    (target, status, body)
}

/// The hot stores a conformance suite runs against: the in-process one always, and Redis (with
/// a fresh key prefix) on the services backend.
pub async fn hot_stores() -> Vec<(&'static str, playtrace::store::hot::HotStore)> {
    use playtrace::store::hot::HotStore;
    let mut stores = vec![("memory", HotStore::in_process())];
    if services_backend() {
        let prefix = format!("pt-test:{}:", Uuid::new_v4().simple());
        let redis = HotStore::connect_redis(&redis_url(), &prefix)
            .await
            .expect("Redis is reachable");
        stores.push(("redis", redis));
    }
    stores
}
