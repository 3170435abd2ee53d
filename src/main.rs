use playtrace::{
    app::Application,
    cli::{Cli, Command, LogFormat},
    store::cold,
};
use tracing_subscriber::EnvFilter;

/// The log levels without `RUST_LOG`: INFO, but for the job scheduler's own lines (one per job
/// at every start, which say nothing an operator acts on).
const DEFAULT_LOG: &str = "info,tokio_cron_scheduler=warn";

/// mimalloc instead of the system allocator: request handling allocates many small, short-lived
/// buffers across threads, where glibc's malloc spent a third of the CPU in the read benchmarks.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> anyhow::Result<()> {
    let cli = playtrace::cli::parse();
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(run(cli))
}

async fn run(cli: Cli) -> anyhow::Result<()> {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(DEFAULT_LOG));
    match cli.log_format {
        LogFormat::Text => tracing_subscriber::fmt()
            // Colour codes only on a terminal: a log file or collector gets plain text.
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stdout()))
            .with_env_filter(filter)
            .init(),
        // One object per line: the event's fields at the top level, beside `timestamp`,
        // `level`, `target` and `message`, and the span's fields (the request id) in `span`.
        LogFormat::Json => tracing_subscriber::fmt()
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_span_list(false)
            .with_env_filter(filter)
            .init(),
    }
    match cli.command {
        Command::Serve(settings) => {
            let app = Application::build(*settings.clone()).await?;
            if settings.runs_api() {
                let host = settings
                    .listen
                    .rsplit_once(':')
                    .map(|(h, _)| h)
                    .unwrap_or("127.0.0.1");
                tracing::info!(
                    "playtrace listening on http://{host}:{} (API docs: http://{host}:{}/docs)",
                    app.port(),
                    app.port()
                );
            }
            tracing::info!(role = ?settings.role, "playtrace started");
            app.run_until_stopped().await
        }
        Command::Migrate { database_url } => {
            let db = cold::connect(&database_url, 2).await?;
            cold::migrate(&db).await?;
            tracing::info!("migrations applied");
            Ok(())
        }
        Command::Openapi => {
            println!("{}", playtrace::app::spec_json());
            Ok(())
        }
        Command::Admin(command) => playtrace::accounts::admin::run(command).await,
        Command::Aggregates(command) => {
            use playtrace::{
                aggregates::{backfill, fold},
                cli::AggregatesCommand,
            };
            let (database_url, games) = match &command {
                AggregatesCommand::Rebuild {
                    database_url,
                    games,
                } => (database_url, Some(games.clone())),
                AggregatesCommand::Backfill { database_url }
                | AggregatesCommand::Fold { database_url } => (database_url, None),
            };
            let db = cold::connect(database_url, 2).await?;
            cold::migrate(&db).await?;
            if let AggregatesCommand::Fold { .. } = command {
                let closed_before = chrono::Utc::now() - chrono::Duration::from_std(fold::MARGIN)?;
                let folded = fold::fold_before(&db, closed_before, None).await?;
                tracing::info!(rows = folded.rows, "closed days' writer shards folded");
                return Ok(());
            }
            if let Some(games) = games {
                let games = (!games.is_empty()).then_some(games);
                let queued = backfill::rebuild(&db, games).await?;
                tracing::info!(queued, "games queued for a rebuild of their aggregates");
            }
            let counted = backfill::run_to_end(&db, backfill::GRACE).await?;
            tracing::info!(counted, "aggregates up to date");
            Ok(())
        }
    }
}
