//! Password hashing: argon2id with OWASP's parameters (19 MiB, 2 passes, 1 lane), always on a
//! blocking thread so hashing never stalls the async workers.
use crate::error::ApiError;
use argon2::{
    password_hash::{rand_core::OsRng, PasswordHash, PasswordHasher, PasswordVerifier, SaltString},
    Algorithm, Argon2, Params, Version,
};
use std::sync::OnceLock;

pub const MIN_PASSWORD_LENGTH: usize = 8;
/// Longer inputs are refused so nobody can make the hasher chew megabytes.
pub const MAX_PASSWORD_LENGTH: usize = 256;

fn hasher() -> Argon2<'static> {
    let params = Params::new(19 * 1024, 2, 1, None).expect("valid argon2 parameters");
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

pub fn check_strength(password: &str) -> Result<(), ApiError> {
    let length = password.chars().count();
    if length < MIN_PASSWORD_LENGTH {
        return Err(ApiError::bad_request(
            "password must be at least 8 characters",
        ));
    }
    if length > MAX_PASSWORD_LENGTH {
        return Err(ApiError::bad_request(
            "password must be at most 256 characters",
        ));
    }
    Ok(())
}

pub async fn hash(password: String) -> Result<String, ApiError> {
    tokio::task::spawn_blocking(move || {
        let salt = SaltString::generate(&mut OsRng);
        hasher()
            .hash_password(password.as_bytes(), &salt)
            .map(|h| h.to_string())
            .map_err(|e| ApiError::internal(format!("hashing failed: {e}")))
    })
    .await
    .map_err(ApiError::internal)?
}

/// Verifies `password` against `stored`. With no stored hash (unknown user, pending account)
/// a dummy hash is verified instead, so the answer takes the same time either way.
pub async fn verify(password: String, stored: Option<String>) -> Result<bool, ApiError> {
    tokio::task::spawn_blocking(move || {
        let known = stored.is_some();
        let stored = stored.unwrap_or_else(|| dummy_hash().to_string());
        let parsed = PasswordHash::new(&stored)
            .map_err(|e| ApiError::internal(format!("bad stored hash: {e}")))?;
        let matches = hasher()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok();
        Ok(known && matches)
    })
    .await
    .map_err(ApiError::internal)?
}

fn dummy_hash() -> &'static str {
    static DUMMY: OnceLock<String> = OnceLock::new();
    DUMMY.get_or_init(|| {
        let salt = SaltString::generate(&mut OsRng);
        hasher()
            .hash_password(crate::auth::random_hex(16).as_bytes(), &salt)
            .expect("hash dummy password")
            .to_string()
    })
}
