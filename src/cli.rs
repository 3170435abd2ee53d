//! Command line and environment settings: every flag can also be set with its `PLAYTRACE_*` variable.
use clap::{Args, Parser, Subcommand, ValueEnum};

#[derive(Debug, Parser)]
#[command(
    name = "playtrace",
    version,
    about = "Self-hostable game analytics and live-ops backend"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,

    /// How log lines are written: `text` (for people; colours only on a terminal) or `json`
    /// (one JSON object per line, for a log collector).
    #[arg(
        long,
        global = true,
        env = "PLAYTRACE_LOG_FORMAT",
        value_enum,
        default_value = "text"
    )]
    pub log_format: LogFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

/// Parses the command line. An empty `PLAYTRACE_*` variable counts as unset, as a deployment
/// tool writes `PLAYTRACE_SMTP_URL=` for "no SMTP" (clap would take the empty text as the
/// value, and an empty URL stops the node).
pub fn parse() -> Cli {
    let empty: Vec<std::ffi::OsString> = std::env::vars_os()
        .filter(|(name, value)| {
            name.to_str().is_some_and(|n| n.starts_with("PLAYTRACE_")) && value.is_empty()
        })
        .map(|(name, _)| name)
        .collect();
    for name in empty {
        // Before any other thread starts (the runtime is built after the settings).
        std::env::remove_var(name);
    }
    Cli::parse()
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the HTTP API and/or the background worker.
    Serve(Box<Settings>),
    /// Apply pending database migrations and exit.
    Migrate {
        /// Database URL (SQLite or PostgreSQL).
        #[arg(long, env = "PLAYTRACE_DATABASE_URL", default_value = DEFAULT_DATABASE_URL)]
        database_url: String,
    },
    /// Print the OpenAPI document to standard output.
    Openapi,
    /// The analytics aggregates kept at ingest.
    #[command(subcommand)]
    Aggregates(AggregatesCommand),
    /// Account repairs for an operator with shell access: a password, a sign-in lockout, who
    /// is an instance admin. Works on the database directly, without SMTP or a running node.
    #[command(subcommand)]
    Admin(AdminCommand),
}

/// `playtrace admin ...`: each takes the account's e-mail address (any case).
#[derive(Debug, Subcommand)]
pub enum AdminCommand {
    /// Set a new password: read from the terminal (asked twice, not shown), or as the first
    /// line of standard input when that is not a terminal. Never from the command line, which
    /// other users of the machine and the shell history see. The account's sessions end, its
    /// lockout is cleared, and an invited account that never signed up becomes active.
    ResetPassword {
        email: String,
        #[command(flatten)]
        database: DatabaseArg,
    },
    /// Clear the sign-in lockout of an address (5 failed sign-ins lock it for 15 minutes).
    Unlock {
        email: String,
        #[command(flatten)]
        database: DatabaseArg,
    },
    /// Make an account an instance admin.
    MakeAdmin {
        email: String,
        #[command(flatten)]
        database: DatabaseArg,
    },
    /// Make an instance admin an ordinary account again (not the last admin).
    RemoveAdmin {
        email: String,
        #[command(flatten)]
        database: DatabaseArg,
    },
}

#[derive(Debug, Clone, Args)]
pub struct DatabaseArg {
    /// Database URL (SQLite or PostgreSQL), the one the service uses.
    #[arg(long, env = "PLAYTRACE_DATABASE_URL", default_value = DEFAULT_DATABASE_URL)]
    pub database_url: String,
}

