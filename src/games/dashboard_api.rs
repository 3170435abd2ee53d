//! `/v1/games`: create, list, read, change and delete games, and manage their members.
use super::{
    access::Role,
    require_role,
    service::{self, GameChanges},
    GameError,
};
use crate::http::schema::Timestamp;
use crate::words::{self, AccountStatus, EventValidation, PlayerAuthMode, Tier, Word};
use crate::{
    accounts::service::{self as accounts, Email},
    auth::BearerAuth,
    http::ApiTags,
    http::NoContent,
    state::AppState,
};
use entity::{game_members, games, users};
use poem_openapi::{
    param::Path, payload::Json, types::MaybeUndefined, ApiResponse, Object, OpenApi,
};
use uuid::Uuid;

pub struct GamesApi {
    pub state: AppState,
}

#[derive(Object)]
#[oai(deny_unknown_fields)]
pub struct CreateGame {
    /// 1 to 100 characters.
    pub name: String,
    /// `free` (default), `indie` or `studio`; only the instance admin may choose a paid tier.
    #[oai(nullable)]
    pub tier: Option<Word<Tier>>,
    /// ISO 4217 code of the game's purchase amounts, e.g. `EUR` (default `USD`).
    #[oai(nullable)]
    pub currency: Option<String>,
}

#[derive(Object)]
#[oai(deny_unknown_fields)]
pub struct UpdateGame {
    #[oai(nullable)]
    pub name: Option<String>,
    /// Admin only.
    #[oai(nullable)]
    pub tier: Option<Word<Tier>>,
    /// `off`, `warn` or `enforce`: what happens to events that break their event schema.
    #[oai(nullable)]
    pub event_validation: Option<Word<EventValidation>>,
    /// Requests per minute for each of this game's API keys: the owner may set it up to
    /// `max_rate_limit_per_minute`, the admin to anything; null (back to the instance default)
    /// is the admin's.
    #[oai(nullable)]
    pub rate_limit_per_minute: MaybeUndefined<u32>,
    /// Admin only: the most the owner may set `rate_limit_per_minute` and
    /// `player_rate_limit_per_minute` to (null: the instance default).
    #[oai(nullable)]
    pub max_rate_limit_per_minute: MaybeUndefined<u32>,
    /// `off` (default: the key alone acts as any player), `optional` (player tokens are issued;
    /// a request with one acts only as its player) or `required` (player-scoped routes also
    /// refuse requests without one).
    #[oai(nullable)]
    pub player_auth: Option<Word<PlayerAuthMode>>,
    /// Whether a game key may read what is not about one player (funnel reports, the presence
    /// list); default true.
    #[oai(nullable)]
    pub key_reads: Option<bool>,
    /// Requests per minute for each player token, beside the key's limit (null: 120). Owner up
    /// to `max_rate_limit_per_minute`.
    #[oai(nullable)]
    pub player_rate_limit_per_minute: MaybeUndefined<u32>,
    /// Web origins whose browser builds may call the game-side routes (CORS), e.g.
    /// `["https://mygame.example.com"]`, or `["*"]` for any; at most 20. Replaces the list;
    /// `[]` allows none (the default).
    #[oai(nullable)]
    pub allowed_origins: Option<Vec<String>>,
    /// Days to keep events: the worker deletes older ones (hourly). 1 to 3650; null keeps
    /// them for good (the default).
    #[oai(nullable)]
    pub retention_days: MaybeUndefined<u32>,
    /// Admin only: the game's monthly event quota instead of its tier's, for big games: a
    /// whole number of events or `"unlimited"`; null goes back to the tier's.
    #[oai(nullable)]
    pub monthly_event_quota: MaybeUndefined<serde_json::Value>,
    /// Whether a score may create a leaderboard the dashboard has not defined (default
    /// true); false refuses such scores with 404.
    #[oai(nullable)]
    pub leaderboards_from_scores: Option<bool>,
    /// How many leaderboards scores may create, 0 to 10,000 (default 100); boards defined
    /// or changed in the dashboard do not count.
    #[oai(nullable)]
    pub score_board_limit: Option<u32>,
    /// ISO 4217 code of the game's purchase amounts (`properties.amount` of `purchase`
    /// events), e.g. `EUR`: three capital letters. The dashboard formats revenue with it;
    /// amounts are never converted.
    #[oai(nullable)]
    pub currency: Option<String>,
}

