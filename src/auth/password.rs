//! Password hashing: argon2id with OWASP's parameters (19 MiB, 2 passes, 1 lane) unless the
//! settings ask for another cost, always on a blocking thread so hashing never stalls the async
//! workers, and bounded per node (`Hashing`): a few hashes at once and a short queue, so a flood
//! of sign-ins can neither take every core from the game routes nor pile up without end.
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

/// The memory (KiB) and passes of a new hash. A stored hash is verified with the cost it was
/// made with (its PHC string says it); a successful sign-in then hashes the password again at
/// the current cost (`Verdict::rehashed`), so a change reaches every account that signs in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cost {
    pub memory_kib: u32,
    pub iterations: u32,
}

impl Cost {
    /// OWASP's recommended minimum for argon2id (Password Storage Cheat Sheet): 19 MiB, 2 passes.
    pub const OWASP: Cost = Cost {
        memory_kib: 19 * 1024,
        iterations: 2,
    };

    /// Whether this costs a guesser less than OWASP's minimum. The cheat sheet's equivalent
    /// pairs trade memory for passes (47 MiB x 1 ... 7 MiB x 5) at about 35 MiB-passes.
    pub fn below_owasp(self) -> bool {
        self.memory_kib < 7 * 1024
            || u64::from(self.memory_kib) * u64::from(self.iterations) < 35 * 1024
    }

    fn hasher(self) -> Argon2<'static> {
        let params = Params::new(self.memory_kib, self.iterations, 1, None)
            .expect("argon2 parameters within the settings' ranges");
        Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
    }

    /// Whether `hash` was made otherwise than a new hash would be: another algorithm, version,
    /// memory, passes or lanes.
    fn outdated(self, hash: &PasswordHash) -> bool {
        let current = Params::new(self.memory_kib, self.iterations, 1, None).ok();
        let made = Params::try_from(hash).ok();
        let same = matches!((current, made), (Some(current), Some(made))
            if current.m_cost() == made.m_cost()
                && current.t_cost() == made.t_cost()
                && current.p_cost() == made.p_cost());
        !same
            || hash.algorithm != Algorithm::Argon2id.ident()
            || hash.version != Some(Version::V0x13.into())
    }

    fn hash(self, password: &[u8]) -> Result<String, ApiError> {
        let salt = SaltString::generate(&mut OsRng);
        self.hasher()
            .hash_password(password, &salt)
            .map(|h| h.to_string())
            .map_err(|e| ApiError::internal(format!("hashing failed: {e}")))
    }
}

/// What a verification found.
#[derive(Debug)]
pub struct Verdict {
    /// The password matches the stored hash (never, without one).
    pub matches: bool,
    /// When it matches a hash made at another cost: the password hashed at the current one,
    /// to store in its place.
    pub rehashed: Option<String>,
}

/// The refusal of a password found on the lists of common passwords, or as easy to guess.
pub const TOO_COMMON: &str = "password is too common or too easy to guess (like \"password\", \"12345678\" or \"qwertyui\"): use a few unrelated words";

/// Only the first characters are estimated: the estimate's cost grows faster than the length,
/// and a guessable start followed by 100 more characters is not a guessable password.
const ESTIMATED_CHARS: usize = 100;

/// Whether a password is one of the common passwords that guessers try first (zxcvbn's list
/// of 30,000, l33t and reversed spellings included), or can be guessed in fewer than a
/// thousand tries some other way (a keyboard row, a sequence, a repeat, `email`'s own words).
fn too_common(password: &str, email: Option<&str>) -> bool {
    use zxcvbn::{matching::patterns::MatchPattern, Score};
    let estimated: String = password.chars().take(ESTIMATED_CHARS).collect();
    let mut inputs: Vec<&str> = Vec::new();
    if let Some(email) = email {
        inputs.push(email);
        inputs.extend(
            email
                .split(['@', '.', '+', '_', '-'])
                .filter(|part| part.len() >= 3),
        );
    }
    let estimate = zxcvbn::zxcvbn(&estimated, &inputs);
    let length = estimated.chars().count();
    let a_listed_password = estimate.sequence().iter().any(|found| {
        found.i == 0
            && found.j + 1 == length
            && matches!(&found.pattern, MatchPattern::Dictionary(word)
                // zxcvbn does not export its dictionaries' type; its default is the
                // list of common passwords.
                if word.dictionary_name == Default::default())
    });
    a_listed_password || estimate.score() == Score::Zero
}

