//! The cold store: connecting (SQLite or PostgreSQL through SeaORM) and migrating.
use migration::{Migrator, MigratorTrait};
use sea_orm::{ConnectOptions, ConnectionTrait, Database, DatabaseConnection, DbBackend, DbErr};
use std::time::Duration;

/// Arbitrary constant naming the PostgreSQL advisory lock held while migrating, so several
/// nodes starting at once take turns instead of racing on DDL.
const MIGRATION_LOCK_ID: i64 = 0x706c_6179_7472;

/// How long a request waits for a database connection before it is answered 503 (retry):
/// while PostgreSQL is down, a new connection is refused and the pool keeps trying until then.
/// Ten seconds kept every route of a node, `/readyz` included, hanging that long; two match the
/// hot store's command timeout, and under load a pool whose connections are all busy for two
/// seconds is better shed than queued.
pub const UNREACHABLE_AFTER: Duration = Duration::from_secs(2);

/// How long a starting node keeps trying to get its first connections. A request waits at
/// most `UNREACHABLE_AFTER` for one, but a node starting while PostgreSQL is still coming up
/// (a compose file starting both) or busy (a loaded machine took over 2 s to hand out a new
/// database's first connection) should wait rather than exit.
pub const START_PATIENCE: Duration = Duration::from_secs(20);

/// How much of a SQLite database file each connection reads through a memory map
/// (`PRAGMA mmap_size`; SQLite caps it at its compiled-in maximum, 2 GiB less 64 KiB). Without
/// one, every page that is not in the connection's own 2 MB page cache is copied in from the
/// operating system's file cache by a system call, under a lock the connections share. A
/// funnel's per-player probes at 1M events (18,500 players, 5 steps, two connections at once)
/// spent a quarter of their CPU time there: 271-433 ms without the map, 143-198 ms with it, on
/// the same file, alternately; a larger page cache (32 MB) changed nothing, and the other
/// reads neither gained nor lost. The mapped pages are the operating system's file cache,
/// shared by the connections and given back under memory pressure, not memory of the
/// process's own.
pub const SQLITE_MMAP_BYTES: u64 = 2 << 30;

pub async fn connect(url: &str, max_connections: u32) -> Result<DatabaseConnection, DbErr> {
    patiently(|| options(url, max_connections, false)).await
}

