//! Who may do what to a game. Roles: owner (keys, members, delete), editor (definitions),
//! viewer (read). The instance admin acts as owner of every game.
use super::GameError;
use crate::store::Db;
use entity::{game_members, games, users};
use sea_orm::EntityTrait;
use uuid::Uuid;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    Viewer,
    Editor,
    Owner,
}

impl Role {
    pub fn parse(raw: &str) -> Result<Self, GameError> {
        match raw {
            "viewer" => Ok(Self::Viewer),
            "editor" => Ok(Self::Editor),
            "owner" => Ok(Self::Owner),
            _ => Err(GameError::invalid(
                "role must be one of: owner, editor, viewer",
            )),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Viewer => "viewer",
            Self::Editor => "editor",
            Self::Owner => "owner",
        }
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
        Role::parse(&member.role).map_err(|_| GameError::StoredRole(member.role))?
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
