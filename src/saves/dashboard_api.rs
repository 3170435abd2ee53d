//! `/v1/games/{game_id}/saves/{player_id}[/{slot}]`: players' saves as support staff see them
//! in the dashboard. Any member reads; editors and owners delete.
use super::{
    game_api::{save_key, slot_list, Save, SaveRead, SlotList},
    service::{self, PlayerId},
};
use crate::{
    auth::BearerAuth,
    error::ApiError,
    games::{access::Role, require_role},
    http::json_text::JsonText,
    http::ApiTags,
    http::NoContent,
    state::AppState,
};
use poem_openapi::{param::Path, payload::Json, OpenApi};
use uuid::Uuid;

pub struct SavesAdminApi {
    pub state: AppState,
}

/// What each operation here answers beyond the universal statuses (`http::error_responses`):
/// 403: not a member, or a role below the one needed; 404: an unknown slot.
pub const STATUSES: crate::http::Statuses = crate::http::statuses! {
    inspectPlayerSaves: [403],
    inspectPlayerSave: [403, 404],
    deletePlayerSave: [403, 404],
};

#[OpenApi(prefix_path = "/v1/games", tag = "ApiTags::Saves")]
impl SavesAdminApi {
    /// A player's save slots with their versions and sizes (any member).
    #[oai(
        path = "/:game_id/saves/:player_id",
        method = "get",
        operation_id = "inspectPlayerSaves"
    )]
    async fn list(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        player_id: Path<String>,
    ) -> poem::Result<Json<SlotList>> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Viewer).await?;
        let player = PlayerId::parse(&player_id).map_err(ApiError::from)?;
        let slots = service::list(&self.state.db, game_id.0, &player)
            .await
            .map_err(ApiError::from)?;
        Ok(Json(slot_list(&player, slots)))
    }

    /// One of a player's saves with its data (any member).
    #[oai(
        path = "/:game_id/saves/:player_id/:slot",
        method = "get",
        operation_id = "inspectPlayerSave"
    )]
    async fn get(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        player_id: Path<String>,
        slot: Path<String>,
    ) -> poem::Result<SaveRead> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Viewer).await?;
        let key = save_key(game_id.0, &player_id, &slot)?;
        let save = service::read(&self.state.db, &key)
            .await
            .map_err(ApiError::from)?;
        Ok(SaveRead::Ok(JsonText::<Save>::new(service::read_body(
            &save,
        ))))
    }

    /// Delete one of a player's saves (editor or owner); 404 when absent.
    #[oai(
        path = "/:game_id/saves/:player_id/:slot",
        method = "delete",
        operation_id = "deletePlayerSave"
    )]
    async fn delete(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        player_id: Path<String>,
        slot: Path<String>,
    ) -> poem::Result<NoContent> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Editor).await?;
        let key = save_key(game_id.0, &player_id, &slot)?;
        service::delete(&self.state.db, &key, None)
            .await
            .map_err(ApiError::from)?;
        Ok(NoContent::Done)
    }
}
