//! `/v1/saves/{player_id}[/{slot}]`: cloud saves as games use them, with their API key.
use super::service::{self, PlayerId, SaveData, SaveError, SaveKey, SlotName};
use crate::http::schema::Timestamp;
use crate::{
    auth::ApiKeyAuth, error::ApiError, http::json_text::JsonText, http::ApiTags, state::AppState,
};
use poem_openapi::{
    param::{Path, Query},
    payload::Json,
    types::Any,
    ApiResponse, Object, OpenApi,
};
use uuid::Uuid;

pub struct SavesApi {
    pub state: AppState,
}

#[derive(Object)]
#[oai(deny_unknown_fields)]
pub struct SaveWrite {
    /// The save: any JSON value except null, at most 1 MiB as compact JSON.
    pub data: Any<serde_json::Value>,
    /// The version you last read of this slot, or 0 to create it.
    pub version: i64,
}

#[derive(Object)]
pub struct SaveReceipt {
    pub slot: String,
    /// The slot's new version: send it with your next write.
    pub version: i64,
    pub updated_at: Timestamp,
}

#[derive(Object)]
pub struct Save {
    pub slot: String,
    /// Counts the writes since the slot was created (1 after the first).
    pub version: i64,
    pub data: Any<serde_json::Value>,
    pub updated_at: Timestamp,
}

#[derive(Object)]
pub struct SlotInfo {
    pub slot: String,
    pub version: i64,
    /// Size of the stored data in bytes (compact JSON).
    pub size_bytes: i64,
    pub updated_at: Timestamp,
}

#[derive(Object)]
pub struct SlotList {
    pub player_id: String,
    /// The player's slots, by name; empty for a player without saves.
    pub saves: Vec<SlotInfo>,
}

#[derive(Object)]
pub struct VersionConflict {
    pub error: String,
    /// The version stored now (0 when the slot does not exist): read it again, merge, retry.
    pub version: i64,
}

#[derive(Object)]
pub struct SaveTooLarge {
    pub error: String,
    /// Largest data accepted, in bytes of compact JSON.
    pub limit: u64,
    /// Size of the data sent (absent when the body was refused before being read).
    #[oai(nullable)]
    pub received: Option<u64>,
}

#[derive(ApiResponse)]
pub enum SaveWritten {
    /// Stored as a whole.
    #[oai(status = 200)]
    Ok(Json<SaveReceipt>),
    /// `version` is not the stored version; nothing was written.
    #[oai(status = 409)]
    Conflict(Json<VersionConflict>),
    /// `data` is over 1 MiB; nothing was written.
    #[oai(status = 413)]
    TooLarge(Json<SaveTooLarge>),
}

#[derive(ApiResponse)]
pub enum SaveRead {
    #[oai(status = 200)]
    Ok(JsonText<Save>),
}

#[derive(ApiResponse)]
pub enum SaveDeleted {
    #[oai(status = 204)]
    NoContent,
    /// The slot has another version than the one given; nothing was deleted.
    #[oai(status = 409)]
    Conflict(Json<VersionConflict>),
}

pub fn slot_list(player: &PlayerId, slots: Vec<service::SlotSummary>) -> SlotList {
    SlotList {
        player_id: player.as_str().to_string(),
        saves: slots
            .into_iter()
            .map(|s| SlotInfo {
                slot: s.slot,
                version: s.version,
                size_bytes: s.size_bytes,
                updated_at: Timestamp::from(s.updated_at),
            })
            .collect(),
    }
}

pub fn save_key(game_id: Uuid, player_id: &str, slot: &str) -> Result<SaveKey, ApiError> {
    Ok(SaveKey {
        game_id,
        player: PlayerId::parse(player_id)?,
        slot: SlotName::parse(slot)?,
    })
}

pub fn conflict(error: &SaveError, stored: i64) -> Json<VersionConflict> {
    Json(VersionConflict {
        error: error.to_string(),
        version: stored,
    })
}

