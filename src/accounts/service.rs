//! Account rules: e-mails matched case-insensitively, the first account is the instance admin,
//! 5 consecutive failures lock an account for 15 minutes, reset tokens are single use.
use super::AccountError;
use crate::{
    auth::{password, random_hex, sha256_hex},
    cli::Registration,
    state::AppState,
    store::Db,
};
use chrono::{DateTime, Duration, Utc};
use entity::{password_reset_tokens, settings, users};
use sea_orm::{
    sea_query::OnConflict, ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait,
    QueryFilter, Statement,
};
use uuid::Uuid;

pub const MAX_FAILED_LOGINS: i32 = 5;
pub const LOCKOUT_MINUTES: i64 = 15;
pub const RESET_TOKEN_MINUTES: i64 = 60;
pub const INVITATION_TOKEN_DAYS: i64 = 7;

pub const STATUS_ACTIVE: &str = "active";
pub const STATUS_PENDING: &str = "pending";

/// The node's password-hashing pool (`auth::password::Hashing`).
fn hashing(state: &AppState) -> &password::Hashing {
    state.part::<std::sync::Arc<password::Hashing>>()
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

/// Creates an active account. The first account of the instance becomes its admin; that is
/// decided by claiming a settings row, so two simultaneous first registrations cannot both win.
pub async fn register(
    state: &AppState,
    email: Email,
    password_text: String,
) -> Result<users::Model, AccountError> {
    password::check_strength(&password_text).map_err(AccountError::Password)?;
    let ticket = admit(state)?;
    if state.settings.registration == Registration::Closed && admin_exists(&state.db).await? {
        return Err(AccountError::RegistrationClosed);
    }
    if find_by_email(&state.db, &email).await?.is_some() {
        return Err(AccountError::EmailTaken);
    }
    let hash = ticket
        .hash(password_text)
        .await
        .map_err(AccountError::Password)?;
    let id = Uuid::now_v7();
    let now = state.now();
    let user = users::ActiveModel {
        id: Set(id),
        email: Set(email.as_str().to_string()),
        password_hash: Set(Some(hash)),
        status: Set(STATUS_ACTIVE.into()),
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

/// True once the instance has its first account (the admin).
async fn admin_exists(db: &Db) -> Result<bool, AccountError> {
    Ok(settings::Entity::find_by_id("admin_user_id".to_string())
        .one(db)
        .await?
        .is_some())
}

async fn claim_admin(db: &Db, user_id: Uuid) -> Result<bool, AccountError> {
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

/// Checks credentials. Unknown e-mails run a dummy verify, so timing and message are the same
/// as for a wrong password.
pub async fn login(
    state: &AppState,
    email: &str,
    password_text: String,
) -> Result<users::Model, AccountError> {
    let ticket = admit(state)?;
    let now = state.now();
    let user = match Email::parse(email) {
        Ok(email) => find_by_email(&state.db, &email).await?,
        Err(_) => None,
    };
    let Some(user) = user else {
        verify(ticket, password_text, None).await?;
        return Err(AccountError::WrongCredentials);
    };
    if user.locked_until.is_some_and(|until| until > now) {
        return Err(AccountError::Locked);
    }
    if user.status == STATUS_PENDING {
        verify(ticket, password_text, None).await?;
        return Err(AccountError::Pending);
    }
    if verify(ticket, password_text, user.password_hash.clone()).await? {
        if user.failed_logins != 0 || user.locked_until.is_some() {
            let mut active: users::ActiveModel = user.clone().into();
            active.failed_logins = Set(0);
            active.locked_until = Set(None);
            sea_orm::ActiveModelTrait::update(active, &state.db).await?;
        }
        return Ok(user);
    }
    if record_failure(&state.db, user.id, now).await? {
        return Err(AccountError::Locked);
    }
    Err(AccountError::WrongCredentials)
}

async fn verify(
    ticket: password::Ticket,
    password_text: String,
    stored: Option<String>,
) -> Result<bool, AccountError> {
    ticket
        .verify(password_text, stored)
        .await
        .map_err(AccountError::Password)
}

/// Counts one failed login in a single statement (no lost updates under concurrent attempts)
/// and locks the account when the count reaches the limit. True when this failure locked it.
async fn record_failure(db: &Db, user_id: Uuid, now: DateTime<Utc>) -> Result<bool, AccountError> {
    let locked_until = now + Duration::minutes(LOCKOUT_MINUTES);
    let backend = db.get_database_backend();
    db.execute_raw(Statement::from_sql_and_values(
        backend,
        "UPDATE users SET \
           locked_until = CASE WHEN failed_logins + 1 >= $1 THEN $2 ELSE locked_until END, \
           failed_logins = CASE WHEN failed_logins + 1 >= $1 THEN 0 ELSE failed_logins + 1 END \
         WHERE id = $3",
        [
            MAX_FAILED_LOGINS.into(),
            locked_until.into(),
            user_id.into(),
        ],
    ))
    .await?;
    let user = find(db, user_id).await?;
    Ok(user.is_some_and(|u| u.locked_until.is_some_and(|until| until > now)))
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

/// Sends a reset e-mail if the address has an account. Runs in the background so the
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
    password::check_strength(&new_password).map_err(AccountError::Password)?;
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
            sea_orm::sea_query::Expr::value(STATUS_ACTIVE),
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
    Ok(())
}

/// Creates a pending account for an unknown invitee to `game_name` and e-mails them a token to
/// set a password (valid `INVITATION_TOKEN_DAYS`). The e-mail goes out in the background.
pub async fn invite(
    state: &AppState,
    email: &Email,
    game_name: &str,
) -> Result<users::Model, AccountError> {
    let now = state.now();
    let user = users::Model {
        id: Uuid::now_v7(),
        email: email.as_str().to_string(),
        password_hash: None,
        status: STATUS_PENDING.into(),
        is_admin: false,
        failed_logins: 0,
        locked_until: None,
        created_at: now,
    };
    users::Entity::insert(users::ActiveModel::from(user.clone()))
        .exec_without_returning(&state.db)
        .await?;
    let token = create_reset_token(
        &state.db,
        user.id,
        now,
        Duration::days(INVITATION_TOKEN_DAYS),
    )
    .await?;
    let body = format!(
        "You have been invited to the game \"{game_name}\" on playtrace.\n\n\
         Set your password to activate your account: {}/activate?token={token}\n\
         Token: {token}\n\nThe invitation is valid for 7 days.",
        state.public_url
    );
    let mailer = state.mailer.clone();
    let to = email.as_str().to_string();
    tokio::spawn(async move {
        if let Err(error) = mailer
            .send(&to, "You have been invited to playtrace", &body)
            .await
        {
            tracing::warn!(error = %error, "invitation e-mail failed");
        }
    });
    Ok(user)
}
