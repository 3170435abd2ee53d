//! Identities and the players they stand for.
use super::PlayerError;
use crate::{
    auth::{api_key::KeyContext, player_token::signature_matches, sha256_hex},
    state::AppState,
};
use chrono::{DateTime, Utc};
use entity::player_identities;
use sea_orm::{sea_query::OnConflict, ColumnTrait, EntityTrait, QueryFilter};
use uuid::Uuid;

/// A device id must be long enough that nobody guesses another device's.
pub const MIN_DEVICE_ID_CHARS: usize = 16;
pub const MAX_SUBJECT_CHARS: usize = 128;
/// How far a custom id's signed timestamp may be from now, either way (clock skew, replays).
pub const SIGNATURE_WINDOW_SECS: i64 = 600;

/// Who a client says it is, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subject {
    /// A random id the game made and keeps on the device (its credential).
    Device(String),
    /// The studio's own id for the player, vouched for by its backend's signature.
    Custom(String),
}

impl Subject {
    fn kind(&self) -> &'static str {
        match self {
            Self::Device(_) => "device",
            Self::Custom(_) => "custom",
        }
    }

    /// What the cold store keeps: the id hashed with its kind (a device id is a credential).
    fn hash(&self) -> String {
        match self {
            Self::Device(id) | Self::Custom(id) => sha256_hex(&format!("{}:{id}", self.kind())),
        }
    }
}

/// The identity of a sign-in or link request, with a custom id's signature checked against
/// the game's secret.
pub fn subject(
    context: &KeyContext,
    device_id: Option<String>,
    custom_id: Option<String>,
    timestamp: Option<i64>,
    signature: Option<String>,
    now: DateTime<Utc>,
) -> Result<Subject, PlayerError> {
    let printable = |id: &str| id.chars().all(|c| c.is_ascii_graphic());
    match (device_id, custom_id) {
        (Some(device), None) => {
            if !(MIN_DEVICE_ID_CHARS..=MAX_SUBJECT_CHARS).contains(&device.len())
                || !printable(&device)
            {
                return Err(PlayerError::Invalid(
                    "device_id must be 16 to 128 printable ASCII characters (a random id the game keeps)",
                ));
            }
            Ok(Subject::Device(device))
        }
        (None, Some(custom)) => {
            if !(1..=MAX_SUBJECT_CHARS).contains(&custom.len()) || !printable(&custom) {
                return Err(PlayerError::Invalid(
                    "custom_id must be 1 to 128 printable ASCII characters",
                ));
            }
            let (Some(timestamp), Some(signature)) = (timestamp, signature) else {
                return Err(PlayerError::Invalid(
                    "a custom_id needs timestamp (Unix seconds) and signature (hex HMAC-SHA256 of \"<custom_id>:<timestamp>\")",
                ));
            };
            let secret = context
                .player_secret
                .as_deref()
                .ok_or(PlayerError::NoSecret)?;
            if !signature_matches(secret, &format!("{custom}:{timestamp}"), &signature) {
                return Err(PlayerError::BadSignature);
            }
            if (now.timestamp() - timestamp).abs() > SIGNATURE_WINDOW_SECS {
                return Err(PlayerError::StaleSignature);
            }
            Ok(Subject::Custom(custom))
        }
        _ => Err(PlayerError::Invalid(
            "give exactly one of device_id and custom_id",
        )),
    }
}

/// The player `subject` stands for in `game_id`, made (with a new id) when it is new; answers
/// whether it was made. Of two racing first sign-ins, one inserts and both read its player.
pub async fn sign_in(
    state: &AppState,
    game_id: Uuid,
    subject: &Subject,
) -> Result<(String, bool), PlayerError> {
    if let Some(player_id) = player_of(state, game_id, subject).await? {
        return Ok((player_id, false));
    }
    let created = insert(state, game_id, subject, &Uuid::new_v4().to_string()).await?;
    let player_id = player_of(state, game_id, subject)
        .await?
        .ok_or(PlayerError::Invalid("the identity could not be stored"))?;
    Ok((player_id, created))
}

/// Links `subject` to `player_id`: true when it is new, false when it was already that
/// player's; a conflict when it belongs to another player.
pub async fn link(
    state: &AppState,
    game_id: Uuid,
    player_id: &str,
    subject: &Subject,
) -> Result<bool, PlayerError> {
    let linked = insert(state, game_id, subject, player_id).await?;
    match player_of(state, game_id, subject).await? {
        Some(owner) if owner == player_id => Ok(linked),
        _ => Err(PlayerError::TakenByOther),
    }
}

async fn player_of(
    state: &AppState,
    game_id: Uuid,
    subject: &Subject,
) -> Result<Option<String>, PlayerError> {
    Ok(player_identities::Entity::find()
        .filter(player_identities::Column::GameId.eq(game_id))
        .filter(player_identities::Column::Kind.eq(subject.kind()))
        .filter(player_identities::Column::SubjectHash.eq(subject.hash()))
        .one(&state.db)
        .await?
        .map(|row| row.player_id))
}

/// Stores the identity unless it is stored already; true when this call stored it.
async fn insert(
    state: &AppState,
    game_id: Uuid,
    subject: &Subject,
    player_id: &str,
) -> Result<bool, PlayerError> {
    let row = player_identities::Model {
        id: Uuid::now_v7(),
        game_id,
        kind: subject.kind().into(),
        subject_hash: subject.hash(),
        player_id: player_id.into(),
        created_at: state.now(),
    };
    let inserted = player_identities::Entity::insert(player_identities::ActiveModel::from(row))
        .on_conflict(
            OnConflict::columns([
                player_identities::Column::GameId,
                player_identities::Column::Kind,
                player_identities::Column::SubjectHash,
            ])
            .do_nothing()
            .to_owned(),
        )
        .exec_without_returning(&state.db)
        .await?;
    Ok(inserted == 1)
}