#[derive(Object)]
pub struct Game {
    pub game_id: String,
    pub name: String,
    pub tier: Tier,
    pub event_validation: EventValidation,
    /// Monthly event quota: the tier's, or the one the instance admin set
    /// (`event_quota_set`; 9007199254740991 is "unlimited").
    pub monthly_event_quota: u64,
    /// Whether the instance admin set `monthly_event_quota` instead of the tier's.
    pub event_quota_set: bool,
    /// Per-key rate limit override; absent when the instance default applies.
    #[oai(nullable)]
    pub rate_limit_per_minute: Option<u32>,
    /// Web origins whose browser builds may call the game-side routes (`*`: any).
    pub allowed_origins: Vec<String>,
    /// The cap on the rate limits the owner may set; absent when the instance default applies.
    #[oai(nullable)]
    pub max_rate_limit_per_minute: Option<u32>,
    /// `off`, `optional` or `required`.
    pub player_auth: PlayerAuthMode,
    /// Whether a game key may read funnel reports and the presence list.
    pub key_reads: bool,
    /// Per-player-token rate limit; absent when the default (120) applies.
    #[oai(nullable)]
    pub player_rate_limit_per_minute: Option<u32>,
    /// Whether a secret for signed custom player ids has been made (`POST .../player-secret`).
    pub player_secret_set: bool,
    /// Days events are kept before the worker deletes them; null: kept for good.
    #[oai(nullable)]
    pub retention_days: Option<u32>,
    /// Whether a score may create a leaderboard the dashboard has not defined.
    pub leaderboards_from_scores: bool,
    /// How many leaderboards scores may create.
    pub score_board_limit: u32,
    /// ISO 4217 code of the game's purchase amounts (`USD` unless the owner set another).
    pub currency: String,
    /// The caller's role on this game.
    pub role: words::Role,
    pub created_at: Timestamp,
}

/// The secret custom player ids are signed with: `signature` = hex HMAC-SHA256 of
/// `"<custom_id>:<timestamp>"` under it (see `POST /v1/players/auth`).
#[derive(Object)]
pub struct PlayerSecret {
    pub secret: String,
}

#[derive(Object)]
pub struct GameList {
    pub games: Vec<Game>,
}

#[derive(Object)]
#[oai(deny_unknown_fields)]
pub struct InviteMember {
    /// An unknown address gets a pending account and an invitation e-mail.
    pub email: String,
    /// `owner`, `editor` or `viewer`.
    pub role: Word<words::Role>,
}

#[derive(Object)]
#[oai(deny_unknown_fields)]
pub struct ChangeMember {
    pub role: Word<words::Role>,
}

#[derive(Object)]
pub struct Member {
    pub user_id: String,
    pub email: String,
    pub role: words::Role,
    /// `active` or `pending` (invited, no password yet).
    pub status: AccountStatus,
    pub added_at: Timestamp,
}

#[derive(Object)]
pub struct MemberList {
    pub members: Vec<Member>,
}

#[derive(ApiResponse)]
pub enum GameCreated {
    #[oai(status = 201)]
    Created(Json<Game>),
}

/// A member just added: the member, and for an address that had no account, what became of
/// its invitation.
#[derive(Object)]
pub struct AddedMember {
    #[oai(flatten)]
    pub member: Member,
    /// Only for an address that had no account (a new invitation): `sent`, `skipped` (no SMTP
    /// server configured: no mail went out) or `failed` (the SMTP server did not take it).
    #[oai(skip_serializing_if_is_none)]
    pub invitation_mail: Option<words::DeliveryStatus>,
    /// Only when the invitation e-mail did not go out (`skipped` or `failed`): the link that
    /// lets the invitee set a password (valid 7 days), for the inviting owner to pass on. It
    /// is answered this once and never listed.
    #[oai(skip_serializing_if_is_none)]
    pub invitation_link: Option<String>,
}

#[derive(ApiResponse)]
pub enum MemberAdded {
    #[oai(status = 201)]
    Created(Json<AddedMember>),
}

