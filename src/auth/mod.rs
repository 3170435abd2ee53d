//! Authentication: the two security schemes (game API key header, dashboard bearer JWT), and
//! the passwords, tokens and keys behind them.
pub mod api_key;
pub mod jwt;
pub mod password;
pub mod player_token;
pub mod schemes;
pub mod sessions;

pub use schemes::{ApiKeyAuth, BearerAuth, Identity};

use rand::RngCore;
use sha2::{Digest, Sha256};

/// Hex SHA-256 of a secret (API keys, reset tokens): what the cold store keeps instead of it.
pub fn sha256_hex(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

/// `bytes` random bytes from the OS generator, hex encoded.
pub fn random_hex(bytes: usize) -> String {
    let mut buffer = vec![0u8; bytes];
    rand::rngs::OsRng.fill_bytes(&mut buffer);
    hex::encode(buffer)
}
