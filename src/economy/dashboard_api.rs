//! `GET /v1/games/{game_id}/economy`: per currency, sources and sinks by item type and the net
//! flow per day (dashboard, members).
use super::service::{self, Currency};
use crate::{
    auth::BearerAuth,
    error::ApiError,
    games::{access::Role, require_role},
    http::ApiTags,
    query,
    state::AppState,
    words::Environment,
};
use poem_openapi::{
    param::{Path, Query},
    payload::Json,
    Object, OpenApi,
};
use uuid::Uuid;

pub struct EconomyApi {
    pub state: AppState,
}

/// What one flow of a currency moved for one item type over the range.
#[derive(Object)]
pub struct EconomyItem {
    /// The events' `item_type`; null for events without one.
    #[oai(nullable)]
    pub item_type: Option<String>,
    /// Sum of their `amount`.
    pub amount: f64,
    /// `resource` events counted.
    pub events: u64,
}

/// One UTC day of a currency.
#[derive(Object)]
pub struct EconomyDay {
    /// `YYYY-MM-DD`.
    pub day: String,
    /// Amount gained (`flow` `source`).
    pub source: f64,
    /// Amount spent (`flow` `sink`).
    pub sink: f64,
    /// `source - sink`.
    pub net: f64,
}

#[derive(Object)]
pub struct EconomyCurrency {
    pub currency: String,
    /// Amount gained over the range.
    pub source: f64,
    /// Amount spent over the range.
    pub sink: f64,
    /// `source - sink`.
    pub net: f64,
    /// Gains by item type, largest first.
    pub sources: Vec<EconomyItem>,
    /// Spending by item type, largest first.
    pub sinks: Vec<EconomyItem>,
    /// Every day of the range, oldest first (zeros included).
    pub days: Vec<EconomyDay>,
}

/// The economy over a range of UTC days.
#[derive(Object)]
pub struct EconomyReport {
    pub from: String,
    pub to: String,
    #[oai(nullable)]
    pub environment: Option<Environment>,
    /// Every currency with `resource` events in the range, by name.
    pub currencies: Vec<EconomyCurrency>,
}

fn items(flows: Vec<service::ItemFlow>) -> Vec<EconomyItem> {
    flows
        .into_iter()
        .map(|flow| EconomyItem {
            item_type: flow.item_type,
            amount: flow.amount,
            events: flow.events,
        })
        .collect()
}

impl From<Currency> for EconomyCurrency {
    fn from(currency: Currency) -> Self {
        let (source, sink) = (
            Currency::total(&currency.sources),
            Currency::total(&currency.sinks),
        );
        Self {
            currency: currency.currency,
            source,
            sink,
            net: source - sink,
            sources: items(currency.sources),
            sinks: items(currency.sinks),
            days: currency
                .days
                .into_iter()
                .map(|day| EconomyDay {
                    day: day.day.to_string(),
                    source: day.source,
                    sink: day.sink,
                    net: day.source - day.sink,
                })
                .collect(),
        }
    }
}

/// What each operation here answers beyond the universal statuses (`http::error_responses`):
/// 403: not a member of the game.
pub const STATUSES: crate::http::Statuses = crate::http::statuses! {
    getGameEconomy: [403],
};

#[OpenApi(prefix_path = "/v1/games", tag = "ApiTags::Analytics")]
impl EconomyApi {
    /// The game's economy (any member): per currency of `resource` events, the amounts gained
    /// (`flow` `source`) and spent (`sink`) by `item_type`, and the net flow per day.
    /// `from`/`to` are UTC days `YYYY-MM-DD`, inclusive (default: the 30 days up to today; at
    /// most 366 days). Only events of the documented shape count (`docs/events.md`).
    #[oai(
        path = "/:game_id/economy",
        method = "get",
        operation_id = "getGameEconomy"
    )]
    async fn economy(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        /// First day, `YYYY-MM-DD` (UTC).
        from: Query<Option<String>>,
        /// Last day, `YYYY-MM-DD` (UTC).
        to: Query<Option<String>>,
        /// Only events sent with `development` or `production` keys (default: both).
        environment: Query<Option<String>>,
    ) -> poem::Result<Json<EconomyReport>> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Viewer).await?;
        let (from, to, environment) =
            query::report_days(&from.0, &to.0, &environment.0, self.state.now())?;
        let currencies = service::currencies(
            &self.state.db,
            game_id.0,
            environment.map(Environment::as_str),
            from,
            to,
        )
        .await
        .map_err(ApiError::from)?;
        Ok(Json(EconomyReport {
            from: from.to_string(),
            to: to.to_string(),
            environment,
            currencies: currencies.into_iter().map(EconomyCurrency::from).collect(),
        }))
    }
}