/// A stored game as the dashboard reads it (its words parsed from the row).
pub fn game_view(game: games::Model, role: Role) -> Result<Game, GameError> {
    let tier = Tier::stored(&game.tier)?;
    Ok(Game {
        game_id: game.id.to_string(),
        monthly_event_quota: service::monthly_quota(tier, game.event_quota),
        event_quota_set: game.event_quota.is_some(),
        allowed_origins: game.origins(),
        name: game.name,
        tier,
        event_validation: EventValidation::stored(&game.event_validation)?,
        rate_limit_per_minute: game.rate_limit_per_minute.map(|l| l.max(0) as u32),
        max_rate_limit_per_minute: game.max_rate_limit_per_minute.map(|l| l.max(0) as u32),
        player_auth: PlayerAuthMode::stored(&game.player_auth)?,
        key_reads: game.key_reads,
        player_rate_limit_per_minute: game.player_rate_limit_per_minute.map(|l| l.max(0) as u32),
        player_secret_set: game.player_secret.is_some(),
        retention_days: game.retention_days.map(|days| days.max(0) as u32),
        leaderboards_from_scores: game.leaderboards_from_scores,
        score_board_limit: game.score_board_limit.max(0) as u32,
        currency: game.currency,
        role,
        created_at: Timestamp::from(game.created_at),
    })
}

fn member_view(member: game_members::Model, user: users::Model) -> Result<Member, GameError> {
    Ok(Member {
        user_id: user.id.to_string(),
        email: user.email,
        role: Role::stored(&member.role)?,
        status: AccountStatus::stored(&user.status)?,
        added_at: Timestamp::from(member.created_at),
    })
}

/// What each operation here answers beyond the universal statuses (`http::error_responses`):
/// 403: not a member, a role below the one needed (unknown games alike), an admin-only field or
/// a cap; 404: an unknown member; 409: a duplicate member or the last owner.
pub const STATUSES: crate::http::Statuses = crate::http::statuses! {
    createGame: [403],
    listGames: [],
    getGame: [403],
    updateGame: [403],
    rotatePlayerSecret: [403],
    deleteGame: [403],
    listMembers: [403],
    addMember: [403, 409],
    resendInvitation: [403, 404, 409],
    updateMember: [403, 404, 409],
    removeMember: [403, 404, 409],
};

#[OpenApi(prefix_path = "/v1/games", tag = "ApiTags::Games")]
impl GamesApi {
    /// Create a game; you become its owner.
    #[oai(path = "/", method = "post", operation_id = "createGame")]
    async fn create(&self, auth: BearerAuth, body: Json<CreateGame>) -> poem::Result<GameCreated> {
        let user = accounts::current_user(&self.state.db, auth.0).await?;
        let name = service::parse_name(&body.name)?;
        let tier = body.tier.as_ref().map_or(Ok(Tier::Free), Word::parse)?;
        if tier != Tier::Free && !user.is_admin {
            return Err(GameError::PaidTierAdminOnly.into());
        }
        let currency = body
            .currency
            .as_deref()
            .map(service::Currency::parse)
            .transpose()?
            .unwrap_or_default();
        let owned_cap = (!user.is_admin).then_some(self.state.settings.max_games_per_user);
        let game = service::create(&self.state, user.id, name, tier, currency, owned_cap).await?;
        Ok(GameCreated::Created(Json(game_view(game, Role::Owner)?)))
    }

    /// The games you are a member of (every game for the instance admin).
    #[oai(path = "/", method = "get", operation_id = "listGames")]
    async fn list(&self, auth: BearerAuth) -> poem::Result<Json<GameList>> {
        let user = accounts::current_user(&self.state.db, auth.0).await?;
        let games = service::list_for(&self.state, &user).await?;
        Ok(Json(GameList {
            games: games
                .into_iter()
                .map(|(g, r)| game_view(g, r))
                .collect::<Result<_, _>>()?,
        }))
    }

    /// One game.
    #[oai(path = "/:game_id", method = "get", operation_id = "getGame")]
    async fn get(&self, auth: BearerAuth, game_id: Path<Uuid>) -> poem::Result<Json<Game>> {
        let access = require_role(&self.state.db, auth.0, game_id.0, Role::Viewer).await?;
        Ok(Json(game_view(access.game, access.role)?))
    }

