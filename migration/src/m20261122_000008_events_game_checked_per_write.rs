//! PostgreSQL only: events no longer carry a foreign key to their game, and their unique index
//! on `(game_id, event_id)` only holds the events that have an `event_id`.
//!
//! The foreign key made PostgreSQL run one lookup of the game (a row lock included) for every
//! stored event; the event writer now locks each game of its group once, in the same statement
//! (`FOR KEY SHARE`, as the foreign key did), and stores no event whose game is gone. Deleting a
//! game deletes its events explicitly (`games::service::delete`). Most events have no
//! `event_id`, and the full unique index held a useless entry for each of them.
//!
//! On a large events table, build the new index beforehand without blocking writes:
//! `CREATE UNIQUE INDEX CONCURRENTLY uq_events_game_event_id_set ON events (game_id, event_id)
//! WHERE event_id IS NOT NULL;` this migration then keeps it. SQLite keeps both as they were.
use sea_orm_migration::{prelude::*, sea_orm::DbBackend};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        if manager.get_database_backend() != DbBackend::Postgres {
            return Ok(());
        }
        let db = manager.get_connection();
        // The new index exists before the old one goes, so uniqueness holds throughout.
        db.execute_unprepared(
            "CREATE UNIQUE INDEX IF NOT EXISTS uq_events_game_event_id_set \
             ON events (game_id, event_id) WHERE event_id IS NOT NULL",
        )
        .await?;
        db.execute_unprepared("DROP INDEX IF EXISTS uq_events_game_event_id")
            .await?;
        db.execute_unprepared("ALTER TABLE events DROP CONSTRAINT IF EXISTS events_game_id_fkey")
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        if manager.get_database_backend() != DbBackend::Postgres {
            return Ok(());
        }
        let db = manager.get_connection();
        db.execute_unprepared("DELETE FROM events WHERE game_id NOT IN (SELECT id FROM games)")
            .await?;
        db.execute_unprepared(
            "ALTER TABLE events ADD CONSTRAINT events_game_id_fkey FOREIGN KEY (game_id) \
             REFERENCES games (id) ON DELETE CASCADE",
        )
        .await?;
        db.execute_unprepared(
            "CREATE UNIQUE INDEX IF NOT EXISTS uq_events_game_event_id ON events (game_id, event_id)",
        )
        .await?;
        db.execute_unprepared("DROP INDEX IF EXISTS uq_events_game_event_id_set")
            .await?;
        Ok(())
    }
}