#[derive(Debug, Subcommand)]
pub enum AggregatesCommand {
    /// Count the events again into the aggregates, from scratch, while the service runs (see
    /// docs/analytics.md). Waits until every queued game is counted.
    Rebuild {
        /// Database URL (SQLite or PostgreSQL).
        #[arg(long, env = "PLAYTRACE_DATABASE_URL", default_value = DEFAULT_DATABASE_URL)]
        database_url: String,
        /// Only this game (repeatable); default: every game.
        #[arg(long = "game")]
        games: Vec<uuid::Uuid>,
    },
    /// Sum the writer shards of every closed day (ended 3 hours ago or more) into one row per
    /// key and exit; the worker does the same every 10 minutes, a bounded amount at a time.
    Fold {
        /// Database URL (SQLite or PostgreSQL).
        #[arg(long, env = "PLAYTRACE_DATABASE_URL", default_value = DEFAULT_DATABASE_URL)]
        database_url: String,
    },
    /// Count what is queued (games whose events were stored before the aggregates existed)
    /// and exit; the worker does the same in the background.
    Backfill {
        /// Database URL (SQLite or PostgreSQL).
        #[arg(long, env = "PLAYTRACE_DATABASE_URL", default_value = DEFAULT_DATABASE_URL)]
        database_url: String,
    },
}

pub const DEFAULT_DATABASE_URL: &str = "sqlite://playtrace.db?mode=rwc";

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum NodeRole {
    /// HTTP API only (scale these out behind a load balancer).
    Api,
    /// Background worker only (alert evaluation, leaderboard archiving).
    Worker,
    /// Both in one process (the default, for a single node).
    All,
}

/// Who may create an account with `POST /v1/auth/register`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Registration {
    /// Anyone who reaches the node.
    Open,
    /// Only the instance's first account (its admin); everyone else joins by invitation.
    Closed,
}

#[derive(Debug, Clone, Args)]
pub struct Settings {
    /// Address to listen on. Use port 0 to let the OS pick one.
    #[arg(long, env = "PLAYTRACE_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: String,

    /// Which parts of the service this process runs.
    #[arg(long, env = "PLAYTRACE_ROLE", value_enum, default_value = "all")]
    pub role: NodeRole,

    /// Cold store URL: `sqlite://file.db?mode=rwc` (default) or `postgres://user@host/db`.
    #[arg(long, env = "PLAYTRACE_DATABASE_URL", default_value = DEFAULT_DATABASE_URL)]
    pub database_url: String,

    /// Skip running migrations on start.
    #[arg(long, env = "PLAYTRACE_NO_MIGRATE", default_value_t = false)]
    pub no_migrate: bool,

    /// Hot store: a `redis://` URL. Unset means the in-process store (single node only).
    #[arg(long, env = "PLAYTRACE_REDIS_URL")]
    pub redis_url: Option<String>,

    /// Prefix for every Redis key this instance uses, so several deployments can share one Redis.
    #[arg(long, env = "PLAYTRACE_REDIS_PREFIX", default_value = "pt:")]
    pub redis_prefix: String,

    /// Secret for signing dashboard JWTs (HS256). Unset means one is generated once and kept in
    /// the cold store, so every node and every restart agree.
    #[arg(long, env = "PLAYTRACE_JWT_SECRET", hide_env_values = true)]
    pub jwt_secret: Option<String>,

    /// SMTP server for outgoing mail, e.g. `smtp://127.0.0.1:2525` or `smtps://user:pass@host`.
    /// Unset means e-mails are logged (without secrets) and recorded as not sent.
    #[arg(long, env = "PLAYTRACE_SMTP_URL", hide_env_values = true)]
    pub smtp_url: Option<String>,

