//! `/v1/games/{game_id}/config`: read (any member) and replace (editor or owner) a game's remote
//! config from the dashboard.
use super::service;
use crate::http::schema::Timestamp;
use crate::{
    auth::BearerAuth,
    error::ApiError,
    games::{access::Role, require_role},
    http::ApiTags,
    state::AppState,
};
use poem_openapi::{param::Path, payload::Json, types::Any, Object, OpenApi};
use uuid::Uuid;

pub struct ConfigAdminApi {
    pub state: AppState,
}

#[derive(Object)]
#[oai(deny_unknown_fields)]
pub struct SetConfig {
    /// The whole new config: any JSON object, at most 256 KiB as compact JSON. It replaces the
    /// previous values entirely.
    pub values: Any<serde_json::Value>,
}

#[derive(Object)]
pub struct ConfigValues {
    /// The config games receive from `GET /v1/config`.
    pub values: Any<serde_json::Value>,
    /// When the values last changed; null when never set.
    #[oai(nullable)]
    pub updated_at: Option<Timestamp>,
}

fn view(config: &service::StoredConfig) -> Result<ConfigValues, ApiError> {
    Ok(ConfigValues {
        values: Any(config.values()?),
        updated_at: config.updated_at.map(Timestamp::from),
    })
}

/// What each operation here answers beyond the universal statuses (`http::error_responses`):
/// 403: not a member, or a role below the one needed.
pub const STATUSES: crate::http::Statuses = crate::http::statuses! {
    getGameConfig: [403],
    setGameConfig: [403],
};

#[OpenApi(prefix_path = "/v1/games", tag = "ApiTags::Config")]
impl ConfigAdminApi {
    /// The game's remote config (any member).
    #[oai(
        path = "/:game_id/config",
        method = "get",
        operation_id = "getGameConfig"
    )]
    async fn get(&self, auth: BearerAuth, game_id: Path<Uuid>) -> poem::Result<Json<ConfigValues>> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Viewer).await?;
        let config = service::load(&self.state, game_id.0).await?;
        Ok(Json(view(&config)?))
    }

    /// Replace the game's remote config (editor or owner). Games polling `GET /v1/config` see
    /// the new values within a second.
    #[oai(
        path = "/:game_id/config",
        method = "put",
        operation_id = "setGameConfig"
    )]
    async fn put(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        body: Json<SetConfig>,
    ) -> poem::Result<Json<ConfigValues>> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Editor).await?;
        let values_json = service::parse_values(&body.values.0).map_err(ApiError::from)?;
        let config = service::store(&self.state, game_id.0, values_json).await?;
        Ok(Json(ConfigValues {
            values: Any(body.0.values.0),
            updated_at: config.updated_at.map(Timestamp::from),
        }))
    }
}
