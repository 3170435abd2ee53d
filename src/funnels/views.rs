//! The answers both funnel APIs share: definitions and conversion reports.
use super::{service, FunnelError};
use crate::http::schema::Timestamp;
use crate::state::AppState;
use crate::words::FunnelMode;
use entity::funnels;
use poem_openapi::Object;

/// A funnel definition.
#[derive(Object)]
pub struct Funnel {
    pub funnel_id: String,
    pub game_id: String,
    pub name: String,
    /// `loose` or `strict`.
    pub mode: FunnelMode,
    pub steps: Vec<String>,
    /// Conversion window in hours; null when there is none.
    #[oai(nullable)]
    pub within_hours: Option<i32>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

#[derive(Object)]
pub struct FunnelList {
    pub funnels: Vec<Funnel>,
}

/// One step of a funnel report.
#[derive(Object)]
pub struct FunnelStep {
    /// Position, from 1.
    pub step: u32,
    /// The step's event name.
    pub event: String,
    /// Users who reached this step.
    pub count: u64,
    /// Percent of the previous step's users lost at this step; absent on step 1.
    #[oai(skip_serializing_if_is_none)]
    #[oai(nullable)]
    pub dropoff: Option<f64>,
}

/// Conversion through a funnel over a range of UTC days.
#[derive(Object)]
pub struct FunnelReport {
    pub funnel_id: String,
    pub name: String,
    /// `loose` or `strict`.
    pub mode: FunnelMode,
    /// First day counted (UTC, inclusive).
    pub from: String,
    /// Last day counted (UTC, inclusive).
    pub to: String,
    #[oai(skip_serializing_if_is_none)]
    #[oai(nullable)]
    pub within_hours: Option<i32>,
    pub steps: Vec<FunnelStep>,
    /// Last step over first step, in percent; 0 when nobody started.
    pub overall_conversion: f64,
}

pub fn funnel_view(funnel: funnels::Model) -> Result<Funnel, FunnelError> {
    Ok(Funnel {
        funnel_id: funnel.id.to_string(),
        game_id: funnel.game_id.to_string(),
        steps: service::steps_of(&funnel),
        mode: FunnelMode::stored(&funnel.mode)?,
        name: funnel.name,
        within_hours: funnel.within_hours,
        created_at: Timestamp::from(funnel.created_at),
        updated_at: Timestamp::from(funnel.updated_at),
    })
}

/// The funnel's report over the `from`, `to` and `environment` query values, as answered.
pub async fn report(
    state: &AppState,
    funnel: &funnels::Model,
    from: Option<&str>,
    to: Option<&str>,
    environment: Option<&str>,
) -> Result<FunnelReport, FunnelError> {
    let report = service::report(state, funnel, from, to, environment).await?;
    Ok(FunnelReport {
        funnel_id: funnel.id.to_string(),
        name: funnel.name.clone(),
        mode: FunnelMode::stored(&funnel.mode)?,
        from: report.from.to_string(),
        to: report.to.to_string(),
        within_hours: funnel.within_hours,
        steps: report
            .steps
            .into_iter()
            .map(|s| FunnelStep {
                step: s.step,
                event: s.event,
                count: s.count,
                dropoff: s.dropoff,
            })
            .collect(),
        overall_conversion: report.overall_conversion,
    })
}
