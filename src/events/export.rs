//! The raw events export: a game's events in a time range, optionally of some names, read in
//! pages by keyset (`occurred_at`, then id) and written out page by page as NDJSON or CSV, so
//! an export of any size holds one page in memory. Optionally gzipped as it streams.
use crate::{http::timestamp, store::Db};
use bytes::Bytes;
use chrono::{DateTime, Utc};
use entity::events;
use futures_util::{stream, Stream, StreamExt};
use sea_orm::{ColumnTrait, Condition, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use uuid::Uuid;

/// Rows read per query.
pub const PAGE_ROWS: u64 = 1_000;
/// The most `event_name` values one export takes.
pub const MAX_EVENT_NAMES: usize = 20;

/// Which events an export holds: `from` inclusive, `to` exclusive, by `occurred_at`.
#[derive(Debug, Clone)]
pub struct Selection {
    pub game_id: Uuid,
    pub from: Option<DateTime<Utc>>,
    pub to: Option<DateTime<Utc>>,
    /// Empty: every name.
    pub event_names: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Ndjson,
    Csv,
}

impl Format {
    pub fn parse(raw: Option<&str>) -> Option<Self> {
        match raw.unwrap_or("ndjson") {
            "ndjson" => Some(Self::Ndjson),
            "csv" => Some(Self::Csv),
            _ => None,
        }
    }

    pub fn extension(self) -> &'static str {
        match self {
            Self::Ndjson => "ndjson",
            Self::Csv => "csv",
        }
    }
}

/// The CSV columns, in order; `properties` is the event's properties as JSON text.
pub const CSV_COLUMNS: [&str; 11] = [
    "id",
    "occurred_at",
    "received_at",
    "event_name",
    "event_id",
    "player_id",
    "session_id",
    "environment",
    "revenue_amount",
    "log_level",
    "properties",
];

/// The selected events in pages, oldest first.
fn pages(
    db: Db,
    selection: Selection,
) -> impl Stream<Item = Result<Vec<events::Model>, sea_orm::DbErr>> + Send {
    stream::unfold(Some(None::<(DateTime<Utc>, Uuid)>), move |after| {
        let db = db.clone();
        let selection = selection.clone();
        async move {
            let after = after?;
            let mut query =
                events::Entity::find().filter(events::Column::GameId.eq(selection.game_id));
            if let Some(from) = selection.from {
                query = query.filter(events::Column::OccurredAt.gte(from));
            }
            if let Some(to) = selection.to {
                query = query.filter(events::Column::OccurredAt.lt(to));
            }
            if !selection.event_names.is_empty() {
                query =
                    query.filter(events::Column::EventName.is_in(selection.event_names.clone()));
            }
            if let Some((at, id)) = after {
                // The first bound alone lets the (game, occurred_at) index start the scan at
                // the last row's time; without it the disjunction below made PostgreSQL read
                // from the range's start on every page.
                query = query.filter(events::Column::OccurredAt.gte(at)).filter(
                    Condition::any().add(events::Column::OccurredAt.gt(at)).add(
                        Condition::all()
                            .add(events::Column::OccurredAt.eq(at))
                            .add(events::Column::Id.gt(id)),
                    ),
                );
            }
            let page = query
                .order_by_asc(events::Column::OccurredAt)
                .order_by_asc(events::Column::Id)
                .limit(PAGE_ROWS)
                .all(&db)
                .await;
            match page {
                Ok(rows) if rows.is_empty() => None,
                Ok(rows) => {
                    let next = (rows.len() as u64 == PAGE_ROWS)
                        .then(|| rows.last().map(|row| (row.occurred_at, row.id)));
                    Some((Ok(rows), next))
                }
                Err(error) => Some((Err(error), None)),
            }
        }
    })
}

/// The export's bytes: a CSV header first, then each page as it is read.
pub fn body(
    db: Db,
    selection: Selection,
    format: Format,
) -> impl Stream<Item = std::io::Result<Bytes>> + Send {
    let header = match format {
        Format::Ndjson => None,
        Format::Csv => Some(Ok(Bytes::from(format!("{}\n", CSV_COLUMNS.join(","))))),
    };
    let rows = pages(db, selection).map(move |page| match page {
        Ok(rows) => match format {
            Format::Ndjson => Ok(ndjson(&rows)),
            Format::Csv => csv_rows(&rows),
        },
        Err(error) => {
            tracing::error!(error.cause_chain = ?error, "events export stopped midway");
            Err(std::io::Error::other(error))
        }
    });
    stream::iter(header).chain(rows)
}

/// A stored event as the exports write it (the raw export's NDJSON lines, a player's export).
pub fn event_json(row: &events::Model) -> serde_json::Value {
    serde_json::json!({
        "id": row.id,
        "occurred_at": timestamp(row.occurred_at),
        "received_at": timestamp(row.received_at),
        "event_name": row.event_name,
        "event_id": row.event_id,
        "player_id": row.player_id,
        "session_id": row.session_id,
        "environment": row.environment,
        "revenue_amount": row.revenue_amount,
        "log_level": row.log_level,
        "properties": row.properties,
    })
}

fn ndjson(rows: &[events::Model]) -> Bytes {
    let mut text = String::new();
    for row in rows {
        text.push_str(&event_json(row).to_string());
        text.push('\n');
    }
    Bytes::from(text)
}

fn csv_rows(rows: &[events::Model]) -> std::io::Result<Bytes> {
    let mut writer = csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(Vec::with_capacity(rows.len() * 160));
    for row in rows {
        writer
            .write_record([
                row.id.to_string(),
                timestamp(row.occurred_at),
                timestamp(row.received_at),
                spreadsheet_safe(&row.event_name),
                spreadsheet_safe(row.event_id.as_deref().unwrap_or_default()),
                spreadsheet_safe(row.player_id.as_deref().unwrap_or_default()),
                spreadsheet_safe(&row.session_id),
                spreadsheet_safe(&row.environment),
                row.revenue_amount
                    .map(|amount| amount.to_string())
                    .unwrap_or_default(),
                spreadsheet_safe(row.log_level.as_deref().unwrap_or_default()),
                row.properties.to_string(),
            ])
            .map_err(std::io::Error::other)?;
    }
    let bytes = writer
        .into_inner()
        .map_err(|error| std::io::Error::other(error.to_string()))?;
    Ok(Bytes::from(bytes))
}

/// A text cell as a spreadsheet may open it: one that starts with `=`, `+`, `-`, `@`, a tab
/// or a carriage return would run as a formula (OWASP "CSV Injection": `=HYPERLINK(...)`,
/// `=cmd|...`), so it gets a single quote in front, which spreadsheets show as text. Text
/// sent by game clients (names, ids) reaches these cells; numbers (`revenue_amount`) are
/// written as numbers and the properties cell is a JSON object, so neither needs it.
fn spreadsheet_safe(text: &str) -> String {
    if text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{text}")
    } else {
        text.to_string()
    }
}

/// `body` gzipped as it streams.
pub fn gzipped(
    body: impl Stream<Item = std::io::Result<Bytes>> + Send + 'static,
) -> impl Stream<Item = std::io::Result<Bytes>> + Send {
    let reader = tokio_util::io::StreamReader::new(body);
    tokio_util::io::ReaderStream::new(async_compression::tokio::bufread::GzipEncoder::new(reader))
}
