//! What signing a player in or linking an identity can fail with.
use crate::error::ApiError;

#[derive(Debug, thiserror::Error)]
pub enum PlayerError {
    #[error("Player identity is off for this game (player_auth)")]
    Off,
    #[error("{0}")]
    Invalid(&'static str),
    #[error("This game has no player secret yet: its owner makes one with POST /v1/games/{{game_id}}/player-secret")]
    NoSecret,
    #[error("Invalid signature")]
    BadSignature,
    #[error("Signature expired: timestamp must be within 10 minutes of now")]
    StaleSignature,
    #[error("This route needs a player token (x-player-token)")]
    TokenNeeded,
    #[error("This identity already belongs to another player")]
    TakenByOther,
    #[error(transparent)]
    Cold(#[from] sea_orm::DbErr),
}

impl From<PlayerError> for ApiError {
    fn from(error: PlayerError) -> Self {
        match error {
            PlayerError::Invalid(_) => ApiError::bad_request(error.to_string()),
            PlayerError::Off | PlayerError::NoSecret => ApiError::forbidden(error.to_string()),
            PlayerError::BadSignature | PlayerError::StaleSignature | PlayerError::TokenNeeded => {
                ApiError::unauthorized(error.to_string())
            }
            PlayerError::TakenByOther => ApiError::conflict(error.to_string()),
            PlayerError::Cold(error) => ApiError::from(error),
        }
    }
}

crate::error::api_error!(PlayerError);
