//! Player ids: the one rule every route that takes a player id applies (events, leaderboards,
//! saves, achievements, presence, player data, the recent-events filter), so an id one route
//! stores, every other route reaches.

pub const MAX_PLAYER_ID_CHARS: usize = 128;

/// A player id as games send it: 1 to 128 characters (Unicode scalar values, not bytes) of any
/// text but NUL. Case, spaces and every script are kept as sent (`Zoë`, `steam:7656…`,
/// `auth0|abc`, an e-mail address).
///
/// *Decision* (issue 27): this is the broadest rule any route ever stored under (`/v1/track`'s,
/// which every other route's old rule fits inside), so every id already stored stays reachable
/// by every player route, export and erase included. NUL is refused because PostgreSQL cannot
/// store it. In a URL path the id is percent-encoded (`Zo%C3%AB`, `a%2Fb`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PlayerId(String);

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum InvalidPlayerId {
    #[error("player_id must be 1 to 128 characters")]
    Length,
    #[error("player_id must not contain a NUL character")]
    Nul,
}

impl PlayerId {
    pub fn parse(raw: &str) -> Result<Self, InvalidPlayerId> {
        if !(1..=MAX_PLAYER_ID_CHARS).contains(&raw.chars().count()) {
            return Err(InvalidPlayerId::Length);
        }
        if raw.contains('\0') {
            return Err(InvalidPlayerId::Nul);
        }
        Ok(Self(raw.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

impl std::fmt::Display for PlayerId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

crate::error::answers!(InvalidPlayerId => 400);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_rule_for_every_feature() {
        let longest = "ë".repeat(128);
        for fine in [
            "p1",
            "steam:76561198000000000",
            "auth0|abc",
            "ana@example.com",
            "a.b-c_d",
            "Zoë",
            "a b",
            "a/b",
            " ",
            "..",
            "a\nb",
            longest.as_str(),
        ] {
            assert_eq!(
                PlayerId::parse(fine).map(PlayerId::into_string),
                Ok(fine.to_string())
            );
        }
        let too_long = "p".repeat(129);
        assert_eq!(PlayerId::parse(""), Err(InvalidPlayerId::Length));
        assert_eq!(PlayerId::parse(&too_long), Err(InvalidPlayerId::Length));
        assert_eq!(PlayerId::parse("a\0b"), Err(InvalidPlayerId::Nul));
    }
}
