//! Start-up: connect the stores, migrate, bind the listener, run the API and/or the worker
//! until SIGINT/SIGTERM, then shut down gracefully.
use crate::{
    auth::{api_key::KeyCache, jwt::JwtKeys, random_hex},
    cli::Settings,
    clock::{SharedClock, SystemClock},
    notify::email::{LogMailer, Mailer, SmtpMailer},
    state::{AppState, Parts},
    store::{
        cold,
        hot::{changes::Cached, HotStore},
        Db,
    },
};
use entity::settings as settings_table;
use sea_orm::{sea_query::OnConflict, ActiveValue::Set, EntityTrait};
use std::{sync::Arc, time::Duration};

pub struct Application {
    state: AppState,
    listener: Option<tokio::net::TcpListener>,
    port: u16,
}

/// The shortest JWT secret a node starts with: 256 bits, as HS256's key (RFC 7518, 3.2).
pub const MIN_JWT_SECRET_BYTES: usize = 32;

impl Application {
    pub async fn build(settings: Settings) -> anyhow::Result<Self> {
        Self::build_with_clock(settings, Arc::new(SystemClock)).await
    }

    /// Like `build`, with an injected clock (tests move time with it).
    pub async fn build_with_clock(settings: Settings, clock: SharedClock) -> anyhow::Result<Self> {
        if let Some(secret) = &settings.jwt_secret {
            if secret.len() < MIN_JWT_SECRET_BYTES {
                anyhow::bail!(
                    "PLAYTRACE_JWT_SECRET (--jwt-secret) must be at least {MIN_JWT_SECRET_BYTES} bytes \
                     ({} given): anyone who guesses it can sign in as any user. Generate one with \
                     `openssl rand -hex 32`, or leave it unset to have one generated and kept in the database",
                    secret.len()
                );
            }
        }
        let cost = settings.password_hash_cost();
        if cost.below_owasp() {
            tracing::warn!(
                memory_kib = cost.memory_kib,
                iterations = cost.iterations,
                "new password hashes cost less than OWASP's minimum (19 MiB x 2 passes): \
                 stolen ones are cheaper to crack; meant for test suites, never production"
            );
        }
        // Process-wide, installed by the first node built; every later one shares it.
        crate::telemetry::install();
        let db = cold::connect(&settings.database_url, settings.db_max_connections).await?;
        if !settings.no_migrate {
            cold::migrate(&db).await?;
        }
        // Two kinds of group write (events, scores), each with one writer task more than may
        // write at once, and each task keeps a connection; two spare ones take over at once
        // from a connection let go after a failed write. The writers' reads (quota rebuilds) go
        // through the node's pool: with every task holding its connection, a read waiting for
        // one of these would wait until the pool gave up (503).
        let lanes = settings.db_writers as usize;
        let writers = cold::connect_writers(
            &db,
            &settings.database_url,
            2 * (settings.db_writers + 1) + 2,
        )
        .await?;
        let hot = match &settings.redis_url {
            Some(url) => HotStore::connect_redis(url, &settings.redis_prefix).await?,
            None => HotStore::in_process(),
        };
        let mailer: Arc<dyn Mailer> = match &settings.smtp_url {
            Some(url) => Arc::new(SmtpMailer::new(url, &settings.mail_from)?),
            None => Arc::new(LogMailer),
        };
        let secret = match &settings.jwt_secret {
            Some(secret) => secret.clone(),
            None => stored_jwt_secret(&db).await?,
        };

        let (listener, port) = if settings.runs_api() {
            let listener = tokio::net::TcpListener::bind(settings.listen.as_str())
                .await
                .map_err(|error| cannot_listen(&settings.listen, error))?;
            let port = listener.local_addr()?.port();
            (Some(listener), port)
        } else {
            (None, 0)
        };
        let public_url = settings.public_url.clone().unwrap_or_else(|| {
            let host = settings
                .listen
                .rsplit_once(':')
                .map(|(h, _)| h)
                .unwrap_or("127.0.0.1");
            format!("http://{host}:{port}")
        });
        let state = assemble(
            Core {
                db,
                hot,
                clock,
                mailer,
                jwt: Arc::new(JwtKeys::new(secret.as_bytes())),
                public_url: Arc::from(public_url.trim_end_matches('/')),
                settings: Arc::new(settings),
            },
            writers,
            lanes,
        );
        Ok(Self {
            state,
            listener,
            port,
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn state(&self) -> &AppState {
        &self.state
    }

    /// Serves until SIGINT or SIGTERM.
    pub async fn run_until_stopped(self) -> anyhow::Result<()> {
        self.run_until(shutdown_signal()).await
    }

    /// Serves until `stop` completes, then drains in-flight requests (up to 10 seconds).
    pub async fn run_until(
        self,
        stop: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> anyhow::Result<()> {
        let mut scheduler = if self.state.settings.runs_worker() {
            Some(crate::worker::start(self.state.clone()).await?)
        } else {
            None
        };
        match self.listener {
            Some(listener) => {
                let routes = crate::api::routes(&self.state);
                let limits = crate::connections::Limits::from_settings(&self.state.settings);
                crate::connections::serve(listener, routes, limits, stop, Duration::from_secs(10))
                    .await?;
            }
            None => stop.await,
        }
        if let Some(scheduler) = scheduler.as_mut() {
            let _ = scheduler.shutdown().await;
        }
        crate::shutdown_hooks(&self.state).await;
        tracing::info!("stopped");
        Ok(())
    }
}

/// What the state is made of besides the features' parts.
pub struct Core {
    pub db: Db,
    pub hot: HotStore,
    pub clock: SharedClock,
    pub mailer: Arc<dyn Mailer>,
    pub jwt: Arc<JwtKeys>,
    pub public_url: Arc<str>,
    pub settings: Arc<Settings>,
}

/// Builds the state: the one place that gives each feature its per-node parts and makes
/// the caches among them follow change announcements. `writers` is the pool the group-commit
/// writers' tasks keep their connections from, `lanes` how many of them may write at once.
pub fn assemble(core: Core, writers: Db, lanes: usize) -> AppState {
    let Core {
        db,
        hot,
        clock,
        mailer,
        jwt,
        public_url,
        settings,
    } = core;
    let ingest = crate::events::Ingest::new(writers.clone(), db.clone(), hot.quotas.clone(), lanes);
    let scores = crate::leaderboards::writer::ScoreWriter::new(
        writers,
        crate::leaderboards::writer::ScoreRows,
        lanes,
    );
    let boards = Arc::new(crate::leaderboards::boards::BoardCache::default());
    let config = Arc::new(crate::config::service::ConfigCache::default());
    let keys = Arc::new(KeyCache::default());
    let sessions = Arc::new(crate::auth::sessions::SessionCache::default());
    for cache in [
        keys.clone() as Arc<dyn Cached>,
        sessions.clone(),
        ingest.schemas.clone(),
        boards.clone(),
        config.clone(),
    ] {
        hot.changes.follow(cache);
    }
    let parts = Parts {
        sessions,
        hashing: Arc::new(crate::auth::password::Hashing::from_settings(&settings)),
        ingest,
        scores: Arc::new(scores),
        boards,
        pages: Arc::new(crate::leaderboards::pages::PageCache::default()),
        config,
        feeds: crate::presence::stream::FeedSlots::default(),
    };
    AppState {
        db,
        hot,
        clock,
        mailer,
        jwt,
        keys,
        settings,
        public_url,
        parts: Arc::new(parts),
    }
}

/// A state with no database behind it, enough to build the OpenAPI document.
pub fn detached() -> AppState {
    assemble(
        Core {
            db: Db::default(),
            hot: HotStore::in_process(),
            clock: Arc::new(SystemClock),
            mailer: Arc::new(LogMailer),
            jwt: Arc::new(JwtKeys::new(b"detached")),
            public_url: Arc::from("http://127.0.0.1:8080"),
            settings: Arc::new(Settings::defaults()),
        },
        Db::default(),
        1,
    )
}

/// The OpenAPI document, as `playtrace openapi` prints it and `openapi/openapi.json` holds it.
pub fn spec_json() -> String {
    crate::http::document(
        &crate::api::openapi(&detached()).spec(),
        crate::api::STATUSES,
    )
}

/// The JWT secret kept in the cold store: generated by whichever node starts first, then
/// read by every node and every restart.
async fn stored_jwt_secret(db: &Db) -> anyhow::Result<String> {
    settings_table::Entity::insert(settings_table::ActiveModel {
        key: Set("jwt_secret".into()),
        value: Set(random_hex(32)),
    })
    .on_conflict(
        OnConflict::column(settings_table::Column::Key)
            .do_nothing()
            .to_owned(),
    )
    .exec_without_returning(db)
    .await?;
    let row = settings_table::Entity::find_by_id("jwt_secret".to_string())
        .one(db)
        .await?
        .ok_or_else(|| anyhow::anyhow!("jwt secret missing after insert"))?;
    Ok(row.value)
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = terminate => {},
    }
    tracing::info!("shutdown signal received; draining requests");
}

/// Why the node cannot listen on `address`, with the address and how to choose another.
fn cannot_listen(address: &str, error: std::io::Error) -> anyhow::Error {
    let how = "choose another address with --listen <host:port> or PLAYTRACE_LISTEN \
               (port 0 lets the system pick a free one)";
    match error.kind() {
        std::io::ErrorKind::AddrInUse => anyhow::anyhow!(
            "cannot listen on {address}: the address is already in use (another playtrace \
             or another program listens there); {how}"
        ),
        std::io::ErrorKind::AddrNotAvailable => anyhow::anyhow!(
            "cannot listen on {address}: no network interface of this machine has that \
             address; {how}"
        ),
        _ => anyhow::Error::new(error).context(format!("cannot listen on {address}; {how}")),
    }
}
