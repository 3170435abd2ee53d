//! Events get an index on (game, event name, player, time), so that a funnel can look up one
//! player's first event of a step after a given time with one probe (`funnels::query`,
//! `Strategy::PerPlayer`): a funnel then costs the players in its range times its steps,
//! not every event of its steps. On a large events table, build it beforehand without
//! blocking writes (PostgreSQL): `CREATE INDEX CONCURRENTLY idx_events_game_name_actor_time
//! ON events (game_id, event_name, actor_id, occurred_at)`; this migration then keeps it.
use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Events {
    Table,
    GameId,
    EventName,
    ActorId,
    OccurredAt,
}

const NAME: &str = "idx_events_game_name_actor_time";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_index(
                Index::create()
                    .if_not_exists()
                    .name(NAME)
                    .table(Events::Table)
                    .col(Events::GameId)
                    .col(Events::EventName)
                    .col(Events::ActorId)
                    .col(Events::OccurredAt)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_index(Index::drop().name(NAME).table(Events::Table).to_owned())
            .await
    }
}
