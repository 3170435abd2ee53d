//! The operator's account repairs (`playtrace admin`): for an instance whose admin is locked
//! out and has no SMTP to reset a password by e-mail, whoever has a shell on the server and
//! its database URL sets a password, clears a lockout, or says who is an admin. They work on
//! the database directly, with or without a node running; nodes see the change within the
//! 2 seconds they cache an account's sessions.
use super::{
    service::{self, Email},
    AccountError,
};
use crate::{
    auth::{password, sessions},
    cli::AdminCommand,
    store::{cold, Db},
    words::AccountStatus,
};
use entity::{password_reset_tokens, users};
use sea_orm::{sea_query::Expr, ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
use std::io::{BufRead, IsTerminal};

#[derive(Debug, thiserror::Error)]
pub enum AdminError {
    #[error("no account has the address {0}")]
    NoAccount(String),
    #[error("{0} is the last admin of this instance; make another account an admin first")]
    LastAdmin(String),
    #[error("{0}")]
    Password(String),
    #[error(transparent)]
    Account(#[from] AccountError),
    #[error(transparent)]
    Cold(#[from] sea_orm::DbErr),
}

/// Runs one `playtrace admin` command and says what it did on standard output (never a
/// password or a token).
pub async fn run(command: AdminCommand) -> anyhow::Result<()> {
    let (email, database) = match &command {
        AdminCommand::ResetPassword { email, database }
        | AdminCommand::Unlock { email, database }
        | AdminCommand::MakeAdmin { email, database }
        | AdminCommand::RemoveAdmin { email, database } => (email, database),
    };
    let email = Email::parse(email)?;
    let address = email.as_str();
    // Read before connecting, so a prompt does not wait on a database that is not there.
    let new_password = match command {
        AdminCommand::ResetPassword { .. } => Some(read_new_password(address)?),
        _ => None,
    };
    let db = cold::connect(&database.database_url, 2).await?;
    cold::migrate(&db).await?;
    let said = match command {
        AdminCommand::ResetPassword { .. } => {
            set_password(&db, &email, new_password.unwrap_or_default()).await?;
            format!(
                "Password of {address} set. Its sessions were signed out and its sign-in \
                 lockout cleared."
            )
        }
        AdminCommand::Unlock { .. } => match unlock(&db, &email).await? {
            true => format!("Sign-in lockout of {address} cleared."),
            false => format!("{address} had no failed sign-ins to clear."),
        },
        AdminCommand::MakeAdmin { .. } => match set_admin(&db, &email, true).await? {
            true => format!("{address} is now an instance admin."),
            false => format!("{address} was already an instance admin."),
        },
        AdminCommand::RemoveAdmin { .. } => match set_admin(&db, &email, false).await? {
            true => format!("{address} is no longer an instance admin."),
            false => format!("{address} was not an instance admin."),
        },
    };
    println!("{said}");
    Ok(())
}

/// The new password: asked twice on the terminal without showing it, or the first line of
/// standard input when that is a pipe or a file (`printf '%s\n' "$PASS" | playtrace admin ...`).
fn read_new_password(address: &str) -> anyhow::Result<String> {
    if std::io::stdin().is_terminal() {
        let first = rpassword::prompt_password(format!("New password for {address}: "))?;
        let again = rpassword::prompt_password("The same password again: ")?;
        if first != again {
            anyhow::bail!("the two passwords differ; nothing was changed");
        }
        return Ok(first);
    }
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    let password = line.trim_end_matches(['\n', '\r']).to_string();
    if password.is_empty() {
        anyhow::bail!("no password on standard input (its first line is the new password)");
    }
    Ok(password)
}

async fn account(db: &Db, email: &Email) -> Result<users::Model, AdminError> {
    service::find_by_email(db, email)
        .await?
        .ok_or_else(|| AdminError::NoAccount(email.as_str().to_string()))
}

/// Sets the password by the same rules as registration, activates an invited account that
/// never set one, clears the lockout, and ends every session and outstanding reset or
/// invitation token of the account (as a reset by e-mail does).
pub async fn set_password(db: &Db, email: &Email, new_password: String) -> Result<(), AdminError> {
    password::check_strength(&new_password, Some(email.as_str()))
        .map_err(|refused| AdminError::Password(refused.message().to_string()))?;
    let user = account(db, email).await?;
    // OWASP's cost: the node's own cost setting is not read here, and a test setting of it
    // must never reach a password an operator sets.
    let hash = password::Hashing::new(1, 0, password::Cost::OWASP)
        .admit()
        .map_err(|error| AdminError::Password(error.message().to_string()))?
        .hash(new_password)
        .await
        .map_err(|error| AdminError::Password(error.message().to_string()))?;
    users::Entity::update_many()
        .col_expr(users::Column::PasswordHash, Expr::value(hash))
        .col_expr(
            users::Column::Status,
            Expr::value(AccountStatus::Active.as_str()),
        )
        .filter(users::Column::Id.eq(user.id))
        .exec(db)
        .await?;
    password_reset_tokens::Entity::delete_many()
        .filter(password_reset_tokens::Column::UserId.eq(user.id))
        .exec(db)
        .await?;
    unlock(db, email).await?;
    sessions::revoke_all(db, user.id).await?;
    Ok(())
}

/// Clears the failed sign-ins counted for the address, account or not; true when there were
/// any.
pub async fn unlock(db: &Db, email: &Email) -> Result<bool, AdminError> {
    let address = service::address_key(email.as_str());
    let counted = sea_orm::ConnectionTrait::query_one_raw(
        db,
        sea_orm::Statement::from_sql_and_values(
            db.get_database_backend(),
            "SELECT 1 AS counted FROM sign_in_failures_by_client WHERE email_hash = $1",
            [address.clone().into()],
        ),
    )
    .await?
    .is_some();
    service::clear_failures(db, &address).await?;
    Ok(counted)
}

/// Makes the account an instance admin or an ordinary account; true when that changed it.
/// The last admin stays one: an instance needs someone to set tiers and limits.
pub async fn set_admin(db: &Db, email: &Email, admin: bool) -> Result<bool, AdminError> {
    let user = account(db, email).await?;
    if user.is_admin == admin {
        return Ok(false);
    }
    if !admin {
        let admins = users::Entity::find()
            .filter(users::Column::IsAdmin.eq(true))
            .count(db)
            .await?;
        if admins <= 1 {
            return Err(AdminError::LastAdmin(email.as_str().to_string()));
        }
    }
    users::Entity::update_many()
        .col_expr(users::Column::IsAdmin, Expr::value(admin))
        .filter(users::Column::Id.eq(user.id))
        .exec(db)
        .await?;
    if admin {
        // An instance whose admin row was never claimed (closed registration reads it)
        // has one now.
        service::claim_admin(db, user.id).await?;
    }
    Ok(true)
}
