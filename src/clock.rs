//! The injectable clock: everything whose behaviour depends on time asks this, so tests move time
//! instead of sleeping.
use chrono::{DateTime, Duration, Utc};
use parking_lot::Mutex;
use std::sync::Arc;

pub trait Clock: Send + Sync + 'static {
    fn now(&self) -> DateTime<Utc>;
}

/// The real wall clock.
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// A clock that runs with real time plus an offset that tests can move forward.
#[derive(Default)]
pub struct OffsetClock {
    offset: Mutex<Duration>,
}

impl OffsetClock {
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    pub fn advance(&self, by: Duration) {
        *self.offset.lock() += by;
    }
}

impl Clock for OffsetClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now() + *self.offset.lock()
    }
}

pub type SharedClock = Arc<dyn Clock>;
