//! Event ingestion: `POST /v1/track`, quotas, event schemas and the group-commit writer; and
//! what the dashboard reads of the stored events (recent pages, counts, quota usage).
pub mod error;
pub mod export;
pub mod export_api;
pub mod game_api;
pub mod input;
pub mod quota;
pub mod recent;
pub mod recent_api;
pub mod retention;
pub mod schemas;
pub mod schemas_api;
pub mod service;
pub mod standard;
pub mod usage_api;
pub mod writer;

pub use error::EventError;

use crate::{
    state::AppState,
    store::{hot::quotas::Quotas, Db},
};
use std::sync::Arc;

/// This feature's `#[OpenApi]` structs, mounted by `api.rs`.
pub fn apis(state: &AppState) -> impl poem_openapi::OpenApi {
    (
        game_api::TrackApi {
            state: state.clone(),
        },
        schemas_api::EventSchemasApi {
            state: state.clone(),
        },
        recent_api::EventsApi {
            state: state.clone(),
        },
        usage_api::UsageApi {
            state: state.clone(),
        },
        export_api::EventsExportApi {
            state: state.clone(),
        },
    )
}

/// The node's ingestion machinery kept in `AppState`: the group-commit writer and the cache
/// of compiled event schemas.
#[derive(Clone)]
pub struct Ingest {
    pub writer: Arc<writer::EventWriter>,
    pub schemas: Arc<schemas::SchemaCache>,
}

/// This node's event ingestion.
pub fn ingest(state: &crate::state::AppState) -> &Ingest {
    &state.parts.ingest
}

impl Ingest {
    /// `writers` is the pool the writer tasks store with (one connection each), `reads` the
    /// node's pool for the quota rebuilds' reads, `quotas` counts the games' events, and
    /// `lanes` writer tasks store on PostgreSQL.
    pub fn new(writers: Db, reads: Db, quotas: Arc<dyn Quotas>, lanes: usize) -> Self {
        Self {
            writer: Arc::new(writer::EventWriter::new(
                writers,
                writer::EventRows { quotas, reads },
                lanes,
            )),
            schemas: Arc::default(),
        }
    }

    /// Commits every queued event write; new writes are refused from now on (shutdown).
    pub async fn flush(&self) {
        self.writer.flush().await;
    }
}
