//! `sign_in_failures`: failed sign-ins counted per e-mail address (its SHA-256), for addresses
//! with an account and without alike, so that locking an address after five failures tells a
//! guesser nothing about whether it has an account. Replaces `users.failed_logins` and
//! `users.locked_until`, which stay (a node of the previous version still writes them) but
//! are no longer read.
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum SignInFailures {
    Table,
    EmailHash,
    Failures,
    LastFailedAt,
    LockedUntil,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(SignInFailures::Table)
                    .if_not_exists()
                    .col(string(SignInFailures::EmailHash).primary_key())
                    .col(integer(SignInFailures::Failures))
                    .col(timestamp_with_time_zone(SignInFailures::LastFailedAt))
                    .col(timestamp_with_time_zone_null(SignInFailures::LockedUntil))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_sign_in_failures_last_failed_at")
                    .table(SignInFailures::Table)
                    .col(SignInFailures::LastFailedAt)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(SignInFailures::Table).to_owned())
            .await
    }
}
