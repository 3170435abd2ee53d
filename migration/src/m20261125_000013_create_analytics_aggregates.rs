//! Aggregates kept at ingest, in the same transaction as the events they count, so analytics
//! reads cost the buckets they show instead of the events stored (see `docs/analytics.md`):
//! - `analytics_event_counts`: events, log errors and revenue per game, environment, event name
//!   and UTC hour, in shards (one per concurrent writer, as `event_usage_shards`);
//! - `analytics_player_hours` / `analytics_player_days`: who was active in which hour and day,
//!   per scope (an environment, or `all`); inserting a row that is new bumps
//!   `analytics_active_users`, the distinct count of that hour or day; a day's row also holds
//!   the hours of that day the player was active in (`hours`, bit h for hour h, UTC), so
//!   that active users over windows not lined up with days cost player-days, not
//!   player-hours;
//! - `analytics_players`: each player's first and last day seen per scope, and
//!   `analytics_cohorts`: users first seen on a day (offset 0) and of those, users active again
//!   1 to 30 days later;
//! - the events' (game, name, time) index also holds the player, so funnels read their steps
//!   from the index alone;
//! - `analytics_backfill`: games whose events stored before this migration are still to be
//!   counted (by the worker, or `playtrace aggregates rebuild`), with the boundary below which
//!   ingest leaves events to the backfill.
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden, Clone, Copy)]
enum AnalyticsEventCounts {
    Table,
    GameId,
    Environment,
    EventName,
    Hour,
    Shard,
    Events,
    LogErrors,
    Revenue,
}

#[derive(DeriveIden, Clone, Copy)]
enum AnalyticsActiveUsers {
    Table,
    GameId,
    Scope,
    Span,
    Bucket,
    Shard,
    Users,
}

#[derive(DeriveIden, Clone, Copy)]
enum AnalyticsPlayerHours {
    Table,
    GameId,
    Scope,
    Hour,
    ActorId,
}

#[derive(DeriveIden, Clone, Copy)]
enum AnalyticsPlayerDays {
    Table,
    GameId,
    Scope,
    ActorId,
    Day,
    Hours,
}

#[derive(DeriveIden, Clone, Copy)]
enum AnalyticsPlayers {
    Table,
    GameId,
    Scope,
    ActorId,
    FirstDay,
    LastDay,
}

#[derive(DeriveIden, Clone, Copy)]
enum AnalyticsCohorts {
    Table,
    GameId,
    Scope,
    CohortDay,
    DayOffset,
    Shard,
    Users,
}

#[derive(DeriveIden, Clone, Copy)]
enum Events {
    Table,
    GameId,
    EventName,
    OccurredAt,
    ActorId,
}

#[derive(DeriveIden, Clone, Copy)]
enum AnalyticsBackfill {
    Table,
    GameId,
    BoundaryMs,
    Cursor,
}

fn primary_key<T: IntoIden + Copy>(columns: &[T]) -> IndexCreateStatement {
    let mut index = Index::create();
    for column in columns {
        index.col(*column);
    }
    index.to_owned()
}

