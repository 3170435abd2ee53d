//! `/v1/games/{game_id}/api-keys`: create (raw key shown once), list (prefix only), revoke.
use super::{access::Role, require_role};
use crate::{
    auth::{api_key, sha256_hex, BearerAuth},
    error::ApiError,
    http::{timestamp, ApiTags},
    state::AppState,
};
use entity::api_keys;
use poem_openapi::{param::Path, payload::Json, ApiResponse, Object, OpenApi};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
use uuid::Uuid;

pub struct ApiKeysApi {
    pub state: AppState,
}

#[derive(Object)]
#[oai(deny_unknown_fields)]
pub struct CreateKey {
    /// A label for the key, up to 100 characters.
    pub name: Option<String>,
    /// `development` or `production`.
    pub environment: String,
}

#[derive(Object)]
pub struct CreatedKey {
    pub key_id: String,
    /// The raw key. It is shown only in this answer; store it now.
    pub key: String,
    pub name: String,
    pub environment: String,
    pub created_at: String,
}

#[derive(Object)]
pub struct KeySummary {
    pub key_id: String,
    pub name: String,
    pub environment: String,
    /// The first characters of the key, to tell keys apart.
    pub prefix: String,
    pub created_at: String,
}

#[derive(Object)]
pub struct KeyList {
    pub api_keys: Vec<KeySummary>,
}

#[derive(ApiResponse)]
pub enum KeyCreated {
    #[oai(status = 201)]
    Created(Json<CreatedKey>),
}

#[derive(ApiResponse)]
pub enum KeyRevoked {
    #[oai(status = 204)]
    NoContent,
}

const ENVIRONMENTS: &[&str] = &["development", "production"];

#[OpenApi(prefix_path = "/v1/games", tag = "ApiTags::Games")]
impl ApiKeysApi {
    /// Create an API key for the game (owner). Events record which key sent them.
    #[oai(
        path = "/:game_id/api-keys",
        method = "post",
        operation_id = "createApiKey"
    )]
    async fn create(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        body: Json<CreateKey>,
    ) -> poem::Result<KeyCreated> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Owner).await?;
        if !ENVIRONMENTS.contains(&body.environment.as_str()) {
            return Err(
                ApiError::bad_request("environment must be development or production").into(),
            );
        }
        let name = body
            .name
            .clone()
            .unwrap_or_else(|| format!("{} key", body.environment));
        if name.chars().count() > 100 {
            return Err(ApiError::bad_request("name must be at most 100 characters").into());
        }
        let raw = api_key::generate();
        let now = self.state.now();
        let key = api_keys::Model {
            id: Uuid::now_v7(),
            game_id: game_id.0,
            name,
            environment: body.environment.clone(),
            key_hash: sha256_hex(&raw),
            key_prefix: api_key::shown_prefix(&raw),
            created_at: now,
            revoked_at: None,
        };
        api_keys::Entity::insert(api_keys::ActiveModel::from(key.clone()))
            .exec_without_returning(&self.state.db)
            .await
            .map_err(ApiError::from)?;
        Ok(KeyCreated::Created(Json(CreatedKey {
            key_id: key.id.to_string(),
            key: raw,
            name: key.name,
            environment: key.environment,
            created_at: timestamp(now),
        })))
    }

    /// The game's active keys (prefixes only; raw keys are never shown again).
    #[oai(
        path = "/:game_id/api-keys",
        method = "get",
        operation_id = "listApiKeys"
    )]
    async fn list(&self, auth: BearerAuth, game_id: Path<Uuid>) -> poem::Result<Json<KeyList>> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Viewer).await?;
        let keys = api_keys::Entity::find()
            .filter(api_keys::Column::GameId.eq(game_id.0))
            .filter(api_keys::Column::RevokedAt.is_null())
            .order_by_asc(api_keys::Column::CreatedAt)
            .all(&self.state.db)
            .await
            .map_err(ApiError::from)?;
        Ok(Json(KeyList {
            api_keys: keys
                .into_iter()
                .map(|k| KeySummary {
                    key_id: k.id.to_string(),
                    name: k.name,
                    environment: k.environment,
                    prefix: k.key_prefix,
                    created_at: timestamp(k.created_at),
                })
                .collect(),
        }))
    }

    /// Revoke a key (owner). Requests with it are refused from now on.
    #[oai(
        path = "/:game_id/api-keys/:key_id",
        method = "delete",
        operation_id = "revokeApiKey"
    )]
    async fn revoke(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        key_id: Path<Uuid>,
    ) -> poem::Result<KeyRevoked> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Owner).await?;
        let revoked = api_keys::Entity::update_many()
            .col_expr(
                api_keys::Column::RevokedAt,
                sea_orm::sea_query::Expr::value(self.state.now()),
            )
            .filter(api_keys::Column::Id.eq(key_id.0))
            .filter(api_keys::Column::GameId.eq(game_id.0))
            .filter(api_keys::Column::RevokedAt.is_null())
            .exec(&self.state.db)
            .await
            .map_err(ApiError::from)?;
        if revoked.rows_affected == 0 {
            return Err(ApiError::not_found("No such API key").into());
        }
        self.state.game_changed(game_id.0).await;
        Ok(KeyRevoked::NoContent)
    }
}
