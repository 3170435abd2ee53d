//! Achievement routes of the dashboard (JWT): definitions under
//! `/v1/games/{game_id}/achievements`, each with its unlock count and rarity.
use super::service::{
    self, parse_description, parse_icon_url, parse_key, parse_name, parse_points,
    AchievementChanges, NewAchievement, PlayerCounts,
};
use crate::http::schema::Timestamp;
use crate::{
    auth::BearerAuth,
    error::ApiError,
    games::{access::Role, require_role},
    http::ApiTags,
    http::NoContent,
    state::AppState,
};
use entity::achievements;
use poem_openapi::{param::Path, payload::Json, ApiResponse, Object, OpenApi};
use std::sync::Arc;
use uuid::Uuid;

pub struct AchievementDefinitionsApi {
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
    #[oai(nullable)]
    pub icon_url: Option<String>,
    /// 0 to 1000000.
    pub points: i64,
    /// While a player has it locked, name and description read `???`. Default false.
    #[oai(nullable)]
    pub hidden: Option<bool>,
}

#[derive(Object)]
#[oai(deny_unknown_fields)]
pub struct UpdateAchievement {
    #[oai(nullable)]
    pub name: Option<String>,
    #[oai(nullable)]
    pub description: Option<String>,
    #[oai(nullable)]
    pub icon_url: Option<String>,
    #[oai(nullable)]
    pub points: Option<i64>,
    #[oai(nullable)]
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
    /// Percent of the game's players who have it (see `docs/achievements.md` for who counts).
    pub rarity: f64,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

#[derive(Object)]
pub struct AchievementDefinitions {
    pub achievements: Vec<AchievementDefinition>,
}

#[derive(ApiResponse)]
pub enum AchievementCreated {
    #[oai(status = 201)]
    Created(Json<AchievementDefinition>),
}

/// What each operation here answers beyond the universal statuses (`http::error_responses`):
/// 403: not a member, or a role below the one needed; 404: an unknown key; 409: a taken key.
pub const STATUSES: crate::http::Statuses = crate::http::statuses! {
    createAchievement: [403, 409],
    listAchievementDefinitions: [403],
    getAchievementDefinition: [403, 404],
    updateAchievement: [403, 404],
    deleteAchievement: [403, 404],
};

#[OpenApi(prefix_path = "/v1", tag = "ApiTags::Achievements")]
impl AchievementDefinitionsApi {
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
    ) -> poem::Result<NoContent> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Editor).await?;
        service::delete(&self.state.db, game_id.0, &key.0).await?;
        Ok(NoContent::Done)
    }
}

impl AchievementDefinitionsApi {
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
        created_at: Timestamp::from(model.created_at),
        updated_at: Timestamp::from(model.updated_at),
    }
}