/// The password rules (OWASP ASVS V2.1): 8 to 256 characters, any characters, and not a
/// common or trivially guessable password; `email` is the account's, whose words count as
/// guessable.
pub fn check_strength(password: &str, email: Option<&str>) -> Result<(), ApiError> {
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
    if too_common(password, email) {
        return Err(ApiError::bad_request(TOO_COMMON));
    }
    Ok(())
}

/// The node's password-hashing pool: `workers` hashes at once, `queue` more waiting; anything
/// beyond is refused at once (`admit`), before its request touches the database.
pub struct Hashing {
    admitted: Arc<Semaphore>,
    running: Arc<Semaphore>,
    cost: Cost,
    /// A hash of a random password at `cost`, verified when there is no stored hash.
    dummy: Arc<OnceLock<String>>,
}

/// A place in the pool, taken before the request's other work; one hash or verification.
pub struct Ticket {
    _admitted: OwnedSemaphorePermit,
    running: Arc<Semaphore>,
    cost: Cost,
    dummy: Arc<OnceLock<String>>,
}

impl Hashing {
    pub fn new(workers: usize, queue: usize, cost: Cost) -> Self {
        let workers = workers.max(1);
        Self {
            admitted: Arc::new(Semaphore::new(workers + queue)),
            running: Arc::new(Semaphore::new(workers)),
            cost,
            dummy: Arc::default(),
        }
    }

    /// From the settings: `--password-hash-workers` (half the cores, at least one, when
    /// unset), `--password-hash-queue` and the cost (`--password-hash-memory-kib`,
    /// `--password-hash-iterations`).
    pub fn from_settings(settings: &crate::cli::Settings) -> Self {
        let workers = match settings.password_hash_workers {
            Some(workers) => workers as usize,
            None => std::thread::available_parallelism().map_or(1, |cores| cores.get() / 2),
        };
        Self::new(
            workers,
            settings.password_hash_queue as usize,
            settings.password_hash_cost(),
        )
    }

