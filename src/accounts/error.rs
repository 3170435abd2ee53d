//! What can go wrong with accounts, in their own words, and how each answers over HTTP.
use crate::error::ApiError;

#[derive(Debug, thiserror::Error)]
pub enum AccountError {
    #[error("email must be a valid e-mail address")]
    InvalidEmail,
    #[error("Registration is closed on this instance: ask an owner of a game to invite you")]
    RegistrationClosed,
    #[error("An account with this email already exists")]
    EmailTaken,
    #[error("Invalid email or password")]
    WrongCredentials,
    #[error("Account locked after too many failed login attempts; try again in 15 minutes or reset your password")]
    Locked,
    #[error("Account not activated yet; set a password with the link in your invitation e-mail")]
    Pending,
    #[error("This member has already set a password: there is no invitation to resend")]
    NotInvited,
    #[error("An invitation e-mail went to this address less than 5 minutes ago; wait a few minutes before sending another")]
    InvitationMailedRecently,
    /// More registrations from one client address than `--registrations-per-hour`; the
    /// seconds until its window ends.
    #[error("Too many registrations from your network address; try again in {} minutes", .0.div_ceil(60))]
    RegistrationsThrottled(u64),
    #[error("Invalid or expired reset token")]
    InvalidResetToken,
    /// The bearer token names an account that was deleted since.
    #[error("Account no longer exists")]
    Gone,
    /// A password refused or failed by `auth::password` (strength rules, hashing), answered
    /// as that module words it.
    #[error(transparent)]
    Password(ApiError),
    #[error(transparent)]
    Cold(#[from] sea_orm::DbErr),
    #[error(transparent)]
    Stored(#[from] crate::words::CorruptWord),
}

crate::error::answers!(AccountError as error {
    400: InvalidEmail | InvalidResetToken,
    401: WrongCredentials | Gone,
    403: RegistrationClosed,
    409: EmailTaken | NotInvited,
    429: InvitationMailedRecently,
    passes: Password | Cold | Stored,
    other {
        Locked => ApiError::forbidden(error.to_string()).with("code", "ACCOUNT_LOCKED"),
        Pending => ApiError::forbidden(error.to_string()).with("code", "ACCOUNT_PENDING"),
        RegistrationsThrottled(seconds) => {
            let mut answer = ApiError::new(poem::http::StatusCode::TOO_MANY_REQUESTS, error.to_string());
            answer.retry_after = Some(seconds);
            answer
        },
    }
});
