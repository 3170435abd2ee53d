//! `/v1/games/{game_id}/players/{player_id}/data` (export, erase) and
//! `/v1/games/{game_id}/audit` (the record of both). Owners only.
use super::{
    export::{self, StreamedJson},
    service::{self, Action, PlayerDataCounts},
    PlayerDataError,
};
use crate::{
    auth::BearerAuth,
    games::{access::Role, require_role},
    http::{timestamp, ApiTags},
    player_id::PlayerId,
    state::AppState,
};
use poem_openapi::{
    param::{Path, Query},
    payload::Json,
    ApiResponse, Object, OpenApi,
};
use uuid::Uuid;

pub struct PlayerDataApi {
    pub state: AppState,
}

#[derive(ApiResponse)]
pub enum Exported {
    #[oai(status = 200)]
    Ok(StreamedJson),
}

#[derive(Object)]
pub struct Erased {
    pub player_id: String,
    /// What was deleted, per kind.
    pub deleted: PlayerDataCounts,
}

#[derive(Object)]
pub struct AuditEntry {
    pub audit_id: String,
    /// `export` or `erase`.
    pub action: String,
    pub player_id: String,
    /// Who did it; null once that account is gone.
    #[oai(nullable)]
    pub user_id: Option<String>,
    /// The e-mail address the account had then.
    pub user_email: String,
    /// What was found (export) or deleted (erase), per kind.
    pub counts: PlayerDataCounts,
    pub at: String,
}

#[derive(Object)]
pub struct AuditPage {
    /// Newest first.
    pub entries: Vec<AuditEntry>,
    /// The `offset` of the next page; null on the last one.
    #[oai(nullable)]
    pub next_offset: Option<u64>,
}

/// What each operation here answers beyond the universal statuses (`http::error_responses`):
/// 403: not an owner of the game.
pub const STATUSES: crate::http::Statuses = crate::http::statuses! {
    exportPlayerData: [403],
    erasePlayerData: [403],
    listPlayerDataAudit: [403],
};

#[OpenApi(prefix_path = "/v1/games", tag = "ApiTags::PlayerData")]
impl PlayerDataApi {
    /// Download everything stored about one player of the game as one JSON document (owner):
    /// events, leaderboard entries of every period, bans, tournaments joined, the player's
    /// place in leaderboard results deliveries, achievement unlocks, cloud saves with their
    /// data, the presence entry and sign-in identities. Answers a player's access request
    /// (GDPR art. 15); recorded in the game's audit list.
    #[oai(
        path = "/:game_id/players/:player_id/data",
        method = "get",
        operation_id = "exportPlayerData"
    )]
    async fn export(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        player_id: Path<String>,
    ) -> poem::Result<Exported> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Owner).await?;
        let player = PlayerId::parse(&player_id).map_err(PlayerDataError::from)?;
        let records = service::records(&self.state, game_id.0, &player).await?;
        let now = self.state.now();
        service::record(
            &self.state.db,
            game_id.0,
            auth.0,
            Action::Export,
            &player,
            &records.counts,
            now,
        )
        .await?;
        let file_name = format!("player-{}.json", player.as_str());
        let body = export::document(
            self.state.db.clone(),
            game_id.0,
            player,
            timestamp(now),
            records,
        );
        Ok(Exported::Ok(StreamedJson {
            body: poem::Body::from_bytes_stream(body),
            file_name,
        }))
    }

    /// Erase everything stored about one player of the game (owner): events, leaderboard
    /// entries of every period (and the live rankings), bans, tournament places, the player's
    /// entry in stored results deliveries (the others are ranked again), achievement unlocks,
    /// cloud saves, the presence entry and sign-in identities. Other players' data is
    /// untouched. Answers
    /// a player's erasure request (GDPR art. 17); recorded in the game's audit list.
    #[oai(
        path = "/:game_id/players/:player_id/data",
        method = "delete",
        operation_id = "erasePlayerData"
    )]
    async fn erase(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        player_id: Path<String>,
    ) -> poem::Result<Json<Erased>> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Owner).await?;
        let player = PlayerId::parse(&player_id).map_err(PlayerDataError::from)?;
        let deleted = service::erase(&self.state, game_id.0, &player).await?;
        service::record(
            &self.state.db,
            game_id.0,
            auth.0,
            Action::Erase,
            &player,
            &deleted,
            self.state.now(),
        )
        .await?;
        Ok(Json(Erased {
            player_id: player.into_string(),
            deleted,
        }))
    }

    /// The game's record of player data exports and erasures, newest first (owner): who, when,
    /// which player and how much was found or deleted. `limit` 1 to 100 (default 50).
    #[oai(
        path = "/:game_id/audit",
        method = "get",
        operation_id = "listPlayerDataAudit"
    )]
    async fn audit(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        limit: Query<Option<u64>>,
        offset: Query<Option<u64>>,
    ) -> poem::Result<Json<AuditPage>> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Owner).await?;
        let limit = limit.0.unwrap_or(50);
        if !(1..=100).contains(&limit) {
            return Err(PlayerDataError::InvalidLimit.into());
        }
        let offset = offset.0.unwrap_or(0);
        let (rows, more) = service::audit(&self.state.db, game_id.0, offset, limit).await?;
        let entries: Vec<AuditEntry> = rows
            .into_iter()
            .map(|row| AuditEntry {
                counts: service::stored_counts(&row),
                audit_id: row.id.to_string(),
                action: row.action,
                player_id: row.player_id,
                user_id: row.user_id.map(|id| id.to_string()),
                user_email: row.user_email,
                at: timestamp(row.at),
            })
            .collect();
        Ok(Json(AuditPage {
            next_offset: more.then_some(offset + entries.len() as u64),
            entries,
        }))
    }
}
