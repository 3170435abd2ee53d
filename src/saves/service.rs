//! Save rules and queries. Every write is one SQL statement on one row, so a save is never
//! half-written: creating is an INSERT that the primary key lets only one racer win, replacing
//! is an UPDATE that only matches while the row still has the version the writer read.
use crate::{
    http::{json_text::quoted, timestamp},
    store::Db,
};
use chrono::{DateTime, Utc};
use entity::saves;
use sea_orm::{
    sea_query::{Expr, OnConflict},
    ActiveValue::Set,
    ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect,
};
use uuid::Uuid;

/// Largest save accepted, measured as the compact JSON serialization of `data` (what is stored
/// and what a read sends back).
pub const MAX_DATA_BYTES: usize = 1024 * 1024;
pub const MAX_SLOT_CHARS: usize = 64;

#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    #[error(transparent)]
    InvalidPlayerId(#[from] crate::player_id::InvalidPlayerId),
    #[error("slot must be 1 to 64 characters: letters, digits and _ - .")]
    InvalidSlot,
    #[error("data is required")]
    MissingData,
    #[error("version must be 0 (to create) or the version last read")]
    InvalidVersion,
    #[error("Save data too large (limit 1 MiB)")]
    TooLarge { received: usize },
    #[error("Version conflict: the save was changed since you read it")]
    VersionConflict { stored: i64 },
    #[error("Save not found")]
    NotFound,
    #[error(transparent)]
    Storage(#[from] sea_orm::DbErr),
}

crate::error::answers!(SaveError as error {
    400: InvalidPlayerId(_) | InvalidSlot | MissingData | InvalidVersion,
    404: NotFound,
    passes: Storage,
    other {
        TooLarge { received } => ApiError::payload_too_large(error.to_string())
            .with("limit", MAX_DATA_BYTES)
            .with("received", received),
        VersionConflict { stored } => ApiError::conflict(error.to_string()).with("version", stored),
    }
});

pub use crate::player_id::PlayerId;

/// A slot name: 1 to 64 of ASCII letters, digits and `_ - .`, not only dots.
#[derive(Debug, Clone)]
pub struct SlotName(String);

impl SlotName {
    pub fn parse(raw: &str) -> Result<Self, SaveError> {
        if valid_name(raw, MAX_SLOT_CHARS, |c| {
            c.is_ascii_alphanumeric() || "_-.".contains(c)
        }) {
            Ok(Self(raw.to_string()))
        } else {
            Err(SaveError::InvalidSlot)
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Length and charset, and never `.` or `..` (clients collapse those path segments).
fn valid_name(raw: &str, max: usize, allowed: impl Fn(char) -> bool) -> bool {
    !raw.is_empty()
        && raw.len() <= max
        && raw.chars().all(allowed)
        && !raw.chars().all(|c| c == '.')
}

/// Where one save lives.
pub struct SaveKey {
    pub game_id: Uuid,
    pub player: PlayerId,
    pub slot: SlotName,
}

impl SaveKey {
    fn filter<Q: QueryFilter>(&self, query: Q) -> Q {
        query
            .filter(saves::Column::GameId.eq(self.game_id))
            .filter(saves::Column::PlayerId.eq(self.player.as_str()))
            .filter(saves::Column::Slot.eq(self.slot.as_str()))
    }
}

/// The data of a write, checked and serialized as it will be stored.
pub struct SaveData(String);

impl SaveData {
    pub fn parse(data: &serde_json::Value) -> Result<Self, SaveError> {
        if data.is_null() {
            return Err(SaveError::MissingData);
        }
        let text = data.to_string();
        if text.len() > MAX_DATA_BYTES {
            return Err(SaveError::TooLarge {
                received: text.len(),
            });
        }
        Ok(Self(text))
    }
}

/// Where a slot stands after a successful write.
pub struct Written {
    pub version: i64,
    pub updated_at: DateTime<Utc>,
}

/// Writes `data` over the version `expected` (0: the slot must not exist yet). Among writers
/// racing from the same version exactly one succeeds; the others get `VersionConflict` with
/// the version now stored (0 when the slot is absent).
#[tracing::instrument(skip_all, fields(game_id = %key.game_id))]
pub async fn write(
    db: &Db,
    key: &SaveKey,
    data: SaveData,
    expected: i64,
    now: DateTime<Utc>,
) -> Result<Written, SaveError> {
    if expected < 0 {
        return Err(SaveError::InvalidVersion);
    }
    let size = data.0.len() as i64;
    let won = if expected == 0 {
        let row = saves::ActiveModel {
            game_id: Set(key.game_id),
            player_id: Set(key.player.as_str().to_string()),
            slot: Set(key.slot.as_str().to_string()),
            version: Set(1),
            data: Set(data.0),
            size_bytes: Set(size),
            created_at: Set(now),
            updated_at: Set(now),
        };
        saves::Entity::insert(row)
            .on_conflict(
                OnConflict::columns([
                    saves::Column::GameId,
                    saves::Column::PlayerId,
                    saves::Column::Slot,
                ])
                .do_nothing()
                .to_owned(),
            )
            .exec_without_returning(db)
            .await?
            == 1
    } else if let Some(next) = expected.checked_add(1) {
        let update = saves::Entity::update_many()
            .col_expr(saves::Column::Version, Expr::value(next))
            .col_expr(saves::Column::Data, Expr::value(data.0))
            .col_expr(saves::Column::SizeBytes, Expr::value(size))
            .col_expr(saves::Column::UpdatedAt, Expr::value(now))
            .filter(saves::Column::Version.eq(expected));
        key.filter(update).exec(db).await?.rows_affected == 1
    } else {
        false
    };
    if won {
        return Ok(Written {
            version: expected + 1,
            updated_at: now,
        });
    }
    Err(SaveError::VersionConflict {
        stored: stored_version(db, key).await?.unwrap_or(0),
    })
}

async fn stored_version(db: &Db, key: &SaveKey) -> Result<Option<i64>, SaveError> {
    Ok(key
        .filter(saves::Entity::find())
        .select_only()
        .column(saves::Column::Version)
        .into_tuple::<i64>()
        .one(db)
        .await?)
}

pub async fn read(db: &Db, key: &SaveKey) -> Result<saves::Model, SaveError> {
    key.filter(saves::Entity::find())
        .one(db)
        .await?
        .ok_or(SaveError::NotFound)
}

/// The JSON body of a read, `{slot, version, data, updated_at}`, with the stored data spliced
/// in as it is (it was serialized by `SaveData::parse`).
pub fn read_body(save: &saves::Model) -> String {
    format!(
        r#"{{"slot":{},"version":{},"data":{},"updated_at":{}}}"#,
        quoted(&save.slot),
        save.version,
        save.data,
        quoted(&timestamp(save.updated_at))
    )
}

/// A slot as listings show it (without its data).
pub struct SlotSummary {
    pub slot: String,
    pub version: i64,
    pub size_bytes: i64,
    pub updated_at: DateTime<Utc>,
}

/// The player's slots, by name.
pub async fn list(
    db: &Db,
    game_id: Uuid,
    player: &PlayerId,
) -> Result<Vec<SlotSummary>, SaveError> {
    let rows = saves::Entity::find()
        .select_only()
        .columns([
            saves::Column::Slot,
            saves::Column::Version,
            saves::Column::SizeBytes,
            saves::Column::UpdatedAt,
        ])
        .filter(saves::Column::GameId.eq(game_id))
        .filter(saves::Column::PlayerId.eq(player.as_str()))
        .order_by_asc(saves::Column::Slot)
        .into_tuple::<(String, i64, i64, DateTime<Utc>)>()
        .all(db)
        .await?;
    Ok(rows
        .into_iter()
        .map(|(slot, version, size_bytes, updated_at)| SlotSummary {
            slot,
            version,
            size_bytes,
            updated_at,
        })
        .collect())
}

/// Deletes the slot; with `expected`, only while it still has that version.
#[tracing::instrument(skip_all, fields(game_id = %key.game_id))]
pub async fn delete(db: &Db, key: &SaveKey, expected: Option<i64>) -> Result<(), SaveError> {
    let mut delete = key.filter(saves::Entity::delete_many());
    if let Some(expected) = expected {
        delete = delete.filter(saves::Column::Version.eq(expected));
    }
    if delete.exec(db).await?.rows_affected > 0 {
        return Ok(());
    }
    match stored_version(db, key).await? {
        None => Err(SaveError::NotFound),
        Some(stored) => Err(SaveError::VersionConflict { stored }),
    }
}
