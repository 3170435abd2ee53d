//! The in-process hot store: correct for a single node, with nothing to install.
use super::{HotError, Limits, Locks, WindowCount};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use parking_lot::Mutex;
use std::collections::HashMap;

/// Bound on remembered rate-limit buckets before stale windows are swept.
const SWEEP_AT: usize = 100_000;

#[derive(Default)]
pub struct MemoryStore {
    windows: Mutex<HashMap<String, (i64, u64)>>,
    locks: Mutex<HashMap<String, DateTime<Utc>>>,
}

#[async_trait]
impl Limits for MemoryStore {
    async fn hit(
        &self,
        bucket: &str,
        cost: u64,
        window_secs: u64,
        now: DateTime<Utc>,
    ) -> Result<WindowCount, HotError> {
        let (window, resets_in_secs) = window_of(now, window_secs);
        let mut windows = self.windows.lock();
        if windows.len() >= SWEEP_AT {
            windows.retain(|_, (w, _)| *w >= window);
        }
        let entry = windows.entry(bucket.to_string()).or_insert((window, 0));
        if entry.0 != window {
            *entry = (window, 0);
        }
        entry.1 += cost;
        Ok(WindowCount {
            count: entry.1,
            resets_in_secs,
        })
    }
}

#[async_trait]
impl Locks for MemoryStore {
    async fn try_acquire(
        &self,
        name: &str,
        ttl_secs: u64,
        now: DateTime<Utc>,
    ) -> Result<bool, HotError> {
        let mut locks = self.locks.lock();
        match locks.get(name) {
            Some(expires) if *expires > now => Ok(false),
            _ => {
                locks.insert(
                    name.to_string(),
                    now + chrono::Duration::seconds(ttl_secs as i64),
                );
                Ok(true)
            }
        }
    }

    async fn release(&self, name: &str) -> Result<(), HotError> {
        self.locks.lock().remove(name);
        Ok(())
    }
}

/// The index of the fixed window containing `now`, and the seconds left in it.
pub fn window_of(now: DateTime<Utc>, window_secs: u64) -> (i64, u64) {
    let secs = now.timestamp();
    let size = window_secs.max(1) as i64;
    let window = secs.div_euclid(size);
    let resets_in = (window + 1) * size - secs;
    (window, resets_in as u64)
}
