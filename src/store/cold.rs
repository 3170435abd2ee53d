//! The cold store: connecting (SQLite or PostgreSQL through SeaORM) and migrating.
use migration::{Migrator, MigratorTrait};
use sea_orm::{ConnectOptions, ConnectionTrait, Database, DatabaseConnection, DbBackend, DbErr};
use std::time::Duration;

/// Arbitrary constant naming the PostgreSQL advisory lock held while migrating, so several
/// nodes starting at once take turns instead of racing on DDL.
const MIGRATION_LOCK_ID: i64 = 0x706c_6179_7472;

pub async fn connect(url: &str, max_connections: u32) -> Result<DatabaseConnection, DbErr> {
    let mut options = ConnectOptions::new(url.to_string());
    options
        .max_connections(max_connections)
        .min_connections(1)
        .connect_timeout(Duration::from_secs(10))
        .acquire_timeout(Duration::from_secs(10))
        .sqlx_logging(false);
    if url.starts_with("sqlite:") {
        // WAL lets readers run beside the single writer; NORMAL sync under WAL survives a
        // process crash (kill -9) without losing committed transactions.
        options.map_sqlx_sqlite_opts(|o| {
            o.journal_mode(sea_orm::sqlx::sqlite::SqliteJournalMode::Wal)
                .synchronous(sea_orm::sqlx::sqlite::SqliteSynchronous::Normal)
                .busy_timeout(Duration::from_secs(10))
                .foreign_keys(true)
        });
    }
    Database::connect(options).await
}

/// Applies every pending migration. On PostgreSQL the run is serialised across nodes with an
/// advisory lock held on one pooled connection for its duration.
pub async fn migrate(db: &DatabaseConnection) -> Result<(), DbErr> {
    if db.get_database_backend() != DbBackend::Postgres {
        return Migrator::up(db, None).await;
    }
    let pool = db.get_postgres_connection_pool();
    let mut lock_conn = pool
        .acquire()
        .await
        .map_err(|e| DbErr::Conn(sea_orm::RuntimeErr::SqlxError(e.into())))?;
    sea_orm::sqlx::query("SELECT pg_advisory_lock($1)")
        .bind(MIGRATION_LOCK_ID)
        .execute(&mut *lock_conn)
        .await
        .map_err(|e| DbErr::Conn(sea_orm::RuntimeErr::SqlxError(e.into())))?;
    let result = Migrator::up(db, None).await;
    let _ = sea_orm::sqlx::query("SELECT pg_advisory_unlock($1)")
        .bind(MIGRATION_LOCK_ID)
        .execute(&mut *lock_conn)
        .await;
    result
}

/// True when the cold store answers a trivial query.
pub async fn ready(db: &DatabaseConnection) -> bool {
    db.execute_unprepared("SELECT 1").await.is_ok()
}
