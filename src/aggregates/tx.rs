//! The transaction the aggregates are written in: the PostgreSQL event writer's own connection
//! (inside its transaction), or a SeaORM transaction (SQLite, and the backfill on both). Every
//! statement takes the game as `$1` and its rows as one JSON array `$2`, unnested by the
//! database, so one SQL text serves any number of rows on both backends.
use crate::store::pg::db_error;
use sea_orm::{
    sqlx::{self, PgConnection},
    ConnectionTrait, DatabaseTransaction, DbBackend, DbErr, Statement,
};
use uuid::Uuid;

pub enum Tx<'a> {
    Postgres(&'a mut PgConnection),
    SeaOrm(&'a DatabaseTransaction),
}

/// A row a query returns: two texts and two integers (unused ones are 0).
pub type Row = (String, String, i64, i64);

/// A row of another shape a query returns (`Tx::fetch_as`), read by column position on both
/// backends.
pub trait Columns: Sized + Send + Unpin + for<'r> sqlx::FromRow<'r, sqlx::postgres::PgRow> {
    fn read(row: &sea_orm::QueryResult) -> Result<Self, DbErr>;
}

impl Columns for Row {
    fn read(row: &sea_orm::QueryResult) -> Result<Self, DbErr> {
        Ok((
            row.try_get_by_index(0)?,
            row.try_get_by_index(1)?,
            row.try_get_by_index(2)?,
            row.try_get_by_index(3)?,
        ))
    }
}

/// A text and four integers, the second and fourth nullable.
impl Columns for (String, i64, Option<i64>, i64, Option<i64>) {
    fn read(row: &sea_orm::QueryResult) -> Result<Self, DbErr> {
        Ok((
            row.try_get_by_index(0)?,
            row.try_get_by_index(1)?,
            row.try_get_by_index(2)?,
            row.try_get_by_index(3)?,
            row.try_get_by_index(4)?,
        ))
    }
}

impl Tx<'_> {
    pub(super) fn postgres(&self) -> bool {
        match self {
            Self::Postgres(_) => true,
            Self::SeaOrm(txn) => txn.get_database_backend() == DbBackend::Postgres,
        }
    }

    /// `sql` (one of this module's constants: no outside text) with `{rows}` made the rows of the JSON array `$2` (each row's fields read as
    /// `value->>'name'`) and `{lock}` a row lock where the backend has one.
    fn spell(&self, sql: &str) -> String {
        let (rows, lock) = if self.postgres() {
            ("json_array_elements($2::json)", " FOR UPDATE OF p")
        } else {
            ("json_each($2)", "")
        };
        sql.replace("{rows}", rows).replace("{lock}", lock)
    }

    /// Runs a statement over `rows` (`$2`) of `game` (`$1`), with `shard` as `$3` when given.
    pub async fn execute(
        &mut self,
        sql: &str,
        game: Uuid,
        rows: &str,
        shard: Option<i16>,
    ) -> Result<(), DbErr> {
        let sql = self.spell(sql);
        match self {
            Self::Postgres(connection) => {
                let mut query = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(game).bind(rows);
                if let Some(shard) = shard {
                    query = query.bind(shard);
                }
                query.execute(&mut **connection).await.map_err(db_error)?;
            }
            Self::SeaOrm(txn) => {
                let mut values = vec![game.into(), rows.into()];
                values.extend(shard.map(Into::into));
                txn.execute_raw(Statement::from_sql_and_values(
                    txn.get_database_backend(),
                    sql,
                    values,
                ))
                .await?;
            }
        }
        Ok(())
    }

    /// Runs a query over `rows` of `game` (with none, the query has no `$2`) and returns its
    /// rows.
    pub async fn fetch(
        &mut self,
        sql: &str,
        game: Uuid,
        rows: Option<&str>,
    ) -> Result<Vec<Row>, DbErr> {
        self.fetch_as(sql, game, rows).await
    }

    /// `fetch` for rows of another shape.
    pub async fn fetch_as<R: Columns>(
        &mut self,
        sql: &str,
        game: Uuid,
        rows: Option<&str>,
    ) -> Result<Vec<R>, DbErr> {
        let sql_text = sql;
        let sql = self.spell(sql);
        match self {
            Self::Postgres(connection) => {
                // A join with stored rows is planned at each run, not once per connection:
                // the writer's connection forces generic plans, and a join planned while the
                // aggregates were small (or before any ANALYZE) stays a hash join over the
                // whole game's rows for the connection's life, its cost growing with the
                // game's history. The other statements keep their prepared plan (planning
                // them at every group cost single-event ingest about half its rate).
                let mut query = sqlx::query_as::<_, R>(sqlx::AssertSqlSafe(sql))
                    .persistent(!sql_joins_stored_rows(sql_text))
                    .bind(game);
                if let Some(rows) = rows {
                    query = query.bind(rows);
                }
                let found = query.fetch_all(&mut **connection).await.map_err(db_error)?;
                Ok(found)
            }
            Self::SeaOrm(txn) => {
                let mut values = vec![game.into()];
                values.extend(rows.map(Into::into));
                let found = txn
                    .query_all_raw(Statement::from_sql_and_values(
                        txn.get_database_backend(),
                        sql,
                        values,
                    ))
                    .await?;
                found.iter().map(R::read).collect()
            }
        }
    }
}

/// Whether a statement joins the batch's rows with stored rows (`{rows} CROSS JOIN`), which
/// is planned at every run on PostgreSQL (see `Tx::fetch`).
fn sql_joins_stored_rows(sql: &str) -> bool {
    sql.contains("{rows} CROSS JOIN")
}
