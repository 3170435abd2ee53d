//! `sign_in_failures_by_client`: failed sign-ins counted per (e-mail address, client address)
//! pair, both as SHA-256, so that five wrong guesses lock an address only for the client that
//! made them: a stranger can no longer lock an owner out of their account from elsewhere. A
//! row whose `email_hash` is `*` counts one client's failures at every address (a client that
//! sprays guesses over many addresses is locked out of all of them). Replaces
//! `sign_in_failures` (counted per address alone), which stays for a node of the previous
//! version during a rolling upgrade but is no longer read: a lock in it (15 minutes at most)
//! is forgotten by the upgrade.
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum SignInFailuresByClient {
    Table,
    EmailHash,
    ClientHash,
    Failures,
    LastFailedAt,
    LockedUntil,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        use SignInFailuresByClient as F;
        manager
            .create_table(
                Table::create()
                    .table(F::Table)
                    .if_not_exists()
                    .col(string(F::EmailHash))
                    .col(string(F::ClientHash))
                    .col(integer(F::Failures))
                    .col(timestamp_with_time_zone(F::LastFailedAt))
                    .col(timestamp_with_time_zone_null(F::LockedUntil))
                    .primary_key(Index::create().col(F::EmailHash).col(F::ClientHash))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .if_not_exists()
                    .name("idx_sign_in_failures_by_client_last_failed_at")
                    .table(F::Table)
                    .col(F::LastFailedAt)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(
                Table::drop()
                    .table(SignInFailuresByClient::Table)
                    .to_owned(),
            )
            .await
    }
}
