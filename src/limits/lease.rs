//! Leased rate-limit windows. With Redis, counting every request with its own round trip
//! would make the shared counter the cost of every call; instead a node reserves a small run of
//! positions in the shared window at once (one atomic `INCRBY`) and hands them out locally.
//! The total admitted across nodes never exceeds the limit; at worst a node's unused positions
//! at the end of a window are lost, so a busy key can be refused up to `nodes x lease` requests
//! early. The lease is 1% of the limit (at most 50), so small limits stay exact.
use crate::store::hot::{memory::window_of, HotError, Limits, WindowCount};
use chrono::{DateTime, Utc};
use parking_lot::Mutex;
use std::{
    collections::{HashMap, VecDeque},
    sync::Arc,
};

const SWEEP_AT: usize = 100_000;

struct Lease {
    window: i64,
    /// Runs of reserved positions not handed out yet, `(next, last)`, oldest first. Several
    /// requests may reserve at once; every run they reserved is used, none overwritten.
    runs: VecDeque<(u64, u64)>,
}

pub struct LeasedWindows {
    inner: Arc<dyn Limits>,
    leasing: bool,
    leases: Mutex<HashMap<String, Lease>>,
}

impl LeasedWindows {
    /// `leasing` is off for the in-process store, where every hit is already local and exact.
    pub fn new(inner: Arc<dyn Limits>, leasing: bool) -> Self {
        Self {
            inner,
            leasing,
            leases: Mutex::new(HashMap::new()),
        }
    }

    /// The position of this request in `bucket`'s current window of `window_secs`.
    pub async fn hit(
        &self,
        bucket: &str,
        limit: u64,
        window_secs: u64,
        now: DateTime<Utc>,
    ) -> Result<WindowCount, HotError> {
        let (window, resets_in_secs) = window_of(now, window_secs);
        let size = if self.leasing {
            (limit / 100).clamp(1, 50)
        } else {
            1
        };
        if size > 1 {
            let mut leases = self.leases.lock();
            if let Some(lease) = leases
                .get_mut(bucket)
                .filter(|lease| lease.window == window)
            {
                if let Some(run) = lease.runs.front_mut() {
                    let count = run.0;
                    run.0 += 1;
                    if run.0 > run.1 {
                        lease.runs.pop_front();
                    }
                    return Ok(WindowCount {
                        count,
                        resets_in_secs,
                    });
                }
            }
        }
        let reserved = self.inner.hit(bucket, size, window_secs, now).await?;
        let first = reserved.count.saturating_sub(size) + 1;
        if size > 1 {
            let mut leases = self.leases.lock();
            if leases.len() >= SWEEP_AT {
                leases.retain(|_, lease| lease.window >= window);
            }
            let lease = leases.entry(bucket.to_string()).or_insert_with(|| Lease {
                window,
                runs: VecDeque::new(),
            });
            if lease.window != window {
                *lease = Lease {
                    window,
                    runs: VecDeque::new(),
                };
            }
            lease.runs.push_back((first + 1, reserved.count));
        }
        Ok(WindowCount {
            count: first,
            resets_in_secs: reserved.resets_in_secs,
        })
    }
}
