//! What can go wrong with games, members and API keys, in their own words, and how each
//! answers over HTTP.
use super::access::Role;

#[derive(Debug, thiserror::Error)]
pub enum GameError {
    /// A field the dashboard sent that breaks its rule (name, tier, role, origins ...).
    #[error("{0}")]
    Invalid(String),
    /// The bearer token names an account that was deleted since.
    #[error("Account no longer exists")]
    AccountGone,
    /// Unknown games and games the caller is not a member of alike.
    #[error("You do not have access to this game")]
    NoAccess,
    #[error("This needs the {} role on the game", .0.as_str())]
    RoleNeeded(Role),
    #[error("Only the instance admin can set a paid tier")]
    PaidTierAdminOnly,
    #[error("Only the instance admin can change the tier, the monthly event quota, the cap on rate limits, or reset a rate limit")]
    LimitsAdminOnly,
    #[error("{0} may be at most {1}, the most the instance admin allows this game (max_rate_limit_per_minute)")]
    AboveCap(&'static str, u64),
    #[error("You own {0} games, the most one account may own on this instance; delete one, or ask the instance admin (who has no cap) to create it")]
    OwnedGamesCap(u32),
    #[error("No such member")]
    NoSuchMember,
    #[error("That account is already a member of this game")]
    AlreadyMember,
    #[error("A game must keep at least one owner")]
    LastOwner,
    #[error("No such API key")]
    NoSuchKey,
    /// A stored row holds a word outside its set (a role, a tier ...).
    #[error(transparent)]
    Stored(#[from] crate::words::CorruptWord),
    /// A request names a word outside its set.
    #[error(transparent)]
    Word(#[from] crate::words::InvalidWord),
    #[error(transparent)]
    Cold(#[from] sea_orm::DbErr),
}

impl GameError {
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::Invalid(message.into())
    }
}

crate::error::answers!(GameError as error {
    400: Invalid(_) | Word(_),
    401: AccountGone,
    403: NoAccess | RoleNeeded(_) | PaidTierAdminOnly | LimitsAdminOnly | AboveCap(..) | OwnedGamesCap(_),
    404: NoSuchMember | NoSuchKey,
    409: AlreadyMember | LastOwner,
    internal: Stored(_),
    passes: Cold,
});
