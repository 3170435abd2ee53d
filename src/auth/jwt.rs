//! Dashboard tokens: HS256 only (the algorithm is pinned, `none` and every other one refused),
//! `sub` = user id, valid 7 days, expiry checked against the injected clock; `gen` = the
//! user's token generation when issued (`auth::sessions`: a reset or logout revokes it).
use crate::error::ApiError;
use chrono::{DateTime, Duration, Utc};
use jsonwebtoken::{decode, encode, Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

pub const TOKEN_LIFETIME_DAYS: i64 = 7;

#[derive(Debug, Serialize, Deserialize)]
pub struct Claims {
    pub sub: Uuid,
    pub iat: i64,
    pub exp: i64,
    /// The user's token generation when issued; tokens issued before generations existed
    /// carry none and count as generation 0.
    #[serde(default)]
    pub gen: i64,
}

pub struct JwtKeys {
    /// Player tokens, signed with a key derived from the same secret.
    pub players: super::player_token::PlayerTokens,
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
}

impl JwtKeys {
    pub fn new(secret: &[u8]) -> Self {
        let mut validation = Validation::new(Algorithm::HS256);
        // Expiry is checked against the service clock below, so tests can move time.
        validation.validate_exp = false;
        validation.required_spec_claims = ["sub", "exp"].into_iter().map(String::from).collect();
        Self {
            players: super::player_token::PlayerTokens::new(secret),
            encoding: EncodingKey::from_secret(secret),
            decoding: DecodingKey::from_secret(secret),
            validation,
        }
    }

    pub fn issue(
        &self,
        user_id: Uuid,
        generation: i64,
        now: DateTime<Utc>,
    ) -> Result<String, ApiError> {
        let claims = Claims {
            sub: user_id,
            gen: generation,
            iat: now.timestamp(),
            exp: (now + Duration::days(TOKEN_LIFETIME_DAYS)).timestamp(),
        };
        encode(&Header::new(Algorithm::HS256), &claims, &self.encoding).map_err(ApiError::internal)
    }

    /// The user id and token generation of a valid, unexpired token; a 401 with the reason
    /// otherwise. Whether the generation is still current is `auth::sessions`'s to say.
    pub fn verify(&self, token: &str, now: DateTime<Utc>) -> Result<(Uuid, i64), ApiError> {
        let data = decode::<Claims>(token, &self.decoding, &self.validation)
            .map_err(|_| ApiError::unauthorized("Invalid token"))?;
        if data.claims.exp <= now.timestamp() {
            return Err(ApiError::unauthorized("Token expired"));
        }
        Ok((data.claims.sub, data.claims.gen))
    }
}
