//! What signing a player in or linking an identity can fail with.

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

crate::error::answers!(PlayerError as error {
    400: Invalid(_),
    401: BadSignature | StaleSignature | TokenNeeded,
    403: Off | NoSecret,
    409: TakenByOther,
    passes: Cold,
});
