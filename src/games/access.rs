//! Who may do what to a game. Roles: owner (keys, members, delete), editor (definitions),
//! viewer (read). The instance admin acts as owner of every game.
use crate::{error::ApiError, store::Db};
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
    pub fn parse(raw: &str) -> Result<Self, ApiError> {
        match raw {
            "viewer" => Ok(Self::Viewer),
            "editor" => Ok(Self::Editor),
            "owner" => Ok(Self::Owner),
            _ => Err(ApiError::bad_request(
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
) -> Result<Access, ApiError> {
    let no_access = || ApiError::forbidden("You do not have access to this game");
    let user = users::Entity::find_by_id(user_id)
        .one(db)
        .await?
        .ok_or_else(|| ApiError::unauthorized("Account no longer exists"))?;
    let game = games::Entity::find_by_id(game_id)
        .one(db)
        .await?
        .ok_or_else(no_access)?;
    let role = if user.is_admin {
        Role::Owner
    } else {
        let member = game_members::Entity::find_by_id((game_id, user_id))
            .one(db)
            .await?
            .ok_or_else(no_access)?;
        Role::parse(&member.role).map_err(ApiError::internal)?
    };
    if role < needed {
        return Err(ApiError::forbidden(format!(
            "This needs the {} role on the game",
            needed.as_str()
        )));
    }
    Ok(Access {
        game,
        role,
        is_admin: user.is_admin,
    })
}
