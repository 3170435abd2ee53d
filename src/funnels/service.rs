//! Funnel definitions (parsed once at the edge) and the conversion report built from the
//! step counts.
use super::{
    query::{self, FunnelQuery},
    FunnelError,
};
use crate::{
    query::{day_range, midnight, parse_environment, round2},
    state::AppState,
};
use chrono::Duration;
use entity::funnels;
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter,
    QueryOrder,
};
use uuid::Uuid;

pub const MIN_STEPS: usize = 2;
pub const MAX_STEPS: usize = 20;
/// A game keeps at most this many funnels.
pub const MAX_FUNNELS_PER_GAME: u64 = 100;
/// Longest conversion window: one year.
pub const MAX_WITHIN_HOURS: i64 = 8760;
/// A report covers at most this many days.
pub const MAX_RANGE_DAYS: i64 = 366;
pub const DEFAULT_RANGE_DAYS: i64 = 30;

pub use crate::words::FunnelMode as Mode;

pub fn parse_name(raw: &str) -> Result<String, FunnelError> {
    let name = raw.trim();
    if name.is_empty() || name.chars().count() > 100 {
        return Err(FunnelError::invalid("name must be 1 to 100 characters"));
    }
    Ok(name.to_string())
}

/// 2 to 20 event names of 1 to 128 characters. A name may repeat (a strict funnel can ask
/// for the same event twice).
pub fn parse_steps(raw: &[String]) -> Result<Vec<String>, FunnelError> {
    if raw.len() < MIN_STEPS || raw.len() > MAX_STEPS {
        return Err(FunnelError::invalid("steps must hold 2 to 20 event names"));
    }
    raw.iter()
        .map(|step| {
            if step.is_empty() || step.chars().count() > 128 {
                Err(FunnelError::invalid(
                    "each step must be an event name of 1 to 128 characters",
                ))
            } else {
                Ok(step.clone())
            }
        })
        .collect()
}

pub fn parse_within_hours(raw: i64) -> Result<i32, FunnelError> {
    if !(1..=MAX_WITHIN_HOURS).contains(&raw) {
        return Err(FunnelError::invalid("within_hours must be 1 to 8760"));
    }
    Ok(raw as i32)
}

/// The steps stored as JSON, read back.
pub fn steps_of(funnel: &funnels::Model) -> Vec<String> {
    serde_json::from_value(funnel.steps.clone()).unwrap_or_default()
}

pub fn mode_of(funnel: &funnels::Model) -> Mode {
    Mode::parse(&funnel.mode).unwrap_or(Mode::Loose)
}

pub async fn list(state: &AppState, game_id: Uuid) -> Result<Vec<funnels::Model>, FunnelError> {
    Ok(funnels::Entity::find()
        .filter(funnels::Column::GameId.eq(game_id))
        .order_by_asc(funnels::Column::CreatedAt)
        .order_by_asc(funnels::Column::Id)
        .all(&state.db)
        .await?)
}

/// The game's funnel, or 404 (also for another game's funnel).
pub async fn find(
    state: &AppState,
    game_id: Uuid,
    funnel_id: Uuid,
) -> Result<funnels::Model, FunnelError> {
    funnels::Entity::find_by_id(funnel_id)
        .filter(funnels::Column::GameId.eq(game_id))
        .one(&state.db)
        .await?
        .ok_or(FunnelError::NotFound)
}

/// A funnel to define, each field already checked.
pub struct NewFunnel {
    pub name: String,
    pub mode: Mode,
    pub steps: Vec<String>,
    pub within_hours: Option<i32>,
}

/// Stores a new funnel of the game, unless it already has `MAX_FUNNELS_PER_GAME`.
pub async fn create(
    state: &AppState,
    game_id: Uuid,
    new: NewFunnel,
) -> Result<funnels::Model, FunnelError> {
    let existing = funnels::Entity::find()
        .filter(funnels::Column::GameId.eq(game_id))
        .count(&state.db)
        .await?;
    if existing >= MAX_FUNNELS_PER_GAME {
        return Err(FunnelError::TooMany);
    }
    let now = state.now();
    let funnel = funnels::Model {
        id: Uuid::now_v7(),
        game_id,
        name: new.name,
        mode: new.mode.as_str().into(),
        steps: serde_json::json!(new.steps),
        within_hours: new.within_hours,
        created_at: now,
        updated_at: now,
    };
    funnels::Entity::insert(funnels::ActiveModel::from(funnel.clone()))
        .exec_without_returning(&state.db)
        .await?;
    Ok(funnel)
}