/// Replaces the events index `old` with `new` on `columns`.
async fn swap_events_index(
    manager: &SchemaManager<'_>,
    old: &str,
    new: &str,
    columns: &[Events],
) -> Result<(), DbErr> {
    manager
        .drop_index(Index::drop().name(old).table(Events::Table).to_owned())
        .await?;
    let mut index = Index::create();
    index.name(new).table(Events::Table);
    for column in columns {
        index.col(*column);
    }
    manager.create_index(index.to_owned()).await
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        use AnalyticsEventCounts as C;
        manager
            .create_table(
                Table::create()
                    .table(C::Table)
                    .if_not_exists()
                    .col(uuid(C::GameId))
                    .col(string(C::Environment))
                    .col(string(C::EventName))
                    .col(big_integer(C::Hour))
                    .col(small_integer(C::Shard))
                    .col(big_integer(C::Events))
                    .col(big_integer(C::LogErrors))
                    .col(double(C::Revenue))
                    .primary_key(&mut primary_key(&[
                        C::GameId,
                        C::Hour,
                        C::Environment,
                        C::EventName,
                        C::Shard,
                    ]))
                    .to_owned(),
            )
            .await?;
        use AnalyticsActiveUsers as A;
        manager
            .create_table(
                Table::create()
                    .table(A::Table)
                    .if_not_exists()
                    .col(uuid(A::GameId))
                    .col(string(A::Scope))
                    .col(string(A::Span))
                    .col(big_integer(A::Bucket))
                    .col(small_integer(A::Shard))
                    .col(big_integer(A::Users))
                    .primary_key(&mut primary_key(&[
                        A::GameId,
                        A::Scope,
                        A::Span,
                        A::Bucket,
                        A::Shard,
                    ]))
                    .to_owned(),
            )
            .await?;
        use AnalyticsPlayerHours as H;
        manager
            .create_table(
                Table::create()
                    .table(H::Table)
                    .if_not_exists()
                    .col(uuid(H::GameId))
                    .col(string(H::Scope))
                    .col(big_integer(H::Hour))
                    .col(string(H::ActorId))
                    .primary_key(&mut primary_key(&[
                        H::GameId,
                        H::Scope,
                        H::Hour,
                        H::ActorId,
                    ]))
                    .to_owned(),
            )
            .await?;
        use AnalyticsPlayerDays as D;
        manager
            .create_table(
                Table::create()
                    .table(D::Table)
                    .if_not_exists()
                    .col(uuid(D::GameId))
                    .col(string(D::Scope))
                    .col(string(D::ActorId))
                    .col(big_integer(D::Day))
                    .col(big_integer(D::Hours).default(0))
                    .primary_key(&mut primary_key(&[D::GameId, D::Scope, D::ActorId, D::Day]))
                    .to_owned(),
            )
            .await?;
        // Who was active on a day, and in which of its hours, read by day: active users over
        // windows that do not line up with days (alerts), retention's deletes. On PostgreSQL
        // the player and hours are INCLUDEd, not key columns, so that the planner (before any
        // ANALYZE too) never takes this index for the writers' look-ups of given players'
        // days, which the primary key serves.
        let by_day = match manager.get_database_backend() {
            sea_orm::DbBackend::Postgres => {
                "CREATE INDEX IF NOT EXISTS analytics_player_days_by_day ON analytics_player_days \
                 (game_id, scope, day) INCLUDE (actor_id, hours)"
            }
            _ => {
                "CREATE INDEX IF NOT EXISTS analytics_player_days_by_day ON analytics_player_days \
                 (game_id, scope, day, actor_id, hours)"
            }
        };
        manager.get_connection().execute_unprepared(by_day).await?;
        use AnalyticsPlayers as P;
        manager
            .create_table(
                Table::create()
                    .table(P::Table)
                    .if_not_exists()
                    .col(uuid(P::GameId))
                    .col(string(P::Scope))
                    .col(string(P::ActorId))
                    .col(big_integer(P::FirstDay))
                    .col(big_integer(P::LastDay))
                    .primary_key(&mut primary_key(&[P::GameId, P::Scope, P::ActorId]))
                    .to_owned(),
            )
            .await?;
        use AnalyticsCohorts as K;
        manager
            .create_table(
                Table::create()
                    .table(K::Table)
                    .if_not_exists()
                    .col(uuid(K::GameId))
                    .col(string(K::Scope))
                    .col(big_integer(K::CohortDay))
                    .col(small_integer(K::DayOffset))
                    .col(small_integer(K::Shard))
                    .col(big_integer(K::Users))
                    .primary_key(&mut primary_key(&[
                        K::GameId,
                        K::Scope,
                        K::CohortDay,
                        K::DayOffset,
                        K::Shard,
                    ]))
                    .to_owned(),
            )
            .await?;
        use AnalyticsBackfill as B;
        manager
            .create_table(
                Table::create()
                    .table(B::Table)
                    .if_not_exists()
                    .col(uuid(B::GameId).primary_key())
                    .col(big_integer(B::BoundaryMs))
                    .col(uuid_null(B::Cursor))
                    .to_owned(),
            )
            .await?;
        // Funnels read the events of their steps only: with the player in the (game, name,
        // time) index, PostgreSQL answers them from the index alone.
        swap_events_index(
            manager,
            "idx_events_game_name_time",
            "idx_events_game_name_time_actor",
            &[
                Events::GameId,
                Events::EventName,
                Events::OccurredAt,
                Events::ActorId,
            ],
        )
        .await?;
        // Every game that may already hold events gets counted from its stored events. Events
        // stored from now on are counted at ingest; the boundary (now) tells the two apart, and
        // the backfill waits a minute past it for requests in flight.
        let boundary_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|since| since.as_millis() as i64)
            .unwrap_or_default();
        manager
            .get_connection()
            .execute_unprepared(&format!(
                "INSERT INTO analytics_backfill (game_id, boundary_ms) \
                 SELECT DISTINCT game_id, {boundary_ms} FROM event_usage_shards"
            ))
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        swap_events_index(
            manager,
            "idx_events_game_name_time_actor",
            "idx_events_game_name_time",
            &[Events::GameId, Events::EventName, Events::OccurredAt],
        )
        .await?;
        for table in [
            "analytics_backfill",
            "analytics_cohorts",
            "analytics_players",
            "analytics_player_days",
            "analytics_player_hours",
            "analytics_active_users",
            "analytics_event_counts",
        ] {
            manager
                .drop_table(Table::drop().table(Alias::new(table)).to_owned())
                .await?;
        }
        Ok(())
    }
}
