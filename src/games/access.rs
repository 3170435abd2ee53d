//! Who may do what to a game. Roles: owner (keys, members, delete), editor (definitions),
//! viewer (read). The instance admin acts as owner of every game.
use super::GameError;
use crate::store::Db;
use entity::{game_members, games, users};
use sea_orm::EntityTrait;
use uuid::Uuid;

pub use crate::words::Role;

impl Role {
    /// How much the role may do: viewer < editor < owner.
    fn rank(self) -> u8 {
        match self {
            Self::Viewer => 0,
            Self::Editor => 1,
            Self::Owner => 2,
        }
    }
}

impl PartialOrd for Role {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Role {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.rank().cmp(&other.rank())
    }
}

/// A caller's standing on one game, once checked.
#[derive(Debug, Clone)]
pub struct Access {
    pub game: games::Model,
    pub role: Role,
    pub is_admin: bool,
}

/// Loads the game and checks that `user_id` holds at least `needed` on it. Unknown games and
/// games the caller is not a member of answer the same 403, so ids reveal nothing.
pub async fn require_role(
    db: &Db,
    user_id: Uuid,
    game_id: Uuid,
    needed: Role,
) -> Result<Access, GameError> {
    let user = users::Entity::find_by_id(user_id)
        .one(db)
        .await?
        .ok_or(GameError::AccountGone)?;
    let game = games::Entity::find_by_id(game_id)
        .one(db)
        .await?
        .ok_or(GameError::NoAccess)?;
    let role = if user.is_admin {
        Role::Owner
    } else {
        let member = game_members::Entity::find_by_id((game_id, user_id))
            .one(db)
            .await?
            .ok_or(GameError::NoAccess)?;
        Role::stored(&member.role)?
    };
    if role < needed {
        return Err(GameError::RoleNeeded(needed));
    }
    Ok(Access {
        game,
        role,
        is_admin: user.is_admin,
    })
}
