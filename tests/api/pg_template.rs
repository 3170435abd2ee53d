//! The migrated PostgreSQL database each test's database is copied from (`CREATE DATABASE ...
//! TEMPLATE`): a copy takes about 0.13 s where running every migration on a new database took
//! 0.53 s. It is made by `Migrator::up`, once for a set of migrations.
use crate::helpers::postgres_url;
use migration::{Migrator, MigratorTrait};
use sea_orm::sqlx::{self, AssertSqlSafe, Connection, PgConnection};
use sha2::{Digest, Sha256};
use std::path::Path;
use tokio::sync::OnceCell;

/// Arbitrary constant naming the advisory lock held while a template is looked for and made,
/// so test processes running at once (the suite on one node and on two) take turns.
const TEMPLATE_LOCK_ID: i64 = 0x7074_7465_6d70;

/// The template's name for the current migrations, made by the first test of this process that
/// asks unless an earlier process made it.
pub async fn migrated_template() -> &'static str {
    static TEMPLATE: OnceCell<String> = OnceCell::const_new();
    TEMPLATE.get_or_init(find_or_make).await
}

async fn find_or_make() -> String {
    let name = format!("pt_template_{}", fingerprint());
    let mut admin = PgConnection::connect(&postgres_url("postgres"))
        .await
        .expect("PostgreSQL is reachable");
    sqlx::query("SELECT pg_advisory_lock($1)")
        .bind(TEMPLATE_LOCK_ID)
        .execute(&mut admin)
        .await
        .expect("take the template lock");
    let made = sqlx::query("SELECT 1 FROM pg_database WHERE datname = $1")
        .bind(&name)
        .fetch_optional(&mut admin)
        .await
        .expect("look for the template")
        .is_some();
    if !made {
        // Migrated under another name and renamed once complete, so a process that dies while
        // migrating leaves no half-made template behind.
        let building = format!("{name}_new");
        for statement in [
            format!("DROP DATABASE IF EXISTS {building}"),
            format!("CREATE DATABASE {building}"),
        ] {
            run(&mut admin, statement).await;
        }
        let db = sea_orm::Database::connect(postgres_url(&building))
            .await
            .expect("connect to the template");
        Migrator::up(&db, None)
            .await
            .expect("the migrations run on PostgreSQL");
        db.close().await.expect("close the template");
        run(
            &mut admin,
            format!("ALTER DATABASE {building} RENAME TO {name}"),
        )
        .await;
    }
    sqlx::query("SELECT pg_advisory_unlock($1)")
        .bind(TEMPLATE_LOCK_ID)
        .execute(&mut admin)
        .await
        .expect("release the template lock");
    admin.close().await.ok();
    name
}

async fn run(admin: &mut PgConnection, statement: String) {
    sqlx::raw_sql(AssertSqlSafe(statement.clone()))
        .execute(admin)
        .await
        .unwrap_or_else(|e| panic!("{statement}: {e}"));
}

/// A hash of the migrations' names and of the migration crate's source: a template made before
/// a migration was added, or edited in place while it is being written, is never reused.
fn fingerprint() -> String {
    let mut hash = Sha256::new();
    for migration in Migrator::migrations() {
        hash.update(migration.name());
        hash.update([0]);
    }
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("migration/src");
    let mut files: Vec<_> = std::fs::read_dir(source)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .collect();
    files.sort();
    for file in files {
        if let Ok(text) = std::fs::read(&file) {
            hash.update(file.file_name().unwrap_or_default().as_encoded_bytes());
            hash.update(text);
        }
    }
    hex::encode(&hash.finalize()[..8])
}
