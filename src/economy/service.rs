//! The economy report: the sums of `analytics_resource_days` over a range of days, per
//! currency, flow, item type and day, so a read costs the days times the currencies and item
//! types shown.
use crate::events::standard::Flow;
use chrono::{Duration, NaiveDate};
use sea_orm::{ConnectionTrait, DbErr};
use std::collections::BTreeMap;
use uuid::Uuid;

/// What one flow of a currency moved for one item type.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ItemFlow {
    /// None for `resource` events without `item_type`.
    pub item_type: Option<String>,
    pub amount: f64,
    pub events: u64,
}

/// One day of a currency.
#[derive(Debug, Clone, PartialEq)]
pub struct Day {
    pub day: NaiveDate,
    pub source: f64,
    pub sink: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Currency {
    pub currency: String,
    /// By item type, largest amount first.
    pub sources: Vec<ItemFlow>,
    pub sinks: Vec<ItemFlow>,
    /// Every day of the range, oldest first, zeros included.
    pub days: Vec<Day>,
}

impl Currency {
    /// The flows' amounts added up (0 for none: `Sum` of no floats is -0, which reads "-0").
    pub fn total(flows: &[ItemFlow]) -> f64 {
        flows.iter().fold(0.0, |total, flow| total + flow.amount)
    }
}

/// Every currency with `resource` events in the days `from..=to` of the game (one environment,
/// or both), by name.
pub async fn currencies(
    db: &impl ConnectionTrait,
    game_id: Uuid,
    environment: Option<&str>,
    from: NaiveDate,
    to: NaiveDate,
) -> Result<Vec<Currency>, DbErr> {
    let rows = crate::query::day_rows(
        db,
        (
            "currency, flow, item_type, day, CAST(SUM(events) AS BIGINT) AS events, \
             CAST(SUM(amount) AS DOUBLE PRECISION) AS amount",
            "analytics_resource_days",
            "currency, flow, item_type, day",
        ),
        game_id,
        environment,
        (from, to),
    )
    .await?;
    let first_day = crate::query::midnight(from).timestamp().div_euclid(86_400);
    let day_count = ((to - from).num_days() + 1) as usize;
    // currency -> (flow -> item type -> (amount, events), per-day (source, sink))
    type Flows = BTreeMap<Flow, BTreeMap<String, (f64, u64)>>;
    let mut found: BTreeMap<String, (Flows, Vec<(f64, f64)>)> = BTreeMap::new();
    for row in &rows {
        let currency: String = row.try_get("", "currency")?;
        let flow = match row.try_get::<String>("", "flow")?.as_str() {
            "source" => Flow::Source,
            _ => Flow::Sink,
        };
        let item_type: String = row.try_get("", "item_type")?;
        let day: i64 = row.try_get("", "day")?;
        let events: i64 = row.try_get("", "events")?;
        let amount: f64 = row.try_get("", "amount")?;
        let (flows, days) = found
            .entry(currency)
            .or_insert_with(|| (Flows::new(), vec![(0.0, 0.0); day_count]));
        let item = flows.entry(flow).or_default().entry(item_type).or_default();
        item.0 += amount;
        item.1 += events.max(0) as u64;
        if let Some(totals) = usize::try_from(day - first_day)
            .ok()
            .and_then(|index| days.get_mut(index))
        {
            match flow {
                Flow::Source => totals.0 += amount,
                Flow::Sink => totals.1 += amount,
            }
        }
    }
    Ok(found
        .into_iter()
        .map(|(currency, (mut flows, days))| {
            let mut items = |flow| {
                let mut items: Vec<ItemFlow> = flows
                    .remove(&flow)
                    .unwrap_or_default()
                    .into_iter()
                    .map(|(item_type, (amount, events))| ItemFlow {
                        item_type: (!item_type.is_empty()).then_some(item_type),
                        amount,
                        events,
                    })
                    .collect();
                items.sort_by(|a, b| b.amount.total_cmp(&a.amount));
                items
            };
            Currency {
                currency,
                sources: items(Flow::Source),
                sinks: items(Flow::Sink),
                days: days
                    .into_iter()
                    .enumerate()
                    .map(|(index, (source, sink))| Day {
                        day: from + Duration::days(index as i64),
                        source,
                        sink,
                    })
                    .collect(),
            }
        })
        .collect())
}
