//! Account rules: e-mails matched case-insensitively, the first account is the instance admin,
//! 5 consecutive failures lock an account for 15 minutes, reset tokens are single use.
use super::AccountError;
use crate::{
    auth::{password, random_hex, sha256_hex},
    cli::Registration,
    notify::email::Delivery,
    state::AppState,
    store::Db,
    words::{AccountStatus, DeliveryStatus},
};
use chrono::{DateTime, Duration, Utc};
use entity::{password_reset_tokens, settings, users};
use sea_orm::{
    sea_query::{Expr, OnConflict},
    ActiveValue::Set,
    ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, Statement, TransactionTrait,
};
use uuid::Uuid;

pub const MAX_FAILED_LOGINS: i32 = 5;
pub const LOCKOUT_MINUTES: i64 = 15;
pub const RESET_TOKEN_MINUTES: i64 = 60;
/// At most one reset e-mail per account in this many minutes.
pub const RESET_MAIL_INTERVAL_MINUTES: i64 = 5;
pub const INVITATION_TOKEN_DAYS: i64 = 7;

/// The node's password-hashing pool (`auth::password::Hashing`).
fn hashing(state: &AppState) -> &password::Hashing {
    &state.parts.hashing
}

/// A place in the hashing pool, taken before anything else a request does, so a refused one
/// (503) costs nothing.
fn admit(state: &AppState) -> Result<password::Ticket, AccountError> {
    hashing(state).admit().map_err(AccountError::Password)
}

/// A syntactically plausible e-mail address, lower-cased.
#[derive(Debug, Clone)]
pub struct Email(String);

