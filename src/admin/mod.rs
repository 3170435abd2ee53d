//! `/v1/admin`: what the instance admin reads about the whole server: every account (with how
//! many games it is in) and every game's event usage this month against its quota, in pages.
//! Everyone else gets 403.
pub mod api;
pub mod service;

use crate::state::AppState;

pub fn apis(state: &AppState) -> impl poem_openapi::OpenApi {
    api::AdminApi {
        state: state.clone(),
    }
}

#[derive(Debug, thiserror::Error)]
pub enum AdminError {
    #[error("Only the instance admin can read this")]
    NotAdmin,
    #[error("limit must be 1 to 100")]
    InvalidLimit,
    #[error(transparent)]
    Account(#[from] crate::accounts::AccountError),
    #[error(transparent)]
    Cold(#[from] sea_orm::DbErr),
    #[error(transparent)]
    Stored(#[from] crate::words::CorruptWord),
}

crate::error::answers!(AdminError as error {
    400: InvalidLimit,
    403: NotAdmin,
    passes: Account | Cold | Stored,
});
