//! `GET /v1/games/{game_id}/events/export`: the game's raw events as one download, NDJSON or
//! CSV, optionally gzipped, for data teams (any member).
use super::export::{self, Format, Selection, MAX_EVENT_NAMES};
use crate::{
    auth::BearerAuth,
    error::ApiError,
    games::{access::Role, require_role},
    http::ApiTags,
    query,
    state::AppState,
};
use poem::{Body, IntoResponse, Response};
use poem_openapi::{
    param::{Header, Path, Query},
    payload::Payload,
    registry::{MetaSchema, MetaSchemaRef, Registry},
    ApiResponse, OpenApi, ResponseContent,
};
use std::marker::PhantomData;
use uuid::Uuid;

pub struct EventsExportApi {
    pub state: AppState,
}

/// What a download is, for its `Content-Type` in the spec and on the wire.
pub trait Kind: Send {
    const CONTENT_TYPE: &'static str;
}

pub struct Ndjson;
pub struct Csv;
pub struct Gzip;

impl Kind for Ndjson {
    const CONTENT_TYPE: &'static str = "application/x-ndjson";
}
impl Kind for Csv {
    const CONTENT_TYPE: &'static str = "text/csv; charset=utf-8";
}
impl Kind for Gzip {
    const CONTENT_TYPE: &'static str = "application/gzip";
}

/// A file sent as it is produced.
pub struct Download<K> {
    body: Body,
    file_name: String,
    /// `gzip` when the body is compressed for transport (`Accept-Encoding`).
    content_encoding: Option<&'static str>,
    kind: PhantomData<K>,
}

impl<K: Kind> Payload for Download<K> {
    const CONTENT_TYPE: &'static str = K::CONTENT_TYPE;

    fn schema_ref() -> MetaSchemaRef {
        MetaSchemaRef::Inline(Box::new(MetaSchema {
            format: Some("binary"),
            ..MetaSchema::new("string")
        }))
    }

    fn register(_registry: &mut Registry) {}
}

impl<K: Kind> IntoResponse for Download<K> {
    fn into_response(self) -> Response {
        let mut response = Response::builder().content_type(K::CONTENT_TYPE).header(
            "content-disposition",
            format!("attachment; filename=\"{}\"", self.file_name),
        );
        if let Some(encoding) = self.content_encoding {
            response = response
                .header("content-encoding", encoding)
                .header("vary", "accept-encoding");
        }
        response.body(self.body)
    }
}

#[derive(ResponseContent)]
pub enum ExportContent {
    Ndjson(Download<Ndjson>),
    Csv(Download<Csv>),
    Gzip(Download<Gzip>),
}

#[derive(ApiResponse)]
pub enum Exported {
    /// The events, oldest first.
    #[oai(status = 200)]
    Ok(ExportContent),
}

/// What each operation here answers beyond the universal statuses (`http::error_responses`):
/// 403: not a member of the game.
pub const STATUSES: crate::http::Statuses = crate::http::statuses! {
    exportEvents: [403],
};

#[OpenApi(prefix_path = "/v1/games", tag = "ApiTags::Events")]
impl EventsExportApi {
    /// Download the game's raw events (any member), oldest first, as NDJSON (one JSON object
    /// per line, default) or CSV (a header row; `properties` as JSON text; a text cell that a
    /// spreadsheet would run as a formula, starting with `=`, `+`, `-`, `@`, tab or CR, gets a
    /// leading `'`). Streams at any
    /// size. `from` (inclusive) and `to` (exclusive) by `occurred_at`: RFC 3339 times or
    /// `YYYY-MM-DD` days (a `to` day is included); default: every event. Repeat `event_name`
    /// for several names (at most 20). With `Accept-Encoding: gzip` the body is gzip-encoded for
    /// transport; `gzip=true` answers a `.gz` file instead.
    #[oai(
        path = "/:game_id/events/export",
        method = "get",
        operation_id = "exportEvents"
    )]
    #[allow(clippy::too_many_arguments)] // one argument per query parameter
    async fn export(
        &self,
        auth: BearerAuth,
        game_id: Path<Uuid>,
        /// First instant or day, inclusive.
        from: Query<Option<String>>,
        /// End instant (exclusive) or last day (inclusive).
        to: Query<Option<String>>,
        /// Only these event names; repeat the parameter for several.
        event_name: Query<Vec<String>>,
        /// `ndjson` (default) or `csv`.
        format: Query<Option<String>>,
        /// `true`: answer a gzip file (`.gz`).
        gzip: Query<Option<bool>>,
        #[oai(name = "Accept-Encoding")] accept_encoding: Header<Option<String>>,
    ) -> poem::Result<Exported> {
        require_role(&self.state.db, auth.0, game_id.0, Role::Viewer).await?;
        let format = Format::parse(format.0.as_deref())
            .ok_or_else(|| ApiError::bad_request("format must be ndjson or csv"))?;
        let from = from
            .0
            .as_deref()
            .map(|raw| query::instant(raw, "from", false))
            .transpose()?;
        let to =
            to.0.as_deref()
                .map(|raw| query::instant(raw, "to", true))
                .transpose()?;
        if let (Some(from), Some(to)) = (from, to) {
            if from >= to {
                return Err(ApiError::bad_request("from must be before to").into());
            }
        }
        if event_name.0.len() > MAX_EVENT_NAMES {
            return Err(ApiError::bad_request(format!(
                "at most {MAX_EVENT_NAMES} event_name values"
            ))
            .into());
        }
        if event_name
            .0
            .iter()
            .any(|name| name.is_empty() || name.len() > 128)
        {
            return Err(ApiError::bad_request("event_name must be 1 to 128 characters").into());
        }
        let selection = Selection {
            game_id: game_id.0,
            from,
            to,
            event_names: event_name.0,
        };
        let file_name = format!("events-{}.{}", game_id.0, format.extension());
        let rows = export::body(self.state.db.clone(), selection, format);
        let transport_gzip = accept_encoding.0.as_deref().is_some_and(|accepted| {
            accepted
                .split(',')
                .any(|item| item.trim().starts_with("gzip"))
        });
        let content = if gzip.0.unwrap_or(false) {
            ExportContent::Gzip(download(
                export::gzipped(rows),
                format!("{file_name}.gz"),
                None,
            ))
        } else if transport_gzip {
            let body = export::gzipped(rows);
            match format {
                Format::Ndjson => ExportContent::Ndjson(download(body, file_name, Some("gzip"))),
                Format::Csv => ExportContent::Csv(download(body, file_name, Some("gzip"))),
            }
        } else {
            match format {
                Format::Ndjson => ExportContent::Ndjson(download(rows, file_name, None)),
                Format::Csv => ExportContent::Csv(download(rows, file_name, None)),
            }
        };
        Ok(Exported::Ok(content))
    }
}

fn download<K>(
    bytes: impl futures_util::Stream<Item = std::io::Result<bytes::Bytes>> + Send + 'static,
    file_name: String,
    content_encoding: Option<&'static str>,
) -> Download<K> {
    Download {
        body: Body::from_bytes_stream(bytes),
        file_name,
        content_encoding,
        kind: PhantomData,
    }
}