impl Email {
    pub fn parse(raw: &str) -> Result<Self, AccountError> {
        let email = raw.trim().to_lowercase();
        let valid = email.len() <= 254
            && email.split_once('@').is_some_and(|(local, domain)| {
                !local.is_empty()
                    && domain.contains('.')
                    && !domain.starts_with('.')
                    && !domain.ends_with('.')
            })
            && !email
                .chars()
                .any(|c| c.is_whitespace() || c == '<' || c == '>' || c == ',');
        if valid {
            Ok(Self(email))
        } else {
            Err(AccountError::InvalidEmail)
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

pub async fn find_by_email(db: &Db, email: &Email) -> Result<Option<users::Model>, AccountError> {
    Ok(users::Entity::find()
        .filter(users::Column::Email.eq(email.as_str()))
        .one(db)
        .await?)
}

pub async fn find(db: &Db, id: Uuid) -> Result<Option<users::Model>, AccountError> {
    Ok(users::Entity::find_by_id(id).one(db).await?)
}

/// The account a bearer token belongs to; `Gone` once it was deleted.
pub async fn current_user(db: &Db, id: Uuid) -> Result<users::Model, AccountError> {
    find(db, id).await?.ok_or(AccountError::Gone)
}

/// Counts a registration request from `client` (hot store, one clock hour's window) and
/// refuses it past `--registrations-per-hour`. A hot store that cannot answer lets it through,
/// as the rate limiter does; readiness reports the outage.
pub async fn admit_registration(state: &AppState, client: &str) -> Result<(), AccountError> {
    const HOUR: u64 = 3600;
    let bucket = format!("register:{}", sha256_hex(client));
    match state.hot.limits.hit(&bucket, 1, HOUR, state.now()).await {
        Ok(window) if window.count > u64::from(state.settings.registrations_per_hour) => Err(
            AccountError::RegistrationsThrottled(window.resets_in_secs.max(1)),
        ),
        Ok(_) => Ok(()),
        Err(error) => {
            tracing::warn!(error.cause_chain = ?error, "registration throttle unavailable; request let through");
            crate::telemetry::hot_store_error(error.kind());
            Ok(())
        }
    }
}

/// Creates an active account. The first account of the instance becomes its admin; that is
/// decided by claiming a settings row, so two simultaneous first registrations cannot both win.
pub async fn register(
    state: &AppState,
    email: Email,
    password_text: String,
) -> Result<users::Model, AccountError> {
    password::check_strength(&password_text, Some(email.as_str()))
        .map_err(AccountError::Password)?;
    let ticket = admit(state)?;
    if state.settings.registration == Registration::Closed && admin_exists(&state.db).await? {
        return Err(AccountError::RegistrationClosed);
    }
    let existing = find_by_email(&state.db, &email).await?;
    if let Some(user) = &existing {
        if AccountStatus::stored(&user.status)? != AccountStatus::Pending {
            return Err(AccountError::EmailTaken);
        }
    }
    let hash = ticket
        .hash(password_text)
        .await
        .map_err(AccountError::Password)?;
    if let Some(invited) = existing {
        return claim_invited(state, invited, hash).await;
    }
    let id = Uuid::now_v7();
    let now = state.now();
    let user = users::ActiveModel {
        id: Set(id),
        email: Set(email.as_str().to_string()),
        password_hash: Set(Some(hash)),
        status: Set(AccountStatus::Active.as_str().into()),
        is_admin: Set(false),
        failed_logins: Set(0),
        locked_until: Set(None),
        created_at: Set(now),
    };
    let user = match users::Entity::insert(user)
        .exec_with_returning(&state.db)
        .await
    {
        Ok(user) => user,
        Err(e) if crate::error::is_constraint_violation(&e) => {
            return Err(AccountError::EmailTaken)
        }
        Err(e) => return Err(e.into()),
    };
    if claim_admin(&state.db, id).await? {
        let mut admin: users::ActiveModel = user.into();
        admin.is_admin = Set(true);
        return Ok(sea_orm::ActiveModelTrait::update(admin, &state.db).await?);
    }
    Ok(user)
}

/// Registration of an address that was invited but never signed up: the pending account
/// becomes the registrant's, with its memberships, as an invitation to an address that had
/// registered first would have made it (registration takes the address on trust either way;
/// see `docs/security.md`). Invitations must not keep an address's owner from registering.
/// Its invitation and reset tokens die with it: whoever else holds one cannot set the
/// password of the now active account. One conditional update, so a registration racing the
/// invitee's own activation leaves one of them the winner and the other a 409.
async fn claim_invited(
    state: &AppState,
    invited: users::Model,
    hash: String,
) -> Result<users::Model, AccountError> {
    let txn = state.db.begin().await?;
    let claimed = users::Entity::update_many()
        .col_expr(users::Column::PasswordHash, Expr::value(hash))
        .col_expr(
            users::Column::Status,
            Expr::value(AccountStatus::Active.as_str()),
        )
        .filter(users::Column::Id.eq(invited.id))
        .filter(users::Column::Status.eq(AccountStatus::Pending.as_str()))
        .exec(&txn)
        .await?;
    if claimed.rows_affected != 1 {
        return Err(AccountError::EmailTaken);
    }
    password_reset_tokens::Entity::delete_many()
        .filter(password_reset_tokens::Column::UserId.eq(invited.id))
        .exec(&txn)
        .await?;
    let user = users::Entity::find_by_id(invited.id)
        .one(&txn)
        .await?
        .ok_or(AccountError::EmailTaken)?;
    txn.commit().await?;
    Ok(user)
}

/// True once the instance has its first account (the admin).
async fn admin_exists(db: &Db) -> Result<bool, AccountError> {
    Ok(settings::Entity::find_by_id("admin_user_id".to_string())
        .one(db)
        .await?
        .is_some())
}

pub(super) async fn claim_admin(db: &Db, user_id: Uuid) -> Result<bool, AccountError> {
    let claimed = settings::Entity::insert(settings::ActiveModel {
        key: Set("admin_user_id".into()),
        value: Set(user_id.to_string()),
    })
    .on_conflict(
        OnConflict::column(settings::Column::Key)
            .do_nothing()
            .to_owned(),
    )
    .exec_without_returning(db)
    .await?;
    Ok(claimed == 1)
}

/// Checks credentials. Every attempt costs the same and answers alike whatever is behind the
/// address (an account, an invitation, nothing), unless it proves to be its owner's:
/// - exactly one argon2 verification runs, against a dummy hash when there is no password;
/// - failures are counted per address and client (`sign_in_failures_by_client`), with or
///   without an account, and five within 15 minutes of each other lock the address for that
///   client for 15 minutes: 403 `ACCOUNT_LOCKED` for any password, so the lock neither reveals
///   an account nor confirms a guessed password, and a stranger's guesses never lock the owner
///   out from where the owner signs in;
/// - a client with `--sign-in-failures-per-client` failures over any addresses within 15
///   minutes of each other is locked out of every address for 15 minutes (guesses sprayed over
///   many accounts, credential stuffing);
/// - a pending account (invited, no password yet) answers a wrong password like nobody's;
///   only its invitation or reset token given as the password answers 403 `ACCOUNT_PENDING`.
pub async fn login(
    state: &AppState,
    email: &str,
    password_text: String,
    client_ip: &str,
) -> Result<users::Model, AccountError> {
    let ticket = admit(state)?;
    let now = state.now();
    let address = address_key(email);
    let client = sha256_hex(client_ip);
    let user = match Email::parse(email) {
        Ok(email) => find_by_email(&state.db, &email).await?,
        Err(_) => None,
    };
    if locked_until(&state.db, &address, &client)
        .await?
        .is_some_and(|until| until > now)
    {
        verify(ticket, password_text, None).await?;
        return Err(AccountError::Locked);
    }
    let stored = user
        .as_ref()
        .filter(|user| AccountStatus::stored(&user.status).ok() == Some(AccountStatus::Active))
        .and_then(|user| user.password_hash.clone());
    let token_hash = sha256_hex(password_text.trim());
    let verdict = verify(ticket, password_text, stored.clone()).await?;
    if verdict.matches {
        if let Some(user) = user {
            forget_failures(&state.db, &address, &client).await?;
            if let (Some(rehashed), Some(old)) = (verdict.rehashed, stored) {
                store_rehashed(&state.db, user.id, &old, rehashed).await?;
            }
            return Ok(user);
        }
    }
    // Looked up for every failure, with an account or not, so that it costs the same.
    let user_id = user.as_ref().map_or(Uuid::nil(), |user| user.id);
    let proves_invitation = holds_token(&state.db, user_id, &token_hash, now).await?;
    if let Some(user) = &user {
        if AccountStatus::stored(&user.status)? == AccountStatus::Pending && proves_invitation {
            return Err(AccountError::Pending);
        }
    }
    let per_client = i32::try_from(state.settings.sign_in_failures_per_client).unwrap_or(i32::MAX);
    // Both counted, whichever locks: the client's count must not stop growing at an address
    // it has locked itself out of.
    let address_locked =
        record_failure(&state.db, &address, &client, MAX_FAILED_LOGINS, now).await?;
    let client_locked = record_failure(&state.db, ANY_ADDRESS, &client, per_client, now).await?;
    if address_locked || client_locked {
        return Err(AccountError::Locked);
    }
    Err(AccountError::WrongCredentials)
}

async fn verify(
    ticket: password::Ticket,
    password_text: String,
    stored: Option<String>,
) -> Result<password::Verdict, AccountError> {
    ticket
        .verify(password_text, stored)
        .await
        .map_err(AccountError::Password)
}

/// Replaces a password hash made at an earlier cost with `rehashed` (the same password at the
/// current cost), unless the password changed meanwhile: after a change of cost every account
/// that signs in moves to it, and its wrong passwords then cost a guesser what an unknown
/// address's do (the dummy hash is made at the current cost).
async fn store_rehashed(
    db: &Db,
    user_id: Uuid,
    old: &str,
    rehashed: String,
) -> Result<(), AccountError> {
    users::Entity::update_many()
        .col_expr(users::Column::PasswordHash, Expr::value(rehashed))
        .filter(users::Column::Id.eq(user_id))
        .filter(users::Column::PasswordHash.eq(old))
        .exec(db)
        .await?;
    Ok(())
}

/// The key failures are counted under: the SHA-256 of the address as it is matched
/// (lower-cased, trimmed), so the table holds no guessed addresses in clear.
pub(super) fn address_key(email: &str) -> String {
    sha256_hex(email.trim().to_lowercase().as_str())
}

/// The `email_hash` of a client's row that counts its failures at every address.
const ANY_ADDRESS: &str = "*";

/// When the lock on `address` for `client` ends, if there is one: its own, or the client's
/// lock on every address, whichever ends later.
async fn locked_until(
    db: &Db,
    address: &str,
    client: &str,
) -> Result<Option<DateTime<Utc>>, AccountError> {
    let backend = db.get_database_backend();
    let row = db
        .query_one_raw(Statement::from_sql_and_values(
            backend,
            "SELECT MAX(locked_until) AS locked_until FROM sign_in_failures_by_client \
             WHERE email_hash IN ($1, $2) AND client_hash = $3",
            [address.into(), ANY_ADDRESS.into(), client.into()],
        ))
        .await?;
    Ok(match row {
        Some(row) => row.try_get::<Option<DateTime<Utc>>>("", "locked_until")?,
        None => None,
    })
}

/// True when `token_hash` is the hash of an unused, unexpired invitation or reset token of `user_id`:
/// proof of the mailbox, for a pending account that has no password yet.
async fn holds_token(
    db: &Db,
    user_id: Uuid,
    token_hash: &str,
    now: DateTime<Utc>,
) -> Result<bool, AccountError> {
    Ok(
        password_reset_tokens::Entity::find_by_id(token_hash.to_string())
            .filter(password_reset_tokens::Column::UserId.eq(user_id))
            .filter(password_reset_tokens::Column::UsedAt.is_null())
            .filter(password_reset_tokens::Column::ExpiresAt.gt(now))
            .one(db)
            .await?
            .is_some(),
    )
}

/// Clears every client's failures and locks at `address` (a password reset, `playtrace admin
/// unlock`).
pub(super) async fn clear_failures(db: &Db, address: &str) -> Result<(), AccountError> {
    let backend = db.get_database_backend();
    db.execute_raw(Statement::from_sql_and_values(
        backend,
        "DELETE FROM sign_in_failures_by_client WHERE email_hash = $1",
        [address.into()],
    ))
    .await?;
    Ok(())
}

/// Forgets `client`'s failures at `address` (it signed in there). Its count over every
/// address stays: one good password does not pay for guesses elsewhere.
async fn forget_failures(db: &Db, address: &str, client: &str) -> Result<(), AccountError> {
    let backend = db.get_database_backend();
    db.execute_raw(Statement::from_sql_and_values(
        backend,
        "DELETE FROM sign_in_failures_by_client WHERE email_hash = $1 AND client_hash = $2",
        [address.into(), client.into()],
    ))
    .await?;
    Ok(())
}

/// Counts one failed sign-in for (`address`, `client`) in a single statement (no lost updates
/// under concurrent attempts): a failure more than 15 minutes after the previous one starts the
/// count again, and the `max`th locks the pair for 15 minutes. True when this failure locked
/// it.
async fn record_failure(
    db: &Db,
    address: &str,
    client: &str,
    max: i32,
    now: DateTime<Utc>,
) -> Result<bool, AccountError> {
    let locked_until = now + Duration::minutes(LOCKOUT_MINUTES);
    let stale = now - Duration::minutes(LOCKOUT_MINUTES);
    let backend = db.get_database_backend();
    let count = "CASE WHEN sign_in_failures_by_client.last_failed_at <= $5 THEN 1 \
                 ELSE sign_in_failures_by_client.failures + 1 END";
    let sql = format!(
        "INSERT INTO sign_in_failures_by_client \
           (email_hash, client_hash, failures, last_failed_at, locked_until) \
         VALUES ($1, $2, 1, $3, CASE WHEN $6 <= 1 THEN $4 END) \
         ON CONFLICT (email_hash, client_hash) DO UPDATE SET \
           locked_until = CASE WHEN {count} >= $6 THEN $4 \
             ELSE sign_in_failures_by_client.locked_until END, \
           failures = CASE WHEN {count} >= $6 THEN 0 ELSE {count} END, \
           last_failed_at = $3 \
         RETURNING locked_until"
    );
    let row = db
        .query_one_raw(Statement::from_sql_and_values(
            backend,
            sql,
            [
                address.into(),
                client.into(),
                now.into(),
                locked_until.into(),
                stale.into(),
                max.into(),
            ],
        ))
        .await?;
    let locked = match row {
        Some(row) => row.try_get::<Option<DateTime<Utc>>>("", "locked_until")?,
        None => None,
    };
    Ok(locked.is_some_and(|until| until > now))
}

/// Forgets the failures that no longer count (the last one more than 15 minutes ago, and
/// any lock over), so guesses at many addresses do not pile up rows; the worker runs it hourly.
pub async fn forget_old_sign_in_failures(state: &AppState) -> Result<(), AccountError> {
    let now = state.now();
    let backend = state.db.get_database_backend();
    state
        .db
        .execute_raw(Statement::from_sql_and_values(
            backend,
            "DELETE FROM sign_in_failures_by_client WHERE last_failed_at <= $1 \
             AND (locked_until IS NULL OR locked_until <= $2)",
            [
                (now - Duration::minutes(LOCKOUT_MINUTES)).into(),
                now.into(),
            ],
        ))
        .await?;
    Ok(())
}

/// Creates a single-use reset token for `user_id`, valid for `lifetime`, and returns the raw
/// token (only its hash is stored).
pub async fn create_reset_token(
    db: &Db,
    user_id: Uuid,
    now: DateTime<Utc>,
    lifetime: Duration,
) -> Result<String, AccountError> {
    let token = random_hex(32);
    password_reset_tokens::Entity::insert(password_reset_tokens::ActiveModel {
        token_hash: Set(sha256_hex(&token)),
        user_id: Set(user_id),
        expires_at: Set(now + lifetime),
        used_at: Set(None),
        created_at: Set(now),
    })
    .exec_without_returning(db)
    .await?;
    Ok(token)
}

/// Claims the user's reset e-mail for now, in one conditional update: false when one went out
/// in the last `RESET_MAIL_INTERVAL_MINUTES`, so nobody can fill an inbox by asking again and
/// again, even all at once (the answer is the same 202 either way).
async fn claim_reset_mail(
    db: &Db,
    user_id: Uuid,
    now: DateTime<Utc>,
) -> Result<bool, AccountError> {
    let backend = db.get_database_backend();
    let claimed = db
        .execute_raw(Statement::from_sql_and_values(
            backend,
            "UPDATE users SET reset_mailed_at = $1 \
             WHERE id = $2 AND (reset_mailed_at IS NULL OR reset_mailed_at <= $3)",
            [
                now.into(),
                user_id.into(),
                (now - Duration::minutes(RESET_MAIL_INTERVAL_MINUTES)).into(),
            ],
        ))
        .await?;
    Ok(claimed.rows_affected() == 1)
}

/// Sends a reset e-mail if the address has an account, at most one every
/// `RESET_MAIL_INTERVAL_MINUTES`. Runs in the background so the
/// answer looks and times the same either way.
pub fn forgot_password(state: &AppState, email: &str) {
    let Ok(email) = Email::parse(email) else {
        return;
    };
    let state = state.clone();
    tokio::spawn(async move {
        let result: Result<(), AccountError> = async {
            let Some(user) = find_by_email(&state.db, &email).await? else { return Ok(()) };
            let now = state.now();
            if !claim_reset_mail(&state.db, user.id, now).await? {
                tracing::info!("a reset e-mail went to this address less than 5 minutes ago; not sending another");
                return Ok(());
            }
            let token = create_reset_token(&state.db, user.id, now, Duration::minutes(RESET_TOKEN_MINUTES)).await?;
            let link = format!("{}/reset-password?token={token}", state.public_url);
            let body = format!(
                "Someone asked to reset the password of your playtrace account.\n\n\
                 Reset token: {token}\nLink: {link}\n\nThe token is valid for one hour and works once. \
                 If you did not ask for this, ignore this e-mail."
            );
            if let Err(error) = state.mailer.send(email.as_str(), "Reset your playtrace password", &body).await {
                tracing::warn!(error = %error, "password reset e-mail failed");
            }
            Ok(())
        }
        .await;
        if let Err(error) = result {
            tracing::warn!(error = %error, "password reset request failed");
        }
    });
}

/// Sets a new password with a reset (or invitation) token, activating a pending account and
/// clearing any lockout. The token is consumed in one conditional update, so it works once.
pub async fn reset_password(
    state: &AppState,
    token: &str,
    new_password: String,
) -> Result<(), AccountError> {
    password::check_strength(&new_password, None).map_err(AccountError::Password)?;
    // Before the token is consumed: a refusal must not cost the user their token.
    let ticket = admit(state)?;
    let now = state.now();
    let invalid = || AccountError::InvalidResetToken;
    let hash = sha256_hex(token.trim());
    let Some(stored) = password_reset_tokens::Entity::find_by_id(hash.clone())
        .one(&state.db)
        .await?
    else {
        return Err(invalid());
    };
    let consumed = password_reset_tokens::Entity::update_many()
        .col_expr(
            password_reset_tokens::Column::UsedAt,
            sea_orm::sea_query::Expr::value(now),
        )
        .filter(password_reset_tokens::Column::TokenHash.eq(hash))
        .filter(password_reset_tokens::Column::UsedAt.is_null())
        .filter(password_reset_tokens::Column::ExpiresAt.gt(now))
        .exec(&state.db)
        .await?;
    if consumed.rows_affected != 1 {
        return Err(invalid());
    }
    let password_hash = ticket
        .hash(new_password)
        .await
        .map_err(AccountError::Password)?;
    users::Entity::update_many()
        .col_expr(
            users::Column::PasswordHash,
            sea_orm::sea_query::Expr::value(password_hash),
        )
        .col_expr(
            users::Column::Status,
            sea_orm::sea_query::Expr::value(AccountStatus::Active.as_str()),
        )
        .col_expr(
            users::Column::FailedLogins,
            sea_orm::sea_query::Expr::value(0),
        )
        .col_expr(
            users::Column::LockedUntil,
            sea_orm::sea_query::Expr::value(Option::<DateTime<Utc>>::None),
        )
        .filter(users::Column::Id.eq(stored.user_id))
        .exec(&state.db)
        .await?;
    // The reset e-mail is how an owner locked out by someone else's guesses gets back in.
    if let Some(user) = find(&state.db, stored.user_id).await? {
        clear_failures(&state.db, &address_key(&user.email)).await?;
    }
    // Whoever held a session (a stolen laptop, a leaked token) is signed out with the old
    // password.
    revoke_sessions(state, stored.user_id).await?;
    Ok(())
}

/// Revokes every dashboard token of the user, on every node before this returns.
pub async fn revoke_sessions(state: &AppState, user_id: Uuid) -> Result<(), AccountError> {
    crate::auth::sessions::revoke_all(&state.db, user_id).await?;
    // Caches forget by id what they hold about it: announced under the user's id, the change
    // reaches the session caches (no game has this id).
    if let Err(error) = state.hot.changes.announce(user_id).await {
        tracing::warn!(error = %error, "announcing revoked sessions failed; other nodes follow within 2 s");
    }
    Ok(())
}

/// A new pending account and what became of its invitation e-mail.
pub struct Invitation {
    pub user: users::Model,
    pub mail: DeliveryStatus,
    /// The link that sets the invitee's password, for the inviting owner to pass on when the
    /// e-mail did not go out (no SMTP server configured, or the server refused it).
    pub unsent_link: Option<String>,
}

/// Creates a pending account for an unknown invitee to `game_name` and e-mails them a token to
/// set a password (valid `INVITATION_TOKEN_DAYS`). The e-mail is sent before this returns, so
/// the owner learns whether it went out (and, when it did not, gets its link). It names who
/// invited them (`inviter`, the owner's address): the game's name is the inviter's words, and
/// the reader judges them by who wrote them.
pub async fn invite(
    state: &AppState,
    email: &Email,
    game_name: &str,
    inviter: &str,
) -> Result<Invitation, AccountError> {
    let now = state.now();
    let user = users::Model {
        id: Uuid::now_v7(),
        email: email.as_str().to_string(),
        password_hash: None,
        status: AccountStatus::Pending.as_str().into(),
        is_admin: false,
        failed_logins: 0,
        locked_until: None,
        created_at: now,
    };
    users::Entity::insert(users::ActiveModel::from(user.clone()))
        .exec_without_returning(&state.db)
        .await?;
    if state.settings.smtp_url.is_some() {
        // The first invitation e-mail starts the interval a resend waits out.
        claim_reset_mail(&state.db, user.id, now).await?;
    }
    mail_invitation(state, user, game_name, inviter).await
}

/// Sends a pending account a new invitation (owner, from the Members view): its earlier links
/// stop working and the new one is valid `INVITATION_TOKEN_DAYS` from now. With an SMTP server,
/// one address gets at most one invitation e-mail every `RESET_MAIL_INTERVAL_MINUTES` (the
/// interval password resets keep), so an owner cannot fill a stranger's inbox; without one,
/// nothing is sent and the owner gets the link at once, each time.
pub async fn resend_invitation(
    state: &AppState,
    user: users::Model,
    game_name: &str,
    inviter: &str,
) -> Result<Invitation, AccountError> {
    if AccountStatus::stored(&user.status)? != AccountStatus::Pending {
        return Err(AccountError::NotInvited);
    }
    if state.settings.smtp_url.is_some()
        && !claim_reset_mail(&state.db, user.id, state.now()).await?
    {
        return Err(AccountError::InvitationMailedRecently);
    }
    password_reset_tokens::Entity::delete_many()
        .filter(password_reset_tokens::Column::UserId.eq(user.id))
        .filter(password_reset_tokens::Column::UsedAt.is_null())
        .exec(&state.db)
        .await?;
    mail_invitation(state, user, game_name, inviter).await
}

/// Makes an invitation token for the pending `user` and e-mails its link.
async fn mail_invitation(
    state: &AppState,
    user: users::Model,
    game_name: &str,
    inviter: &str,
) -> Result<Invitation, AccountError> {
    let now = state.now();
    let email = user.email.clone();
    let token = create_reset_token(
        &state.db,
        user.id,
        now,
        Duration::days(INVITATION_TOKEN_DAYS),
    )
    .await?;
    let link = format!("{}/activate?token={token}", state.public_url);
    let body = format!(
        "{inviter} invited you to their game \"{game_name}\" on playtrace ({url}).\n\n\
         Set your password to activate your account: {link}\n\
         Token: {token}\n\nThe invitation is valid for 7 days. If you do not know {inviter}, \
         ignore this mail: nothing happens unless you set a password.",
        url = state.public_url
    );
    let mail = match state
        .mailer
        .send(&email, "You have been invited to playtrace", &body)
        .await
    {
        Ok(Delivery::Sent) => DeliveryStatus::Sent,
        Ok(Delivery::Skipped) => DeliveryStatus::Skipped,
        Err(error) => {
            tracing::warn!(error = %error, "invitation e-mail failed");
            DeliveryStatus::Failed
        }
    };
    Ok(Invitation {
        user,
        unsent_link: (mail != DeliveryStatus::Sent).then_some(link),
        mail,
    })
}
