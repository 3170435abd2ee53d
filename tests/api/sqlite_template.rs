//! The migrated SQLite file each embedded test's database is copied from: a copy takes about a
//! millisecond where running every migration on a new file took 80 ms of each test's start.
//! Made by `Migrator::up`, once per test process, in a temporary directory of its own.
use migration::{Migrator, MigratorTrait};
use std::path::{Path, PathBuf};
use tokio::sync::OnceCell;

/// Copies the migrated file to `path` (which must not exist yet).
pub async fn copy_migrated_to(path: &Path) {
    let template = migrated_template().await;
    std::fs::copy(template, path).expect("copy the migrated SQLite template");
}

async fn migrated_template() -> &'static Path {
    static TEMPLATE: OnceCell<(tempfile::TempDir, PathBuf)> = OnceCell::const_new();
    let (_, path) = TEMPLATE
        .get_or_init(|| async {
            let dir = tempfile::tempdir().expect("temp dir");
            let path = dir.path().join("template.db");
            // The default journal (not WAL), so that once the pool is closed the one file holds
            // everything.
            let db = sea_orm::Database::connect(format!("sqlite://{}?mode=rwc", path.display()))
                .await
                .expect("create the SQLite template");
            Migrator::up(&db, None)
                .await
                .expect("the migrations run on SQLite");
            db.close().await.expect("close the SQLite template");
            (dir, path)
        })
        .await;
    path
}