/// The fields of a funnel to change, each already checked; `None` leaves a field as it is.
#[derive(Default)]
pub struct FunnelChanges {
    pub name: Option<String>,
    pub mode: Option<Mode>,
    pub steps: Option<Vec<String>>,
    /// `Some(None)` removes the window.
    pub within_hours: Option<Option<i32>>,
}

pub async fn update(
    state: &AppState,
    funnel: funnels::Model,
    changes: FunnelChanges,
) -> Result<funnels::Model, FunnelError> {
    let mut row: funnels::ActiveModel = funnel.into();
    if let Some(name) = changes.name {
        row.name = Set(name);
    }
    if let Some(mode) = changes.mode {
        row.mode = Set(mode.as_str().into());
    }
    if let Some(steps) = changes.steps {
        row.steps = Set(serde_json::json!(steps));
    }
    if let Some(within_hours) = changes.within_hours {
        row.within_hours = Set(within_hours);
    }
    row.updated_at = Set(state.now());
    Ok(row.update(&state.db).await?)
}

/// Deletes the game's funnel; `NotFound` when it has no such funnel.
pub async fn delete(state: &AppState, game_id: Uuid, funnel_id: Uuid) -> Result<(), FunnelError> {
    let funnel = find(state, game_id, funnel_id).await?;
    funnels::Entity::delete_by_id(funnel.id)
        .exec(&state.db)
        .await?;
    Ok(())
}

/// One step of a report.
pub struct StepResult {
    pub step: u32,
    pub event: String,
    pub count: u64,
    /// Percent lost from the previous step; `None` on step 1.
    pub dropoff: Option<f64>,
}

pub struct Report {
    pub from: chrono::NaiveDate,
    pub to: chrono::NaiveDate,
    pub steps: Vec<StepResult>,
    pub overall_conversion: f64,
}

/// Counts the funnel over the UTC days `from..=to` (defaults per `query::day_range`), for
/// events of one `environment` or both, all three as the query string holds them.
pub async fn report(
    state: &AppState,
    funnel: &funnels::Model,
    from: Option<&str>,
    to: Option<&str>,
    environment: Option<&str>,
) -> Result<Report, FunnelError> {
    let environment = environment.map(parse_environment).transpose()?;
    let today = state.now().date_naive();
    let (from, to) = day_range(from, to, today, DEFAULT_RANGE_DAYS, MAX_RANGE_DAYS)?;
    let steps = steps_of(funnel);
    let counts = query::step_counts(
        &state.db,
        &FunnelQuery {
            game_id: funnel.game_id,
            environment: environment.map(crate::words::Environment::as_str),
            steps: &steps,
            mode: mode_of(funnel),
            within_hours: funnel.within_hours,
            from: midnight(from),
            to: midnight(to) + Duration::days(1),
        },
    )
    .await?;
    let results = steps
        .into_iter()
        .zip(&counts)
        .enumerate()
        .map(|(index, (event, &count))| StepResult {
            step: index as u32 + 1,
            event,
            count,
            dropoff: (index > 0).then(|| {
                let previous = counts[index - 1];
                if previous == 0 {
                    0.0
                } else {
                    round2((previous - count.min(previous)) as f64 * 100.0 / previous as f64)
                }
            }),
        })
        .collect();
    let first = counts.first().copied().unwrap_or(0);
    let last = counts.last().copied().unwrap_or(0);
    let overall_conversion = if first == 0 {
        0.0
    } else {
        round2(last as f64 * 100.0 / first as f64)
    };
    Ok(Report {
        from,
        to,
        steps: results,
        overall_conversion,
    })
}
