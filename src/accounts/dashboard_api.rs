//! `/v1/auth/*`: register, login, the current user and the two-step password reset.
use super::service::{self, Email};
use crate::http::schema::Timestamp;
use crate::words::AccountStatus;
use crate::{auth::BearerAuth, error::ApiError, http::ApiTags, state::AppState};
use poem_openapi::{payload::Json, ApiResponse, Object, OpenApi};

pub struct AuthApi {
    pub state: AppState,
}

#[derive(Object)]
#[oai(deny_unknown_fields)]
pub struct Credentials {
    pub email: String,
    /// At least 8 characters.
    pub password: String,
}

#[derive(Object)]
pub struct UserSummary {
    pub id: String,
    pub email: String,
}

#[derive(Object)]
pub struct AuthAnswer {
    /// Dashboard JWT, valid 7 days. Send it as `Authorization: Bearer <token>`.
    pub token: String,
    pub user: UserSummary,
    /// Version of the running backend.
    #[oai(rename = "backendVersion")]
    pub backend_version: String,
}

#[derive(Object)]
pub struct Me {
    pub id: String,
    pub email: String,
    pub status: AccountStatus,
    pub is_admin: bool,
    pub created_at: Timestamp,
}

#[derive(Object)]
#[oai(deny_unknown_fields)]
pub struct ForgotPassword {
    pub email: String,
}

#[derive(Object)]
#[oai(deny_unknown_fields)]
pub struct ResetPassword {
    /// The token from the reset e-mail.
    pub token: String,
    /// The new password: 8 to 256 characters, not a common one.
    pub password: String,
}

#[derive(Object)]
pub struct Message {
    pub message: String,
}

#[derive(ApiResponse)]
pub enum Registered {
    #[oai(status = 201)]
    Created(Json<AuthAnswer>),
}

#[derive(ApiResponse)]
pub enum Accepted {
    #[oai(status = 202)]
    Accepted(Json<Message>),
}

pub const BACKEND_VERSION: &str = env!("CARGO_PKG_VERSION");

async fn answer(state: &AppState, user: &entity::users::Model) -> Result<AuthAnswer, ApiError> {
    let generation = crate::auth::sessions::current_generation(&state.db, user.id)
        .await?
        .unwrap_or_default();
    Ok(AuthAnswer {
        token: state.jwt.issue(user.id, generation, state.now())?,
        user: UserSummary {
            id: user.id.to_string(),
            email: user.email.clone(),
        },
        backend_version: BACKEND_VERSION.to_string(),
    })
}

/// What each operation here answers beyond the universal statuses (`http::error_responses`):
/// 403: registration closed, or a locked or pending account; 401: a wrong password; 409: the
/// e-mail is taken.
pub const STATUSES: crate::http::Statuses = crate::http::statuses! {
    register: [403, 409],
    login: [401, 403],
    logout: [],
    getCurrentUser: [],
    forgotPassword: [],
    resetPassword: [],
};

#[OpenApi(prefix_path = "/v1/auth", tag = "ApiTags::Auth")]
impl AuthApi {
    /// Create a dashboard account. The first account on an instance becomes its admin. On an
    /// instance started with `--registration closed`, every later one answers 403: people join
    /// through an invitation to a game instead. One client address registers at most
    /// `--registrations-per-hour` registration requests (20) per clock hour; one more answers 429
    /// with `Retry-After`.
    #[oai(path = "/register", method = "post", operation_id = "register")]
    async fn register(
        &self,
        request: &poem::Request,
        body: Json<Credentials>,
    ) -> poem::Result<Registered> {
        let email = Email::parse(&body.email)?;
        let client = crate::limits::client_ip(&self.state, request);
        service::admit_registration(&self.state, &client).await?;
        let user = service::register(&self.state, email, body.0.password).await?;
        Ok(Registered::Created(Json(answer(&self.state, &user).await?)))
    }

    /// Log in with e-mail and password. Five failures for an address (with an account or
    /// not) from one client address, each within 15 minutes of the last, lock it for that
    /// client for 15 minutes: 403 `ACCOUNT_LOCKED` for any password (other clients, the owner's
    /// among them, can still sign in); a password reset unlocks it at once. A client with
    /// `--sign-in-failures-per-client` (20) failures over any addresses is locked out of all
    /// of them for 15 minutes. An invited account without a
    /// password answers a guess like an unknown address (401); its invitation token given as
    /// the password answers 403 `ACCOUNT_PENDING` (set a password through the link).
    #[oai(path = "/login", method = "post", operation_id = "login")]
    async fn login(
        &self,
        request: &poem::Request,
        body: Json<Credentials>,
    ) -> poem::Result<Json<AuthAnswer>> {
        let Credentials { email, password } = body.0;
        let client = crate::limits::client_ip(&self.state, request);
        let user = service::login(&self.state, &email, password, &client).await?;
        Ok(Json(answer(&self.state, &user).await?))
    }

    /// Sign out: revokes every dashboard token of the caller, on every device (a token in
    /// another tab or browser stops working too). The next sign-in issues a new one.
    #[oai(path = "/logout", method = "post", operation_id = "logout")]
    async fn logout(&self, auth: BearerAuth) -> poem::Result<crate::http::NoContent> {
        service::revoke_sessions(&self.state, auth.0).await?;
        Ok(crate::http::NoContent::Done)
    }

    /// The account the bearer token belongs to.
    #[oai(path = "/me", method = "get", operation_id = "getCurrentUser")]
    async fn me(&self, auth: BearerAuth) -> poem::Result<Json<Me>> {
        let user = service::current_user(&self.state.db, auth.0).await?;
        Ok(Json(Me {
            id: user.id.to_string(),
            email: user.email,
            status: AccountStatus::stored(&user.status)?,
            is_admin: user.is_admin,
            created_at: Timestamp::from(user.created_at),
        }))
    }

    /// Ask for a password-reset e-mail. The answer is the same whether or not the address
    /// has an account, and whether or not a mail goes out: an account gets at most one every
    /// 5 minutes.
    #[oai(
        path = "/forgot-password",
        method = "post",
        operation_id = "forgotPassword"
    )]
    async fn forgot_password(&self, body: Json<ForgotPassword>) -> Accepted {
        service::forgot_password(&self.state, &body.email);
        Accepted::Accepted(Json(Message {
            message: "If an account exists for that address, a reset e-mail is on its way.".into(),
        }))
    }

    /// Set a new password with the token from the reset (or invitation) e-mail. A token
    /// works once and for one hour (invitations: 7 days).
    #[oai(
        path = "/reset-password",
        method = "post",
        operation_id = "resetPassword"
    )]
    async fn reset_password(&self, body: Json<ResetPassword>) -> poem::Result<Json<Message>> {
        let ResetPassword { token, password } = body.0;
        service::reset_password(&self.state, &token, password).await?;
        Ok(Json(Message {
            message: "Password updated; you can log in now.".into(),
        }))
    }
}