    /// A place in the pool, or 503 with `Retry-After: 1` when the pool and its queue are full.
    pub fn admit(&self) -> Result<Ticket, ApiError> {
        match self.admitted.clone().try_acquire_owned() {
            Ok(permit) => Ok(Ticket {
                _admitted: permit,
                running: self.running.clone(),
                cost: self.cost,
                dummy: self.dummy.clone(),
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
        let cost = self.cost;
        self.run(move || cost.hash(password.as_bytes())).await
    }

    /// Verifies `password` against `stored`. With no stored hash (unknown user, pending
    /// account) a dummy hash is verified instead, so the answer takes the same time either way.
    /// A match against a hash made at another cost also hashes the password at the current
    /// one (a second hash, on that successful sign-in only).
    pub async fn verify(
        self,
        password: String,
        stored: Option<String>,
    ) -> Result<Verdict, ApiError> {
        let (cost, dummy) = (self.cost, self.dummy.clone());
        self.run(move || {
            let known = stored.is_some();
            let stored = stored.unwrap_or_else(|| dummy_hash(&dummy, cost).to_string());
            let parsed = PasswordHash::new(&stored)
                .map_err(|e| ApiError::internal(format!("bad stored hash: {e}")))?;
            // argon2 verifies with the memory and passes the stored hash names. Always run,
            // the dummy hash too (not behind `known &&`): the time must not tell them apart.
            let verified = cost
                .hasher()
                .verify_password(password.as_bytes(), &parsed)
                .is_ok();
            let matches = known && verified;
            let rehashed = match matches && cost.outdated(&parsed) {
                true => Some(cost.hash(password.as_bytes())?),
                false => None,
            };
            Ok(Verdict { matches, rehashed })
        })
        .await
    }
}

fn dummy_hash(dummy: &OnceLock<String>, cost: Cost) -> &str {
    dummy.get_or_init(|| {
        cost.hash(crate::auth::random_hex(16).as_bytes())
            .expect("hash dummy password")
    })
}

#[cfg(test)]
mod cost_tests {
    use super::*;

    #[test]
    fn owasps_pairs_pass_and_anything_cheaper_is_below() {
        for (memory_kib, iterations) in [
            (47_104, 1),
            (19_456, 2),
            (12_288, 3),
            (9_216, 4),
            (7_168, 5),
        ] {
            let cost = Cost {
                memory_kib,
                iterations,
            };
            assert!(!cost.below_owasp(), "{cost:?}");
        }
        for (memory_kib, iterations) in [(19_456, 1), (64, 1), (6_144, 64), (12_288, 2)] {
            let cost = Cost {
                memory_kib,
                iterations,
            };
            assert!(cost.below_owasp(), "{cost:?}");
        }
    }

    #[test]
    fn a_hash_made_at_one_cost_verifies_at_another() {
        let cheap = Cost {
            memory_kib: 64,
            iterations: 1,
        };
        let salt = SaltString::generate(&mut OsRng);
        let stored = cheap
            .hasher()
            .hash_password(b"a long passphrase", &salt)
            .unwrap()
            .to_string();
        assert!(stored.contains("m=64,t=1"), "{stored}");
        let parsed = PasswordHash::new(&stored).unwrap();
        assert!(Cost::OWASP
            .hasher()
            .verify_password(b"a long passphrase", &parsed)
            .is_ok());
        assert!(Cost::OWASP
            .hasher()
            .verify_password(b"another passphrase", &parsed)
            .is_err());
    }
}

#[cfg(test)]
mod strength_tests {
    use super::*;

    #[test]
    fn common_and_trivial_passwords_are_refused_and_ordinary_phrases_are_not() {
        for refused in [
            "password",
            "12345678",
            "        ",
            "qwertyuiop",
            "P@ssw0rd",
            "iloveyou",
            "abcdefgh",
            "aaaaaaaaaa",
            "11111111",
            "drowssap",
        ] {
            assert_eq!(
                check_strength(refused, None).unwrap_err().message(),
                TOO_COMMON,
                "{refused:?}"
            );
        }
        for kept in [
            "correct horse battery",
            "a long password",
            "benchmark password",
            "long enough",
            "Zebra kettle 42",
        ] {
            assert!(check_strength(kept, None).is_ok(), "{kept:?}");
        }
        // The account's own address is guessable too.
        assert!(check_strength("ana.lucia@studio.test", Some("ana.lucia@studio.test")).is_err());
        assert!(check_strength("analucia", Some("analucia@studio.test")).is_err());
    }

    #[test]
    fn the_estimate_stays_quick_for_the_longest_password() {
        // The first estimate builds zxcvbn's dictionaries (hundreds of milliseconds in a debug
        // build on a busy CI machine): pay it before the clock starts.
        assert!(check_strength("warm the dictionaries up", None).is_ok());
        let longest = "x9!k".repeat(64);
        let started = std::time::Instant::now();
        assert!(check_strength(&longest, None).is_ok());
        // A guard against a runaway estimate, not a benchmark: 30-50 ms in a debug build,
        // the bound leaves room for a loaded 2-core CI machine.
        let took = started.elapsed();
        assert!(took < std::time::Duration::from_secs(2), "took {took:?}");
    }
}
