//! Player ids: the one rule every player-scoped feature (leaderboards, saves, achievements,
//! presence) applies, so an id one feature accepts no other refuses.

pub const MAX_PLAYER_ID_CHARS: usize = 128;

/// A player id as games send it: 1 to 128 of ASCII letters, digits and `_ - . : @ |`, not made
/// only of dots. Platform ids such as `steam:7656…`, `auth0|abc` or an e-mail address fit, and
/// the id is safe as it is in a URL path (the save routes), a Redis key or a log line. The
/// strictest of the four rules the features had (saves'), so no stored save becomes unreadable.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PlayerId(String);

#[derive(Debug, Clone, Copy, thiserror::Error)]
#[error("player_id must be 1 to 128 characters: letters, digits and _ - . : @ |")]
pub struct InvalidPlayerId;

impl PlayerId {
    pub fn parse(raw: &str) -> Result<Self, InvalidPlayerId> {
        let fits = (1..=MAX_PLAYER_ID_CHARS).contains(&raw.len())
            && raw
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_-.:@|".contains(c))
            && !raw.chars().all(|c| c == '.');
        if fits {
            Ok(Self(raw.to_string()))
        } else {
            Err(InvalidPlayerId)
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

crate::error::answers!(InvalidPlayerId => 400);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_rule_for_every_feature() {
        for fine in [
            "p1",
            "steam:76561198000000000",
            "auth0|abc",
            "ana@example.com",
            "a.b-c_d",
        ] {
            assert!(PlayerId::parse(fine).is_ok(), "{fine}");
        }
        let long = "p".repeat(129);
        for refused in [
            "",
            " ",
            ".",
            "..",
            "a b",
            "Zoë",
            "a/b",
            "a\nb",
            long.as_str(),
        ] {
            assert!(PlayerId::parse(refused).is_err(), "{refused:?}");
        }
        assert!(PlayerId::parse(&"p".repeat(128)).is_ok());
    }
}
