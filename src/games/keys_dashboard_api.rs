//! `/v1/games/{game_id}/api-keys`: create (raw key shown once), list (prefix only), revoke.
use super::{access::Role, require_role, service};
use crate::http::schema::Timestamp;
use crate::words::{CorruptWord, Environment, Word};
use crate::{auth::BearerAuth, http::ApiTags, http::NoContent, state::AppState};
use poem_openapi::{param::Path, payload::Json, ApiResponse, Object, OpenApi};
use uuid::Uuid;

pub struct ApiKeysApi {
    pub state: AppState,
}

#[derive(Object)]
#[oai(deny_unknown_fields)]
pub struct CreateKey {
    /// A label for the key, up to 100 characters.
    #[oai(nullable)]
    pub name: Option<String>,
    /// `development` or `production`.
    pub environment: Word<Environment>,
}

#[derive(Object)]
pub struct CreatedKey {
    pub key_id: String,
    /// The raw key. It is shown only in this answer; store it now.
    pub key: String,
    pub name: String,
    pub environment: Environment,
    pub created_at: Timestamp,
}

#[derive(Object)]
pub struct KeySummary {
    pub key_id: String,
    pub name: String,
    pub environment: Environment,
    /// The first characters of the key, to tell keys apart.
    pub prefix: String,
    pub created_at: Timestamp,
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

/// What each operation here answers beyond the universal statuses (`http::error_responses`):
/// 403: not a member, or a role below the one needed; 404: an unknown key.
pub const STATUSES: crate::http::Statuses = crate::http::statuses! {
    createApiKey: [403],
    listApiKeys: [403],
    revokeApiKey: [403, 404],
};

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
        let (environment, name) = service::parse_key(&body.environment, body.name.as_deref())?;
        let (key, raw) = service::create_key(&self.state, game_id.0, environment, name).await?;
        Ok(KeyCreated::Created(Json(CreatedKey {
            key_id: key.id.to_string(),
            key: raw,
            name: key.name,
            environment,
            created_at: Timestamp::from(key.created_at),
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
        let keys = service::active_keys(&self.state, game_id.0).await?;
        Ok(Json(KeyList {
            api_keys: keys
                .into_iter()
                .map(|k| {
                    Ok(KeySummary {
                        key_id: k.id.to_string(),
                        environment: Environment::stored(&k.environment)?,
                        name: k.name,
                        prefix: k.key_prefix,
                        created_at: Timestamp::from(k.created_at),
                    })
                })
                .collect::<Result<_, CorruptWord>>()?,
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
    ) -> poem::Result<NoContent> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Owner).await?;
        service::revoke_key(&self.state, game_id.0, key_id.0).await?;
        Ok(NoContent::Done)
    }
}
