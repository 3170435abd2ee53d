//! Achievement routes: definitions under `/v1/games/{game_id}/achievements` (dashboard),
//! `GET /v1/achievements` and `POST /v1/achievements/unlock` (game side).
use super::service::{
    self, parse_description, parse_icon_url, parse_key, parse_name, parse_player_id, parse_points,
    AchievementChanges, NewAchievement, PlayerCounts, HIDDEN_TEXT,
};
use crate::{
    auth::{ApiKeyAuth, BearerAuth},
    error::ApiError,
    games::{access::Role, require_role},
    http::{timestamp, ApiTags},
    state::AppState,
};
use entity::achievements;
use poem_openapi::{
    param::{Path, Query},
    payload::Json,
    types::MaybeUndefined,
    ApiResponse, Object, OpenApi,
};
use std::sync::Arc;
use uuid::Uuid;

pub struct AchievementsApi {
    pub state: AppState,
    pub player_counts: Arc<PlayerCounts>,
}

#[derive(Object)]
#[oai(deny_unknown_fields)]
pub struct CreateAchievement {
    /// Identifier the game unlocks it by: 1 to 64 letters, digits, `_`, `-` or `.`; unique per game.
    pub key: String,
    /// 1 to 128 characters.
    pub name: String,
    /// Up to 1000 characters.
    pub description: String,
    /// Empty or an http(s) URL.
    pub icon_url: Option<String>,
    /// 0 to 1000000.
    pub points: i64,
    /// While a player has it locked, name and description read `???`. Default false.
    pub hidden: Option<bool>,
}

#[derive(Object)]
#[oai(deny_unknown_fields)]
pub struct UpdateAchievement {
    pub name: Option<String>,
    pub description: Option<String>,
    pub icon_url: Option<String>,
    pub points: Option<i64>,
    pub hidden: Option<bool>,
}

/// An achievement definition as the dashboard sees it (never masked).
#[derive(Object)]
pub struct AchievementDefinition {
    pub key: String,
    pub name: String,
    pub description: String,
    pub icon_url: String,
    pub points: i32,
    pub hidden: bool,
    /// Players who have unlocked it.
    pub unlock_count: i64,
    /// Percent of the game's players who have it (see `docs/presence.md` for who counts).
    pub rarity: f64,
    pub created_at: String,
    pub updated_at: String,
}

#[derive(Object)]
pub struct AchievementDefinitions {
    pub achievements: Vec<AchievementDefinition>,
}

/// An achievement as a game sees it.
#[derive(Object)]
pub struct Achievement {
    pub key: String,
    /// `???` while hidden and locked.
    pub name: String,
    /// `???` while hidden and locked.
    pub description: String,
    /// May be an empty string.
    pub icon_url: String,
    pub points: i32,
    pub hidden: bool,
    /// Present with `player_id`.
    #[oai(skip_serializing_if = "MaybeUndefined::is_undefined")]
    pub unlocked: MaybeUndefined<bool>,
    /// Present with `player_id`: when it was unlocked, null while locked.
    #[oai(skip_serializing_if = "MaybeUndefined::is_undefined")]
    pub unlocked_at: MaybeUndefined<String>,
    /// Players who have unlocked it.
    pub unlock_count: i64,
    /// Percent of the game's players who have it, two decimals.
    pub rarity: f64,
}

#[derive(Object)]
pub struct AchievementList {
    pub achievements: Vec<Achievement>,
    /// Sum of points over every achievement.
    pub total_points: i64,
    /// Sum of points over the achievements `player_id` has unlocked (0 without `player_id`).
    pub unlocked_points: i64,
}

#[derive(Object)]
#[oai(deny_unknown_fields)]
pub struct UnlockRequest {
    pub achievement_key: String,
    /// 1 to 128 characters.
    pub player_id: String,
}

#[derive(Object)]
pub struct UnlockedAchievement {
    pub key: String,
    pub name: String,
    pub description: String,
    pub points: i32,
}

