//! Progression and economy kept at ingest: per (environment, day, level path) the
//! `progression` events that started, completed and failed the step, with the attempts the
//! completes carried; per (environment, day, currency, flow, item type) the `resource` events
//! and their amounts. Only events of the standard shape count (`crate::events::standard`), so
//! one that breaks its schema is stored but counted nowhere here. Counters are kept per writer
//! shard and per environment (the `all` scope is their sum: nothing here is distinct).
use super::{day_of, Tx};
use crate::events::standard::{Progression, Resource, Status};
use entity::events;
use sea_orm::DbErr;
use serde::Serialize;
use std::collections::BTreeMap;
use uuid::Uuid;

pub(super) const ADD_PROGRESSION: &str = "INSERT INTO analytics_progression_days \
     (game_id, environment, day, level1, level2, level3, shard, starts, completes, fails, \
     attempt_completes, attempts) \
     SELECT $1, value->>'e', CAST(value->>'d' AS BIGINT), value->>'a', value->>'b', \
     value->>'c', $3, CAST(value->>'s' AS BIGINT), CAST(value->>'o' AS BIGINT), \
     CAST(value->>'f' AS BIGINT), CAST(value->>'n' AS BIGINT), CAST(value->>'t' AS BIGINT) \
     FROM {rows} WHERE true \
     ON CONFLICT (game_id, day, environment, level1, level2, level3, shard) DO UPDATE SET \
     starts = analytics_progression_days.starts + excluded.starts, \
     completes = analytics_progression_days.completes + excluded.completes, \
     fails = analytics_progression_days.fails + excluded.fails, \
     attempt_completes = analytics_progression_days.attempt_completes + excluded.attempt_completes, \
     attempts = analytics_progression_days.attempts + excluded.attempts";

pub(super) const ADD_RESOURCES: &str = "INSERT INTO analytics_resource_days \
     (game_id, environment, day, currency, flow, item_type, shard, events, amount) \
     SELECT $1, value->>'e', CAST(value->>'d' AS BIGINT), value->>'c', value->>'f', \
     value->>'i', $3, CAST(value->>'n' AS BIGINT), CAST(value->>'m' AS DOUBLE PRECISION) \
     FROM {rows} WHERE true \
     ON CONFLICT (game_id, day, environment, currency, flow, item_type, shard) DO UPDATE SET \
     events = analytics_resource_days.events + excluded.events, \
     amount = analytics_resource_days.amount + excluded.amount";

/// One step's counts to add to a day: starts (`s`), completes (`o`), fails (`f`), completes
/// that carried an attempt (`n`) and their attempts (`t`).
#[derive(Serialize)]
pub(super) struct ProgressionRow<'a> {
    e: &'a str,
    d: i64,
    a: &'a str,
    b: &'a str,
    c: &'a str,
    s: i64,
    o: i64,
    f: i64,
    n: i64,
    t: i64,
}

/// One (currency, flow, item type)'s events (`n`) and amount (`m`) to add to a day.
#[derive(Serialize)]
pub(super) struct ResourceRow<'a> {
    e: &'a str,
    d: i64,
    c: &'a str,
    f: &'static str,
    i: &'a str,
    n: i64,
    m: f64,
}

/// A game's rows of the standard kinds, sorted by their keys.
#[derive(Default)]
pub(super) struct StandardRows<'a> {
    pub progression: Vec<ProgressionRow<'a>>,
    pub resources: Vec<ResourceRow<'a>>,
}

type StepKey<'a> = (&'a str, i64, [&'a str; 3]);
type ResourceKey<'a> = (&'a str, i64, &'a str, &'static str, &'a str);

pub(super) fn group<'a>(rows: &[&'a events::Model]) -> StandardRows<'a> {
    let mut steps: BTreeMap<StepKey<'a>, [i64; 5]> = BTreeMap::new();
    let mut resources: BTreeMap<ResourceKey<'a>, (i64, f64)> = BTreeMap::new();
    for row in rows {
        if let Some(progression) = Progression::of(&row.event_name, &row.properties) {
            let counts = steps
                .entry((
                    &row.environment,
                    day_of(row.occurred_at),
                    progression.levels,
                ))
                .or_default();
            match progression.status {
                Status::Start => counts[0] += 1,
                Status::Complete => {
                    counts[1] += 1;
                    if let Some(attempt) = progression.attempt {
                        counts[3] += 1;
                        counts[4] += attempt;
                    }
                }
                Status::Fail => counts[2] += 1,
            }
        } else if let Some(resource) = Resource::of(&row.event_name, &row.properties) {
            let key = (
                row.environment.as_str(),
                day_of(row.occurred_at),
                resource.currency,
                resource.flow.as_str(),
                resource.item_type,
            );
            let sums = resources.entry(key).or_default();
            sums.0 += 1;
            sums.1 += resource.amount;
        }
    }
    StandardRows {
        progression: steps
            .into_iter()
            .map(|((e, d, [a, b, c]), [s, o, f, n, t])| ProgressionRow {
                e,
                d,
                a,
                b,
                c,
                s,
                o,
                f,
                n,
                t,
            })
            .collect(),
        resources: resources
            .into_iter()
            .map(|((e, d, c, f, i), (n, m))| ResourceRow {
                e,
                d,
                c,
                f,
                i,
                n,
                m,
            })
            .collect(),
    }
}

/// Adds a game's rows of the standard kinds (the step-by-step path; PostgreSQL's single
/// statement has them as two of its parts).
pub(super) async fn add(
    tx: &mut Tx<'_>,
    game_id: Uuid,
    rows: &StandardRows<'_>,
    shard: i16,
) -> Result<(), DbErr> {
    if !rows.progression.is_empty() {
        let json = super::ingest::json(&rows.progression);
        tx.execute(ADD_PROGRESSION, game_id, &json, Some(shard))
            .await?;
    }
    if !rows.resources.is_empty() {
        let json = super::ingest::json(&rows.resources);
        tx.execute(ADD_RESOURCES, game_id, &json, Some(shard))
            .await?;
    }
    Ok(())
}