/// Connects, trying again for up to `START_PATIENCE` while the server cannot be reached or
/// does not hand out a connection in time; any other error (a wrong password, an unknown
/// database) at once.
async fn patiently(options: impl Fn() -> ConnectOptions) -> Result<DatabaseConnection, DbErr> {
    let deadline = std::time::Instant::now() + START_PATIENCE;
    loop {
        match Database::connect(options()).await {
            Err(DbErr::Conn(error))
                if std::time::Instant::now() < deadline && not_there_yet(&error) =>
            {
                tracing::warn!(error = %error, "the database did not answer at start; trying again");
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
            result => return result,
        }
    }
}

/// The server could not be reached, or gave no connection in time.
fn not_there_yet(error: &sea_orm::RuntimeErr) -> bool {
    use sea_orm::sqlx::Error;
    match error {
        sea_orm::RuntimeErr::SqlxError(error) => {
            matches!(error.as_ref(), Error::PoolTimedOut | Error::Io(_))
        }
        _ => false,
    }
}

/// Connections reserved for the group-commit writers (see `store::group_commit`): on
/// PostgreSQL a pool of `connections` whose statements always run a generic plan; elsewhere
/// the main connection itself (SQLite has a single writer anyway).
///
/// A group write sends each column as one array. Under the default `plan_cache_mode`
/// PostgreSQL plans such a prepared statement afresh on every execution (it sees the array
/// lengths and keeps preferring a custom plan), and for the leaderboard's keep-best statement
/// that planning cost more CPU than the write itself: a generic plan, made once per
/// connection, took submissions from 3,900/s to 4,800/s on the 2-core bench machine. Other
/// queries keep custom plans, which date ranges and skewed games benefit from.
pub async fn connect_writers(
    db: &DatabaseConnection,
    url: &str,
    connections: u32,
) -> Result<DatabaseConnection, DbErr> {
    if db.get_database_backend() != DbBackend::Postgres {
        return Ok(db.clone());
    }
    patiently(|| options(url, connections, true)).await
}

fn options(url: &str, max_connections: u32, generic_plans: bool) -> ConnectOptions {
    let mut options = ConnectOptions::new(url.to_string());
    options
        .max_connections(max_connections)
        .min_connections(1)
        .connect_timeout(UNREACHABLE_AFTER)
        .acquire_timeout(UNREACHABLE_AFTER)
        .sqlx_logging(false);
    if url.starts_with("sqlite:") {
        // WAL lets readers run beside the single writer; NORMAL sync under WAL survives a
        // process crash (kill -9) without losing committed transactions. Reads go through a
        // memory map of the file (`SQLITE_MMAP_BYTES`).
        options.map_sqlx_sqlite_opts(|o| {
            o.journal_mode(sea_orm::sqlx::sqlite::SqliteJournalMode::Wal)
                .synchronous(sea_orm::sqlx::sqlite::SqliteSynchronous::Normal)
                .busy_timeout(Duration::from_secs(10))
                .foreign_keys(true)
                .pragma("mmap_size", SQLITE_MMAP_BYTES.to_string())
        });
    } else {
        options.map_sqlx_postgres_pool_opts(move |pool| {
            pool.after_connect(move |connection, _| {
                Box::pin(async move {
                    no_delay::apply(connection).await?;
                    // Just-in-time compilation starts above a planned cost that the reads'
                    // estimates reach without being slow, and then takes longer than the
                    // read: 6 s of compiling for `dau_drop`'s 250 ms at 10M events.
                    sea_orm::sqlx::query("SET jit = off")
                        .execute(&mut *connection)
                        .await?;
                    if generic_plans {
                        sea_orm::sqlx::query("SET plan_cache_mode = force_generic_plan")
                            .execute(&mut *connection)
                            .await?;
                    }
                    Ok(())
                })
            })
        });
    }
    options
}

/// Works around sqlx 0.9.0 leaving Nagle's algorithm on for PostgreSQL connections (sqlx issue
/// 4335; fixed upstream, not yet released). A statement larger than the socket's send buffer
/// (16 KiB at first on Linux, so any group write of ~70 events) leaves in two writes, and the
/// second waits for PostgreSQL's delayed ACK: 40 ms per statement. sqlx does not expose the
/// socket, so each new connection asks the server for its client port and sets `TCP_NODELAY`
/// on this process's TCP socket bound to that port and connected to the server's port.
/// Remove once sqlx sets it again.
mod no_delay {
    use sea_orm::sqlx::{self, PgConnection};

    pub async fn apply(connection: &mut PgConnection) -> Result<(), sqlx::Error> {
        let ports: (Option<i32>, Option<i32>) =
            sqlx::query_as("SELECT inet_client_port(), inet_server_port()")
                .fetch_one(&mut *connection)
                .await?;
        if let (Some(local), Some(remote)) = ports {
            if !set_on_socket(local as u16, remote as u16) {
                tracing::debug!(local, remote, "no socket found to set TCP_NODELAY on");
            }
        }
        Ok(())
    }

    #[cfg(target_os = "linux")]
    fn set_on_socket(local: u16, remote: u16) -> bool {
        use std::os::fd::{BorrowedFd, RawFd};
        let Ok(entries) = std::fs::read_dir("/proc/self/fd") else {
            return false;
        };
        for entry in entries.flatten() {
            let Some(fd) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<RawFd>().ok())
            else {
                continue;
            };
            // SAFETY: the descriptor is only borrowed for a few socket calls. If it was closed
            // meanwhile they fail; if its number was reused, the address check below skips it
            // or TCP_NODELAY lands on another TCP socket, which is harmless.
            let fd = unsafe { BorrowedFd::borrow_raw(fd) };
            let socket = socket2::SockRef::from(&fd);
            let port_of = |address: std::io::Result<socket2::SockAddr>| {
                address.ok().and_then(|a| a.as_socket()).map(|a| a.port())
            };
            if port_of(socket.local_addr()) == Some(local)
                && port_of(socket.peer_addr()) == Some(remote)
            {
                return socket.set_tcp_nodelay(true).is_ok();
            }
        }
        false
    }

    #[cfg(not(target_os = "linux"))]
    fn set_on_socket(_local: u16, _remote: u16) -> bool {
        false
    }
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
/// Whether the database answers within a second (a probe must answer sooner than the pool
/// gives up on a connection).
pub async fn ready(db: &DatabaseConnection) -> bool {
    matches!(
        tokio::time::timeout(Duration::from_secs(1), db.execute_unprepared("SELECT 1")).await,
        Ok(Ok(_))
    )
}

/// True when a database error means "could not reach or use the database right now" rather
/// than a bug: those are answered 503 so clients retry.
pub fn is_unavailable(error: &sea_orm::DbErr) -> bool {
    use sea_orm::{sqlx, DbErr, RuntimeErr};
    match error {
        DbErr::Conn(_) | DbErr::ConnectionAcquire(_) => true,
        // A statement whose connection broke under it (the server stopped, a proxy or the
        // network dropped it) fails as a query error, but nothing is wrong with the statement.
        DbErr::Exec(RuntimeErr::SqlxError(cause)) | DbErr::Query(RuntimeErr::SqlxError(cause)) => {
            match cause.as_ref() {
                sqlx::Error::Io(_)
                | sqlx::Error::Tls(_)
                | sqlx::Error::PoolTimedOut
                | sqlx::Error::PoolClosed
                | sqlx::Error::WorkerCrashed => true,
                // PostgreSQL shutting down or not accepting connections yet (57P01-57P03), or
                // a connection exception (class 08).
                sqlx::Error::Database(database) => database.code().is_some_and(|code| {
                    code.starts_with("08") || matches!(code.as_ref(), "57P01" | "57P02" | "57P03")
                }),
                _ => false,
            }
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sea_orm::Statement;

    /// A SQLite pool's connections read through the memory map, at SQLite's cap.
    #[tokio::test]
    async fn sqlite_connections_read_the_file_through_a_memory_map() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}?mode=rwc", dir.path().join("map.db").display());
        let db = connect(&url, 2).await.unwrap();
        let row = db
            .query_one_raw(Statement::from_string(
                DbBackend::Sqlite,
                "PRAGMA mmap_size",
            ))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(row.try_get_by_index::<i64>(0).unwrap(), 0x7fff_0000);
    }
}
