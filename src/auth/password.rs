//! Password hashing: argon2id with OWASP's parameters (19 MiB, 2 passes, 1 lane), always on a
//! blocking thread so hashing never stalls the async workers, and bounded per node (`Hashing`):
//! a few hashes at once and a short queue, so a flood of sign-ins can neither take every core
//! from the game routes nor pile up without end.
use crate::error::ApiError;
use argon2::{
    password_hash::{rand_core::OsRng, PasswordHash, PasswordHasher, PasswordVerifier, SaltString},
    Algorithm, Argon2, Params, Version,
};
use std::sync::{Arc, OnceLock};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

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

/// The node's password-hashing pool: `workers` hashes at once, `queue` more waiting; anything
/// beyond is refused at once (`admit`), before its request touches the database.
pub struct Hashing {
    admitted: Arc<Semaphore>,
    running: Arc<Semaphore>,
}

/// A place in the pool, taken before the request's other work; one hash or verification.
pub struct Ticket {
    _admitted: OwnedSemaphorePermit,
    running: Arc<Semaphore>,
}

impl Hashing {
    pub fn new(workers: usize, queue: usize) -> Self {
        let workers = workers.max(1);
        Self {
            admitted: Arc::new(Semaphore::new(workers + queue)),
            running: Arc::new(Semaphore::new(workers)),
        }
    }

    /// From the settings: `--password-hash-workers` (half the cores, at least one, when
    /// unset) and `--password-hash-queue`.
    pub fn from_settings(settings: &crate::cli::Settings) -> Self {
        let workers = match settings.password_hash_workers {
            Some(workers) => workers as usize,
            None => std::thread::available_parallelism().map_or(1, |cores| cores.get() / 2),
        };
        Self::new(workers, settings.password_hash_queue as usize)
    }

    /// A place in the pool, or 503 with `Retry-After: 1` when the pool and its queue are full.
    pub fn admit(&self) -> Result<Ticket, ApiError> {
        match self.admitted.clone().try_acquire_owned() {
            Ok(permit) => Ok(Ticket {
                _admitted: permit,
                running: self.running.clone(),
            }),
            Err(_) => {
                let mut busy = ApiError::unavailable(
                    "Too many sign-ins are being checked right now; try again in a moment",
                );
                busy.retry_after = Some(1);
                Err(busy)
            }
        }
    }
}

impl Ticket {
    async fn run<T: Send + 'static>(
        self,
        work: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
    ) -> Result<T, ApiError> {
        let _running = self.running.acquire().await.map_err(ApiError::internal)?;
        tokio::task::spawn_blocking(work)
            .await
            .map_err(ApiError::internal)?
    }

    pub async fn hash(self, password: String) -> Result<String, ApiError> {
        self.run(move || {
            let salt = SaltString::generate(&mut OsRng);
            hasher()
                .hash_password(password.as_bytes(), &salt)
                .map(|h| h.to_string())
                .map_err(|e| ApiError::internal(format!("hashing failed: {e}")))
        })
        .await
    }

    /// Verifies `password` against `stored`. With no stored hash (unknown user, pending
    /// account) a dummy hash is verified instead, so the answer takes the same time either way.
    pub async fn verify(self, password: String, stored: Option<String>) -> Result<bool, ApiError> {
        self.run(move || {
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
    }
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
