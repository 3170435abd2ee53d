//! Achievement routes of the game side (API key): `GET /v1/achievements` and
//! `POST /v1/achievements/unlock`.
use super::service::{self, PlayerCounts, HIDDEN_TEXT};
use crate::player_id::PlayerId;
use crate::{
    auth::ApiKeyAuth,
    error::ApiError,
    http::{timestamp, ApiTags},
    state::AppState,
};
use poem_openapi::{param::Query, payload::Json, types::MaybeUndefined, Object, OpenApi};
use std::sync::Arc;
use uuid::Uuid;

pub struct AchievementsApi {
    pub state: AppState,
    pub player_counts: Arc<PlayerCounts>,
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
    #[oai(nullable)]
    pub unlocked: MaybeUndefined<bool>,
    /// Present with `player_id`: when it was unlocked, null while locked.
    #[oai(skip_serializing_if = "MaybeUndefined::is_undefined")]
    #[oai(nullable)]
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

/// What each operation here answers beyond the universal statuses (`http::error_responses`):
/// 404: an unknown achievement.
pub const STATUSES: crate::http::Statuses = crate::http::statuses! {
    listAchievements: [],
    unlockAchievement: [404],
};

#[OpenApi(prefix_path = "/v1", tag = "ApiTags::Achievements")]
impl AchievementsApi {
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
        let player_id = player_id
            .0
            .as_deref()
            .map(|raw| PlayerId::parse(raw).map(PlayerId::into_string))
            .transpose()?;
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
        let player_id = PlayerId::parse(&body.player_id)?.into_string();
        auth.acts_as(&player_id)?;
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
