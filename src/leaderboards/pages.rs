//! Rendered pages of current periods, kept per node and reused while the board's hot-store
//! version is unchanged. Checking the version is one small read, so a repeated read of a board
//! nobody is changing skips ranking, decoding and rendering; any change anywhere (submission,
//! removal, rebuild) changes the version and the next read renders afresh.
use crate::http::json_text::JsonText;
use parking_lot::Mutex;
use std::collections::HashMap;
use uuid::Uuid;

/// Pages kept at most; past this the cache starts over (pages of idle boards go with it).
const MAX_PAGES: usize = 4_096;

/// Which page: board, period, offset, limit.
pub type PageKey = (Uuid, String, u64, u64);

/// Rendered pages of type `T` (the game API's `LeaderboardPage`), each with the version it
/// was rendered at.
pub struct PageCache<T> {
    pages: Mutex<HashMap<PageKey, (String, JsonText<T>)>>,
}

impl<T> Default for PageCache<T> {
    fn default() -> Self {
        Self {
            pages: Mutex::default(),
        }
    }
}

impl<T> PageCache<T> {
    /// The page rendered at `version`, if this node holds it.
    pub fn get(&self, key: &PageKey, version: &str) -> Option<JsonText<T>> {
        let pages = self.pages.lock();
        let (held, page) = pages.get(key)?;
        (held == version).then(|| page.clone())
    }

    /// Keeps `page`, rendered from data at least as new as `version`.
    pub fn put(&self, key: PageKey, version: String, page: JsonText<T>) {
        let mut pages = self.pages.lock();
        if pages.len() >= MAX_PAGES && !pages.contains_key(&key) {
            pages.clear();
        }
        pages.insert(key, (version, page));
    }
}