    /// Rename a game, change its validation mode, currency, allowed web origins, player identity and rate
    /// limits up to the admin's cap (owner); tier, the cap, and resetting a limit (admin).
    #[oai(path = "/:game_id", method = "patch", operation_id = "updateGame")]
    async fn update(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        body: Json<UpdateGame>,
    ) -> poem::Result<Json<Game>> {
        let access = require_role(&self.state.db, auth.0, game_id.0, Role::Owner).await?;
        let body = body.0;
        let admin_only = body.tier.is_some()
            || !body.monthly_event_quota.is_undefined()
            || !body.max_rate_limit_per_minute.is_undefined()
            || body.rate_limit_per_minute.is_null()
            || body.player_rate_limit_per_minute.is_null();
        if admin_only && !access.is_admin {
            return Err(GameError::LimitsAdminOnly.into());
        }
        let cap = access
            .game
            .max_rate_limit_per_minute
            .map(|cap| cap.max(0) as u64)
            .unwrap_or(self.state.settings.rate_limit_per_minute);
        let limit = |field: &'static str, given: MaybeUndefined<u32>| -> Result<_, GameError> {
            Ok(match given {
                MaybeUndefined::Undefined => None,
                MaybeUndefined::Null => Some(None),
                MaybeUndefined::Value(value) => {
                    if !access.is_admin && u64::from(value) > cap {
                        return Err(GameError::AboveCap(field, cap));
                    }
                    Some(Some(service::parse_rate_limit(field, value)?))
                }
            })
        };
        let changes = GameChanges {
            name: body.name.as_deref().map(service::parse_name).transpose()?,
            tier: body.tier.as_ref().map(Word::parse).transpose()?,
            event_validation: body
                .event_validation
                .as_ref()
                .map(Word::parse)
                .transpose()?,
            rate_limit_per_minute: limit("rate_limit_per_minute", body.rate_limit_per_minute)?,
            player_rate_limit_per_minute: limit(
                "player_rate_limit_per_minute",
                body.player_rate_limit_per_minute,
            )?,
            max_rate_limit_per_minute: match body.max_rate_limit_per_minute {
                MaybeUndefined::Undefined => None,
                MaybeUndefined::Null => Some(None),
                MaybeUndefined::Value(cap) => Some(Some(service::parse_rate_limit(
                    "max_rate_limit_per_minute",
                    cap,
                )?)),
            },
            allowed_origins: body
                .allowed_origins
                .as_deref()
                .map(service::parse_origins)
                .transpose()?,
            player_auth: body.player_auth.as_ref().map(Word::parse).transpose()?,
            key_reads: body.key_reads,
            event_quota: match &body.monthly_event_quota {
                MaybeUndefined::Undefined => None,
                MaybeUndefined::Null => Some(None),
                MaybeUndefined::Value(quota) => Some(Some(service::parse_event_quota(quota)?)),
            },
            currency: body
                .currency
                .as_deref()
                .map(service::Currency::parse)
                .transpose()?,
            retention_days: match body.retention_days {
                MaybeUndefined::Undefined => None,
                MaybeUndefined::Null => Some(None),
                MaybeUndefined::Value(days) => Some(Some(service::parse_retention_days(days)?)),
            },
            leaderboards_from_scores: body.leaderboards_from_scores,
            score_board_limit: body
                .score_board_limit
                .map(service::parse_score_board_limit)
                .transpose()?,
        };
        let game = service::update(&self.state, access.game, changes).await?;
        Ok(Json(game_view(game, access.role)?))
    }

    /// Make a new secret for the studio's backend to sign custom player ids with (owner),
    /// replacing the old one. Shown once: keep it on the studio's servers, never in the game.
    #[oai(
        path = "/:game_id/player-secret",
        method = "post",
        operation_id = "rotatePlayerSecret"
    )]
    async fn rotate_player_secret(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
    ) -> poem::Result<Json<PlayerSecret>> {
        let access = require_role(&self.state.db, auth.0, game_id.0, Role::Owner).await?;
        let secret = service::rotate_player_secret(&self.state, access.game).await?;
        Ok(Json(PlayerSecret { secret }))
    }

    /// Delete a game and everything stored for it (owner).
    #[oai(path = "/:game_id", method = "delete", operation_id = "deleteGame")]
    async fn delete(&self, auth: BearerAuth, game_id: Path<Uuid>) -> poem::Result<NoContent> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Owner).await?;
        service::delete(&self.state, game_id.0).await?;
        Ok(NoContent::Done)
    }

    /// The game's members and their roles.
    #[oai(
        path = "/:game_id/members",
        method = "get",
        operation_id = "listMembers"
    )]
    async fn members(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
    ) -> poem::Result<Json<MemberList>> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Viewer).await?;
        let members = service::members(&self.state, game_id.0)
            .await?
            .into_iter()
            .map(|(member, user)| member_view(member, user))
            .collect::<Result<_, _>>()?;
        Ok(Json(MemberList { members }))
    }

    /// Add a member by e-mail (owner). An address without an account gets a pending account
    /// and an e-mail with a token to set its password (valid 7 days); the answer says whether
    /// the e-mail went out (`invitation_mail`) and, when it did not (no SMTP server), carries
    /// the link for you to pass on (`invitation_link`).
    #[oai(
        path = "/:game_id/members",
        method = "post",
        operation_id = "addMember"
    )]
    async fn add_member(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        body: Json<InviteMember>,
    ) -> poem::Result<MemberAdded> {
        let access = require_role(&self.state.db, auth.0, game_id.0, Role::Owner).await?;
        let email = Email::parse(&body.email)?;
        let role = body.role.parse().map_err(GameError::from)?;
        let state = &self.state;
        let (user, invitation) = match accounts::find_by_email(&state.db, &email).await? {
            Some(user) => (user, None),
            None => {
                let inviter = accounts::current_user(&state.db, auth.0).await?;
                let invitation =
                    accounts::invite(state, &email, &access.game.name, &inviter.email).await?;
                let sent = (invitation.mail, invitation.unsent_link);
                (invitation.user, Some(sent))
            }
        };
        let member = service::add_member(state, game_id.0, user.id, role).await?;
        let (invitation_mail, invitation_link) = match invitation {
            Some((mail, link)) => (Some(mail), link),
            None => (None, None),
        };
        Ok(MemberAdded::Created(Json(AddedMember {
            member: member_view(member, user)?,
            invitation_mail,
            invitation_link,
        })))
    }

    /// Send an invited member who has not set a password yet a new invitation (owner): the
    /// earlier link stops working and the new one is valid 7 days. As when inviting, the answer
    /// says whether the e-mail went out and, when it did not, carries the link for you to pass
    /// on. 409 for a member who is already active; 429 when an e-mail went to the address less
    /// than 5 minutes ago.
    #[oai(
        path = "/:game_id/members/:user_id/invitation",
        method = "post",
        operation_id = "resendInvitation"
    )]
    async fn resend_invitation(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        user_id: Path<Uuid>,
    ) -> poem::Result<Json<AddedMember>> {
        let access = require_role(&self.state.db, auth.0, game_id.0, Role::Owner).await?;
        let (member, user) = service::find_member(&self.state, game_id.0, user_id.0).await?;
        let inviter = accounts::current_user(&self.state.db, auth.0).await?;
        let invitation =
            accounts::resend_invitation(&self.state, user, &access.game.name, &inviter.email)
                .await?;
        Ok(Json(AddedMember {
            member: member_view(member, invitation.user)?,
            invitation_mail: Some(invitation.mail),
            invitation_link: invitation.unsent_link,
        }))
    }

    /// Change a member's role (owner). A game always keeps at least one owner.
    #[oai(
        path = "/:game_id/members/:user_id",
        method = "patch",
        operation_id = "updateMember"
    )]
    async fn update_member(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        user_id: Path<Uuid>,
        body: Json<ChangeMember>,
    ) -> poem::Result<Json<Member>> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Owner).await?;
        let role = body.role.parse().map_err(GameError::from)?;
        let (member, user) =
            service::change_member_role(&self.state, game_id.0, user_id.0, role).await?;
        Ok(Json(member_view(member, user)?))
    }

    /// Remove a member (owner). A game always keeps at least one owner.
    #[oai(
        path = "/:game_id/members/:user_id",
        method = "delete",
        operation_id = "removeMember"
    )]
    async fn remove_member(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        user_id: Path<Uuid>,
    ) -> poem::Result<NoContent> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Owner).await?;
        service::remove_member(&self.state, game_id.0, user_id.0).await?;
        Ok(NoContent::Done)
    }
}