    /// Sender address of outgoing mail.
    #[arg(
        long,
        env = "PLAYTRACE_MAIL_FROM",
        default_value = "playtrace@localhost"
    )]
    pub mail_from: String,

    /// Public base URL used in e-mailed links. Defaults to `http://{listen}`.
    #[arg(long, env = "PLAYTRACE_PUBLIC_URL")]
    pub public_url: Option<String>,

    /// Allow alert and leaderboard results webhooks to loopback, private, link-local and
    /// metadata addresses.
    #[arg(
        long,
        env = "PLAYTRACE_ALLOW_PRIVATE_WEBHOOKS",
        default_value_t = false
    )]
    pub allow_private_webhooks: bool,

    /// Seconds between alert evaluations in the worker.
    #[arg(long, env = "PLAYTRACE_ALERT_INTERVAL_SECS", default_value_t = 60)]
    pub alert_interval_secs: u64,

    /// Requests per minute per API key, per user (JWT) and per IP (unauthenticated).
    #[arg(long, env = "PLAYTRACE_RATE_LIMIT_PER_MINUTE", default_value_t = 1000)]
    pub rate_limit_per_minute: u64,

    /// `open`: anyone may register. `closed`: only the first account (the admin) may; others
    /// join through an invitation to a game (an owner invites their e-mail).
    #[arg(
        long,
        env = "PLAYTRACE_REGISTRATION",
        value_enum,
        default_value = "open"
    )]
    pub registration: Registration,

    /// Take the client IP for per-IP limits from the last `X-Forwarded-For` entry (set this
    /// only behind a load balancer that writes that header).
    #[arg(long, env = "PLAYTRACE_TRUST_PROXY", default_value_t = false)]
    pub trust_proxy: bool,

    /// Maximum connections in the cold-store pool.
    #[arg(long, env = "PLAYTRACE_DB_MAX_CONNECTIONS", default_value_t = 20)]
    pub db_max_connections: u32,

    /// Groups written at once per kind of group write (events, leaderboard scores) on
    /// PostgreSQL, 1 to 16. Each kind runs one writer task more than this (it prepares the next
    /// group), each with a connection of its own. More writers commit more often in smaller
    /// groups: raise it with the database's cores. (SQLite always writes one at a time.)
    #[arg(long, env = "PLAYTRACE_DB_WRITERS", default_value_t = 2,
          value_parser = clap::value_parser!(u32).range(1..=16))]
    pub db_writers: u32,

    /// Serve the web dashboard from this folder (a `vite build` output) instead of the copy
    /// built into the binary: for working on the dashboard against a running node.
    #[arg(long, env = "PLAYTRACE_DASHBOARD_DIR")]
    pub dashboard_dir: Option<std::path::PathBuf>,

    /// Seconds a client has to send a request's headers: from the moment the connection opens,
    /// or from the first byte of a later request on a kept-alive connection. A connection that
    /// is still sending its headers then is closed (slow-header clients such as Slowloris).
    #[arg(long, env = "PLAYTRACE_HEADER_TIMEOUT_SECS", default_value_t = 10,
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub header_timeout_secs: u64,

    /// Seconds a client has to send a request's whole body, counted from the end of its
    /// headers. Late bodies are answered 408 and the connection is closed (bodies trickled a
    /// byte at a time).
    #[arg(long, env = "PLAYTRACE_BODY_TIMEOUT_SECS", default_value_t = 30,
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub body_timeout_secs: u64,

    /// Seconds a kept-alive connection may wait idle for its next request before the node
    /// closes it. Keep it above the idle timeout of the proxy's upstream connections, so the
    /// proxy closes first and never sends on a connection the node is closing.
    #[arg(long, env = "PLAYTRACE_KEEP_ALIVE_TIMEOUT_SECS", default_value_t = 75,
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub keep_alive_timeout_secs: u64,

    /// Open client connections (WebSocket feeds included) this node holds at most; one more
    /// is answered 503 with `Retry-After` and closed. Keep it below the process's open-file
    /// limit (`ulimit -n`) minus the database and Redis connections.
    #[arg(long, env = "PLAYTRACE_MAX_CONNECTIONS", default_value_t = 10_000,
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub max_connections: u32,

    /// Games one account may own (the instance admin has no cap); one more is answered 403.
    /// Each game has its own free monthly quota, so without a cap one account could multiply it.
    #[arg(long, env = "PLAYTRACE_MAX_GAMES_PER_USER", default_value_t = 20,
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub max_games_per_user: u32,

    /// Failed sign-ins one client address may make over all e-mail addresses within 15 minutes
    /// of each other; the next locks that client out of every address for 15 minutes (403
    /// `ACCOUNT_LOCKED`). Each address also locks for a client after 5 of its failures.
    #[arg(long, env = "PLAYTRACE_SIGN_IN_FAILURES_PER_CLIENT", default_value_t = 20,
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub sign_in_failures_per_client: u32,

    /// Registration requests one client address may make per clock hour, whether or not they
    /// create an account; one more is answered 429 with `Retry-After`. Behind a proxy, set
    /// `--trust-proxy` so that the client's address is used, not the proxy's.
    #[arg(long, env = "PLAYTRACE_REGISTRATIONS_PER_HOUR", default_value_t = 20,
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub registrations_per_hour: u32,

    /// Live presence feeds (`GET /v1/activity/stream`) one dashboard user holds open at once
    /// on this node; one more is answered 429.
    #[arg(long, env = "PLAYTRACE_MAX_FEEDS_PER_USER", default_value_t = 20,
          value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub max_feeds_per_user: u32,

    /// Password hashes (argon2id: sign-ins, registrations, resets) computed at once on this
    /// node. Unset: half the cores, at least one, so sign-ins never take every core from the
    /// game routes.
    #[arg(long, env = "PLAYTRACE_PASSWORD_HASH_WORKERS",
          value_parser = clap::value_parser!(u32).range(1..=256))]
    pub password_hash_workers: Option<u32>,

    /// Password hashes that may wait for a worker; one more sign-in, registration or reset is
    /// answered 503 with `Retry-After` at once, before it touches the database.
    #[arg(long, env = "PLAYTRACE_PASSWORD_HASH_QUEUE", default_value_t = 32,
          value_parser = clap::value_parser!(u32).range(0..=100_000))]
    pub password_hash_queue: u32,

    /// Memory of each new password hash, in KiB (argon2id's m). With the iterations' default,
    /// the default (19 MiB) is OWASP's minimum; a lower cost makes stolen hashes cheaper to
    /// crack and is meant for test suites only (the node warns at start). A stored hash is
    /// verified with the cost it was made with.
    #[arg(long, env = "PLAYTRACE_PASSWORD_HASH_MEMORY_KIB", default_value_t = 19_456,
          value_parser = clap::value_parser!(u32).range(8..=4_194_304))]
    pub password_hash_memory_kib: u32,

    /// Passes over that memory of each new password hash (argon2id's t); see the memory.
    #[arg(long, env = "PLAYTRACE_PASSWORD_HASH_ITERATIONS", default_value_t = 2,
          value_parser = clap::value_parser!(u32).range(1..=64))]
    pub password_hash_iterations: u32,

    /// Bearer token `GET /metrics` requires (`Authorization: Bearer <token>`), compared in
    /// constant time. Unset means the metrics are open to whoever reaches the node: keep the
    /// route off the public internet (at the proxy) or set a token.
    #[arg(long, env = "PLAYTRACE_METRICS_TOKEN", hide_env_values = true)]
    pub metrics_token: Option<String>,
}

impl Settings {
    /// Settings with every default, as `playtrace serve` with no flags would use.
    pub fn defaults() -> Self {
        let cli = Cli::parse_from(["playtrace", "serve"]);
        match cli.command {
            Command::Serve(settings) => *settings,
            _ => unreachable!("parsed the serve subcommand"),
        }
    }

    /// The cost of a new password hash.
    pub fn password_hash_cost(&self) -> crate::auth::password::Cost {
        crate::auth::password::Cost {
            memory_kib: self.password_hash_memory_kib,
            iterations: self.password_hash_iterations,
        }
    }

    pub fn runs_api(&self) -> bool {
        matches!(self.role, NodeRole::Api | NodeRole::All)
    }

    pub fn runs_worker(&self) -> bool {
        matches!(self.role, NodeRole::Worker | NodeRole::All)
    }
}
