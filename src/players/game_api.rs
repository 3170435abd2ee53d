//! `/v1/players` (API key): sign a player in, link another identity, refresh a token.
use super::{service, PlayerError};
use crate::http::schema::Timestamp;
use crate::{
    auth::{player_token::PlayerAuth, ApiKeyAuth},
    http::ApiTags,
    state::AppState,
};
use poem_openapi::{payload::Json, Object, OpenApi};

pub struct PlayersApi {
    pub state: AppState,
}

/// Who the player is: a device id, or a custom id signed by the studio's backend.
#[derive(Object)]
#[oai(deny_unknown_fields)]
pub struct PlayerIdentity {
    /// A random id the game makes once and keeps on the device (16 to 128 characters): whoever
    /// holds it signs in as its player, so keep it as private as a password.
    #[oai(nullable)]
    pub device_id: Option<String>,
    /// The studio's own id for the player (1 to 128 characters), with `timestamp` and
    /// `signature` from the studio's backend.
    #[oai(nullable)]
    pub custom_id: Option<String>,
    /// Unix seconds when the backend signed; accepted within 10 minutes of the server's clock.
    #[oai(nullable)]
    pub timestamp: Option<i64>,
    /// Hex HMAC-SHA256 of `"<custom_id>:<timestamp>"` under the game's player secret.
    #[oai(nullable)]
    pub signature: Option<String>,
}

/// A player token and the player it stands for.
#[derive(Object)]
pub struct PlayerSession {
    /// Send it as `x-player-token` beside the game key.
    pub token: String,
    pub player_id: String,
    /// When the token stops working: refresh it before (`POST /v1/players/refresh`).
    pub expires_at: Timestamp,
    /// Seconds from now until `expires_at`.
    pub expires_in: i64,
    /// True when this sign-in made the player (a new identity).
    pub created: bool,
}

#[derive(Object)]
pub struct IdentityLinked {
    pub player_id: String,
    /// False when the identity was already this player's.
    pub linked: bool,
}

impl PlayersApi {
    fn session(
        &self,
        auth: &ApiKeyAuth,
        player_id: String,
        created: bool,
    ) -> poem::Result<Json<PlayerSession>> {
        let now = self.state.now();
        let (token, expires_at) = self
            .state
            .jwt
            .players
            .issue(auth.game_id(), &player_id, now)?;
        Ok(Json(PlayerSession {
            token,
            player_id,
            expires_at: Timestamp::from(expires_at),
            expires_in: expires_at.timestamp() - now.timestamp(),
            created,
        }))
    }

    fn subject(
        &self,
        auth: &ApiKeyAuth,
        body: PlayerIdentity,
    ) -> Result<service::Subject, PlayerError> {
        if auth.0.player_auth == PlayerAuth::Off {
            return Err(PlayerError::Off);
        }
        service::subject(
            &auth.0,
            body.device_id,
            body.custom_id,
            body.timestamp,
            body.signature,
            self.state.now(),
        )
    }
}

/// What each operation here answers beyond the universal statuses (`http::error_responses`):
/// 409: the identity belongs to another player.
pub const STATUSES: crate::http::Statuses = crate::http::statuses! {
    signInPlayer: [],
    linkPlayerIdentity: [409],
    refreshPlayerToken: [],
};

#[OpenApi(prefix_path = "/v1/players", tag = "ApiTags::Players")]
impl PlayersApi {
    /// Sign a player in (games with `player_auth` `optional` or `required`; 403 when `off`).
    /// A new identity makes a new player; a known one answers its player. The token is valid
    /// for an hour.
    #[oai(path = "/auth", method = "post", operation_id = "signInPlayer")]
    async fn sign_in(
        &self,
        auth: ApiKeyAuth,
        body: Json<PlayerIdentity>,
    ) -> poem::Result<Json<PlayerSession>> {
        let subject = self.subject(&auth, body.0)?;
        let (player_id, created) = service::sign_in(&self.state, auth.game_id(), &subject).await?;
        self.session(&auth, player_id, created)
    }

    /// Link another identity to the token's player (say the account id after a device
    /// sign-in), so that signing in with either gives the same player. 409 when the identity
    /// is another player's.
    #[oai(path = "/link", method = "post", operation_id = "linkPlayerIdentity")]
    async fn link(
        &self,
        auth: ApiKeyAuth,
        body: Json<PlayerIdentity>,
    ) -> poem::Result<Json<IdentityLinked>> {
        let player_id = auth.player().ok_or(PlayerError::TokenNeeded)?.to_string();
        let subject = self.subject(&auth, body.0)?;
        let linked = service::link(&self.state, auth.game_id(), &player_id, &subject).await?;
        Ok(Json(IdentityLinked { player_id, linked }))
    }

    /// A fresh token for the player of a still valid one.
    #[oai(
        path = "/refresh",
        method = "post",
        operation_id = "refreshPlayerToken"
    )]
    async fn refresh(&self, auth: ApiKeyAuth) -> poem::Result<Json<PlayerSession>> {
        let player_id = auth.player().ok_or(PlayerError::TokenNeeded)?.to_string();
        self.session(&auth, player_id, false)
    }
}
