//! `GET /v1/config`: the game's remote config, for games to poll with their API key.
use crate::http::json_text::JsonText;
use crate::http::schema::Timestamp;
use crate::{auth::ApiKeyAuth, http::ApiTags, state::AppState};
use poem_openapi::{param::Header, types::Any, ApiResponse, Object, OpenApi};

/// Sent with every answer: clients and proxies may keep the body but must ask again (with
/// `If-None-Match`) before using it; shared caches must not keep it, it belongs to one key.
const CACHE_CONTROL: &str = "private, no-cache";

pub struct ConfigApi {
    pub state: AppState,
}

#[derive(Object)]
pub struct GameConfig {
    /// The values set in the dashboard (a JSON object); empty until some are set.
    pub config: Any<serde_json::Value>,
    /// When the values last changed; null when never set.
    #[oai(nullable)]
    pub updated_at: Option<Timestamp>,
}

#[derive(ApiResponse)]
pub enum ConfigAnswer {
    /// The config, with its ETag: send it back in `If-None-Match` to poll cheaply.
    #[oai(status = 200)]
    Ok(
        JsonText<GameConfig>,
        #[oai(header = "ETag")] String,
        #[oai(header = "Cache-Control")] String,
    ),
    /// Unchanged since the ETag given in `If-None-Match`; the body is empty.
    #[oai(status = 304)]
    NotModified(
        #[oai(header = "ETag")] String,
        #[oai(header = "Cache-Control")] String,
    ),
}

/// What each operation here answers beyond the universal statuses (`http::error_responses`).
pub const STATUSES: crate::http::Statuses = crate::http::statuses! {
    getConfig: [],
};

#[OpenApi(prefix_path = "/v1/config", tag = "ApiTags::Config")]
impl ConfigApi {
    /// The remote config of the key's game. Poll it with the last `ETag` in `If-None-Match`:
    /// while nothing changed the answer is an empty 304. A change reaches every API node
    /// within a second.
    #[oai(path = "/", method = "get", operation_id = "getConfig")]
    async fn get(
        &self,
        auth: ApiKeyAuth,
        /// The `ETag` of the config you hold (several may be given, comma separated).
        #[oai(name = "If-None-Match")]
        if_none_match: Header<Option<String>>,
    ) -> poem::Result<ConfigAnswer> {
        let published = super::service::cache(&self.state)
            .get(&self.state, auth.0.game_id)
            .await?;
        if if_none_match
            .0
            .as_deref()
            .is_some_and(|tags| published.matches(tags))
        {
            return Ok(ConfigAnswer::NotModified(
                published.etag.clone(),
                CACHE_CONTROL.into(),
            ));
        }
        Ok(ConfigAnswer::Ok(
            JsonText::new(published.body.clone()),
            published.etag.clone(),
            CACHE_CONTROL.into(),
        ))
    }
}