#[derive(Object)]
pub struct UnlockResult {
    pub success: bool,
    pub achievement: UnlockedAchievement,
    /// True when the player already had it (nothing changed).
    pub already_unlocked: bool,
    /// The player's points over every achievement they have unlocked.
    pub total_points: i64,
}

#[derive(ApiResponse)]
pub enum AchievementCreated {
    #[oai(status = 201)]
    Created(Json<AchievementDefinition>),
}

#[derive(ApiResponse)]
pub enum AchievementDeleted {
    #[oai(status = 204)]
    NoContent,
}

#[OpenApi(prefix_path = "/v1", tag = "ApiTags::Achievements")]
impl AchievementsApi {
    /// Define an achievement (editor or owner). 409 when the game already has the key.
    #[oai(
        path = "/games/:game_id/achievements",
        method = "post",
        operation_id = "createAchievement"
    )]
    async fn create(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        body: Json<CreateAchievement>,
    ) -> poem::Result<AchievementCreated> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Editor).await?;
        let new = NewAchievement {
            key: parse_key(&body.key)?,
            name: parse_name(&body.name)?,
            description: parse_description(&body.description)?,
            icon_url: parse_icon_url(body.icon_url.as_deref())?,
            points: parse_points(body.points)?,
            hidden: body.hidden.unwrap_or(false),
        };
        let model = service::create(&self.state, game_id.0, new).await?;
        Ok(AchievementCreated::Created(Json(definition(model, 0))))
    }

    /// The game's achievement definitions with unlock counts and rarity (any member).
    #[oai(
        path = "/games/:game_id/achievements",
        method = "get",
        operation_id = "listAchievementDefinitions"
    )]
    async fn list_definitions(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
    ) -> poem::Result<Json<AchievementDefinitions>> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Viewer).await?;
        let models = service::list(&self.state.db, game_id.0).await?;
        let players = self.players(game_id.0).await?;
        Ok(Json(AchievementDefinitions {
            achievements: models.into_iter().map(|m| definition(m, players)).collect(),
        }))
    }

    /// One achievement definition (any member).
    #[oai(
        path = "/games/:game_id/achievements/:key",
        method = "get",
        operation_id = "getAchievementDefinition"
    )]
    async fn get_definition(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        key: Path<String>,
    ) -> poem::Result<Json<AchievementDefinition>> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Viewer).await?;
        let model = service::find(&self.state.db, game_id.0, &key.0).await?;
        let players = self.players(game_id.0).await?;
        Ok(Json(definition(model, players)))
    }

    /// Change an achievement (editor or owner). Its key cannot change; unlocks are kept.
    #[oai(
        path = "/games/:game_id/achievements/:key",
        method = "patch",
        operation_id = "updateAchievement"
    )]
    async fn update(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        key: Path<String>,
        body: Json<UpdateAchievement>,
    ) -> poem::Result<Json<AchievementDefinition>> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Editor).await?;
        let changes = AchievementChanges {
            name: body.name.as_deref().map(parse_name).transpose()?,
            description: body
                .description
                .as_deref()
                .map(parse_description)
                .transpose()?,
            icon_url: body
                .icon_url
                .as_deref()
                .map(|url| parse_icon_url(Some(url)))
                .transpose()?,
            points: body.points.map(parse_points).transpose()?,
            hidden: body.hidden,
        };
        let model = service::update(&self.state, game_id.0, &key.0, changes).await?;
        let players = self.players(game_id.0).await?;
        Ok(Json(definition(model, players)))
    }

    /// Delete an achievement and every player's unlock of it (editor or owner).
    #[oai(
        path = "/games/:game_id/achievements/:key",
        method = "delete",
        operation_id = "deleteAchievement"
    )]
    async fn delete(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        key: Path<String>,
    ) -> poem::Result<AchievementDeleted> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Editor).await?;
        service::delete(&self.state.db, game_id.0, &key.0).await?;
        Ok(AchievementDeleted::NoContent)
    }

    /// Every achievement of the game, with points totals, unlock counts and rarity.
    ///
    /// With `player_id`, each carries `unlocked` and `unlocked_at`; hidden ones the player has not
    /// unlocked (and all hidden ones without `player_id`) read `???`.
    #[oai(
        path = "/achievements",
        method = "get",
        operation_id = "listAchievements"
    )]
    async fn list(
        &self,
        auth: ApiKeyAuth,
        player_id: Query<Option<String>>,
    ) -> poem::Result<Json<AchievementList>> {
        let game_id = auth.0.game_id;
        let player_id = player_id.0.as_deref().map(parse_player_id).transpose()?;
        let models = service::list(&self.state.db, game_id).await?;
        let unlocks = match &player_id {
            Some(player_id) => Some(service::unlocks_of(&self.state.db, game_id, player_id).await?),
            None => None,
        };
        let players = self.players(game_id).await?;
        let mut total_points = 0i64;
        let mut unlocked_points = 0i64;
        let mut achievements = Vec::with_capacity(models.len());
        for model in models {
            total_points += i64::from(model.points);
            let unlocked_at = unlocks.as_ref().and_then(|u| u.get(&model.id).copied());
            if unlocked_at.is_some() {
                unlocked_points += i64::from(model.points);
            }
            let masked = model.hidden && unlocked_at.is_none();
            let text = |real: String| {
                if masked {
                    HIDDEN_TEXT.to_string()
                } else {
                    real
                }
            };
            achievements.push(Achievement {
                unlocked: match &unlocks {
                    Some(_) => MaybeUndefined::Value(unlocked_at.is_some()),
                    None => MaybeUndefined::Undefined,
                },
                unlocked_at: match (&unlocks, unlocked_at) {
                    (None, _) => MaybeUndefined::Undefined,
                    (Some(_), Some(at)) => MaybeUndefined::Value(timestamp(at)),
                    (Some(_), None) => MaybeUndefined::Null,
                },
                rarity: service::rarity(model.unlock_count, players),
                unlock_count: model.unlock_count,
                name: text(model.name),
                description: text(model.description),
                key: model.key,
                icon_url: model.icon_url,
                points: model.points,
                hidden: model.hidden,
            });
        }
        Ok(Json(AchievementList {
            achievements,
            total_points,
            unlocked_points,
        }))
    }

    /// Unlock an achievement for a player.
    ///
    /// Unlocking it again changes nothing and answers `already_unlocked: true`. 404 for an unknown `achievement_key`.
    #[oai(
        path = "/achievements/unlock",
        method = "post",
        operation_id = "unlockAchievement"
    )]
    async fn unlock(
        &self,
        auth: ApiKeyAuth,
        body: Json<UnlockRequest>,
    ) -> poem::Result<Json<UnlockResult>> {
        if body.achievement_key.is_empty() {
            return Err(ApiError::bad_request("achievement_key is required").into());
        }
        let player_id = parse_player_id(&body.player_id)?;
        let unlocked = service::unlock(
            &self.state,
            auth.0.game_id,
            &body.achievement_key,
            &player_id,
        )
        .await?;
        let achievement = unlocked.achievement;
        Ok(Json(UnlockResult {
            success: true,
            achievement: UnlockedAchievement {
                key: achievement.key,
                name: achievement.name,
                description: achievement.description,
                points: achievement.points,
            },
            already_unlocked: unlocked.already_unlocked,
            total_points: unlocked.total_points,
        }))
    }
}

impl AchievementsApi {
    async fn players(&self, game_id: Uuid) -> Result<u64, ApiError> {
        Ok(self
            .player_counts
            .get(&self.state.db, game_id, self.state.now())
            .await?)
    }
}

fn definition(model: achievements::Model, players: u64) -> AchievementDefinition {
    AchievementDefinition {
        rarity: service::rarity(model.unlock_count, players),
        unlock_count: model.unlock_count,
        key: model.key,
        name: model.name,
        description: model.description,
        icon_url: model.icon_url,
        points: model.points,
        hidden: model.hidden,
        created_at: timestamp(model.created_at),
        updated_at: timestamp(model.updated_at),
    }
}