/// What each operation here answers beyond the universal statuses (`http::error_responses`):
/// 404: an unknown slot; 409: another version is stored.
pub const STATUSES: crate::http::Statuses = crate::http::statuses! {
    writeSave: [409],
    readSave: [404],
    deleteSave: [404, 409],
    listSaves: [],
};

#[OpenApi(prefix_path = "/v1/saves", tag = "ApiTags::Saves")]
impl SavesApi {
    /// Write a save slot. Send the version you last read (0 to create the slot): if someone
    /// wrote it since, nothing is written and the answer is 409 with the stored version.
    #[oai(path = "/:player_id/:slot", method = "put", operation_id = "writeSave")]
    async fn put(
        &self,
        auth: ApiKeyAuth,
        player_id: Path<String>,
        slot: Path<String>,
        body: Json<SaveWrite>,
    ) -> poem::Result<SaveWritten> {
        let key = save_key(auth.0.game_id, &player_id, &slot)?;
        auth.acts_as(key.player.as_str())?;
        let written = match SaveData::parse(&body.data.0) {
            Ok(data) => {
                service::write(&self.state.db, &key, data, body.version, self.state.now()).await
            }
            Err(error) => Err(error),
        };
        match written {
            Ok(written) => Ok(SaveWritten::Ok(Json(SaveReceipt {
                slot: key.slot.as_str().to_string(),
                version: written.version,
                updated_at: Timestamp::from(written.updated_at),
            }))),
            Err(error @ SaveError::VersionConflict { stored }) => {
                Ok(SaveWritten::Conflict(conflict(&error, stored)))
            }
            Err(error @ SaveError::TooLarge { received }) => {
                Ok(SaveWritten::TooLarge(Json(SaveTooLarge {
                    error: error.to_string(),
                    limit: service::MAX_DATA_BYTES as u64,
                    received: Some(received as u64),
                })))
            }
            Err(error) => Err(ApiError::from(error).into()),
        }
    }

    /// Read a save slot (404 when the player has no such slot).
    #[oai(path = "/:player_id/:slot", method = "get", operation_id = "readSave")]
    async fn get(
        &self,
        auth: ApiKeyAuth,
        player_id: Path<String>,
        slot: Path<String>,
    ) -> poem::Result<SaveRead> {
        let key = save_key(auth.0.game_id, &player_id, &slot)?;
        auth.acts_as(key.player.as_str())?;
        let save = service::read(&self.state.db, &key)
            .await
            .map_err(ApiError::from)?;
        Ok(SaveRead::Ok(JsonText::new(service::read_body(&save))))
    }

    /// Delete a save slot (404 when absent). With `?version=`, only while the slot still has
    /// that version (409 with the stored version otherwise).
    #[oai(
        path = "/:player_id/:slot",
        method = "delete",
        operation_id = "deleteSave"
    )]
    async fn delete(
        &self,
        auth: ApiKeyAuth,
        player_id: Path<String>,
        slot: Path<String>,
        version: Query<Option<i64>>,
    ) -> poem::Result<SaveDeleted> {
        let key = save_key(auth.0.game_id, &player_id, &slot)?;
        auth.acts_as(key.player.as_str())?;
        match service::delete(&self.state.db, &key, version.0).await {
            Ok(()) => Ok(SaveDeleted::NoContent),
            Err(error @ SaveError::VersionConflict { stored }) => {
                Ok(SaveDeleted::Conflict(conflict(&error, stored)))
            }
            Err(error) => Err(ApiError::from(error).into()),
        }
    }

    /// The player's save slots with their versions and sizes (without the data).
    #[oai(path = "/:player_id", method = "get", operation_id = "listSaves")]
    async fn list(
        &self,
        auth: ApiKeyAuth,
        player_id: Path<String>,
    ) -> poem::Result<Json<SlotList>> {
        let player = PlayerId::parse(&player_id).map_err(ApiError::from)?;
        auth.acts_as(player.as_str())?;
        let slots = service::list(&self.state.db, auth.0.game_id, &player)
            .await
            .map_err(ApiError::from)?;
        Ok(Json(slot_list(&player, slots)))
    }
}
