use playtrace::{
    app::Application,
    cli::{Cli, Command},
    store::cold,
};
use tracing_subscriber::EnvFilter;

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
    tracing_subscriber::fmt()
        // Colour codes only on a terminal: a log file or collector gets plain text.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stdout()))
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
        )
        .init();
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
    }
}
