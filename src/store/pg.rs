//! Helpers for the statements written directly against PostgreSQL's driver (group writes that
//! send each column as one array).
use sea_orm::{sqlx, DbErr, RuntimeErr};
use std::sync::Arc;

/// Driver errors in SeaORM's terms: unreachable-database errors become `DbErr::Conn`, so they
/// are answered 503 like every other cold-store outage.
pub fn db_error(error: sqlx::Error) -> DbErr {
    let unreachable = matches!(
        error,
        sqlx::Error::Io(_)
            | sqlx::Error::Tls(_)
            | sqlx::Error::PoolTimedOut
            | sqlx::Error::PoolClosed
            | sqlx::Error::WorkerCrashed
    );
    let error = RuntimeErr::SqlxError(Arc::new(error));
    if unreachable {
        DbErr::Conn(error)
    } else {
        DbErr::Exec(error)
    }
}
