//! Liveness and readiness probes.
use crate::{http::ApiTags, state::AppState, store::cold};
use poem_openapi::{payload::Json, ApiResponse, Object, OpenApi};

pub struct HealthApi {
    pub state: AppState,
}

#[derive(Object)]
pub struct Health {
    pub status: String,
}

#[derive(Object)]
pub struct Readiness {
    pub status: String,
    pub cold_store: bool,
    pub hot_store: bool,
}

#[derive(ApiResponse)]
pub enum ReadyAnswer {
    #[oai(status = 200)]
    Ready(Json<Readiness>),
    #[oai(status = 503)]
    NotReady(Json<Readiness>),
}

/// What each operation here answers beyond the universal statuses (`http::error_responses`):
/// Probes answer for themselves (`readyz`'s 503 is its own answer).
pub const STATUSES: crate::http::Statuses = crate::http::statuses! {
    healthz: [],
    readyz: [],
};

#[OpenApi(tag = "ApiTags::Health")]
impl HealthApi {
    /// The process is up.
    #[oai(path = "/healthz", method = "get", operation_id = "healthz")]
    async fn healthz(&self) -> Json<Health> {
        Json(Health {
            status: "ok".into(),
        })
    }

    /// The cold and hot stores answer.
    #[oai(path = "/readyz", method = "get", operation_id = "readyz")]
    async fn readyz(&self) -> ReadyAnswer {
        let (cold_store, hot_store) =
            tokio::join!(cold::ready(&self.state.db), self.state.hot.ready());
        let readiness = Readiness {
            status: if cold_store && hot_store {
                "ready"
            } else {
                "unavailable"
            }
            .into(),
            cold_store,
            hot_store,
        };
        if cold_store && hot_store {
            ReadyAnswer::Ready(Json(readiness))
        } else {
            ReadyAnswer::NotReady(Json(readiness))
        }
    }
}
