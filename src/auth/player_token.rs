//! Player tokens: short-lived JWTs (HS256, pinned) that say "this request acts as player P of
//! game G". Signed with a key derived from the node's JWT secret for this purpose only, and
//! carrying `aud: "player"`, so a player token is never a dashboard token nor the reverse.
use crate::error::ApiError;
use chrono::{DateTime, Duration, Utc};
use hmac::{Hmac, Mac};
use jsonwebtoken::{decode, encode, Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use uuid::Uuid;

/// How long a player token is valid; the client refreshes it before then.
pub const PLAYER_TOKEN_LIFETIME: Duration = Duration::hours(1);
/// The header a player token travels in, beside `x-game-api-key`.
pub const PLAYER_TOKEN_HEADER: &str = "x-player-token";
const AUDIENCE: &str = "player";

/// A game's `player_auth` setting: the `PlayerAuthMode` word set.
pub use crate::words::PlayerAuthMode as PlayerAuth;

#[derive(Debug, Serialize, Deserialize)]
struct Claims {
    /// The player id.
    sub: String,
    /// The game.
    gid: Uuid,
    aud: String,
    iat: i64,
    exp: i64,
}

/// Who a valid player token speaks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerClaim {
    pub game_id: Uuid,
    pub player_id: String,
    pub expires_at: DateTime<Utc>,
}

pub struct PlayerTokens {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
}

impl PlayerTokens {
    pub fn new(jwt_secret: &[u8]) -> Self {
        let mut mac =
            Hmac::<Sha256>::new_from_slice(jwt_secret).expect("HMAC takes any key length");
        mac.update(b"playtrace player tokens");
        let key = mac.finalize().into_bytes();
        let mut validation = Validation::new(Algorithm::HS256);
        validation.validate_exp = false;
        validation.set_audience(&[AUDIENCE]);
        validation.required_spec_claims = ["sub", "exp", "aud"]
            .into_iter()
            .map(String::from)
            .collect();
        Self {
            encoding: EncodingKey::from_secret(&key),
            decoding: DecodingKey::from_secret(&key),
            validation,
        }
    }

    /// A token for `player_id` of `game_id`, valid from `now` for PLAYER_TOKEN_LIFETIME.
    pub fn issue(
        &self,
        game_id: Uuid,
        player_id: &str,
        now: DateTime<Utc>,
    ) -> Result<(String, DateTime<Utc>), ApiError> {
        // Whole seconds, as the token carries it.
        let expires_at = now + PLAYER_TOKEN_LIFETIME;
        let expires_at = DateTime::from_timestamp(expires_at.timestamp(), 0).unwrap_or(expires_at);
        let claims = Claims {
            sub: player_id.to_string(),
            gid: game_id,
            aud: AUDIENCE.into(),
            iat: now.timestamp(),
            exp: expires_at.timestamp(),
        };
        let token = encode(&Header::new(Algorithm::HS256), &claims, &self.encoding)
            .map_err(ApiError::internal)?;
        Ok((token, expires_at))
    }

    /// The claim of a valid, unexpired token; a 401 with the reason otherwise.
    pub fn verify(&self, token: &str, now: DateTime<Utc>) -> Result<PlayerClaim, ApiError> {
        let data = decode::<Claims>(token, &self.decoding, &self.validation)
            .map_err(|_| ApiError::unauthorized("Invalid player token"))?;
        if data.claims.exp <= now.timestamp() {
            return Err(ApiError::unauthorized("Token expired"));
        }
        Ok(PlayerClaim {
            game_id: data.claims.gid,
            player_id: data.claims.sub,
            expires_at: DateTime::from_timestamp(data.claims.exp, 0).unwrap_or(now),
        })
    }
}

/// Whether `signature` (hex) is the HMAC-SHA256 under `secret` of `message`, compared in
/// constant time: how a studio's backend vouches for a custom id.
pub fn signature_matches(secret: &str, message: &str, signature: &str) -> bool {
    let Ok(given) = hex::decode(signature.trim()) else {
        return false;
    };
    let mut mac =
        Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes any key length");
    mac.update(message.as_bytes());
    mac.verify_slice(&given).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_scoped_to_their_purpose_and_expire() {
        let tokens = PlayerTokens::new(b"secret");
        let now = Utc::now();
        let game = Uuid::new_v4();
        let (token, expires_at) = tokens.issue(game, "p1", now).unwrap();
        assert_eq!(
            tokens.verify(&token, now).unwrap(),
            PlayerClaim {
                game_id: game,
                player_id: "p1".into(),
                expires_at
            }
        );
        assert!(tokens.verify(&token, now + PLAYER_TOKEN_LIFETIME).is_err());
        // A dashboard token (same node secret) is not a player token.
        let dashboard = crate::auth::jwt::JwtKeys::new(b"secret")
            .issue(Uuid::new_v4(), 0, now)
            .unwrap();
        assert!(tokens.verify(&dashboard, now).is_err());
        // Nor is a player token signed by another node secret.
        assert!(PlayerTokens::new(b"other").verify(&token, now).is_err());
    }

    #[test]
    fn signatures_are_checked() {
        let mut mac = Hmac::<Sha256>::new_from_slice(b"studio secret").unwrap();
        mac.update(b"account-42:1700000000");
        let good = hex::encode(mac.finalize().into_bytes());
        assert!(signature_matches(
            "studio secret",
            "account-42:1700000000",
            &good
        ));
        assert!(!signature_matches(
            "studio secret",
            "account-43:1700000000",
            &good
        ));
        assert!(!signature_matches(
            "other secret",
            "account-42:1700000000",
            &good
        ));
        assert!(!signature_matches(
            "studio secret",
            "account-42:1700000000",
            "not hex"
        ));
    }
}
