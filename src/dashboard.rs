//! The web dashboard (`dashboard/`, a single-page app) served at `/` by every API node.
//!
//! The built bundle (`dashboard/dist`, checked in) is embedded in release binaries; debug builds
//! read it from disk, and `--dashboard-dir` points a node at another build. A `GET` outside the
//! API's own paths answers the file when one exists, else `index.html`, so the app's own routes
//! (`/games/...`, `/reset-password?token=...`) open on a reload or from an e-mailed link.
//! Hashed files under `/assets/` are cached for a year; everything else is revalidated by ETag.
//! Compressed copies made at build time (`.br`, `.gz`) are answered to browsers that take them.
use poem::{
    endpoint::BoxEndpoint,
    http::{header, HeaderValue, Method, StatusCode},
    Endpoint, EndpointExt, IntoResponse, Middleware, Request, Response,
};
use rust_embed::Embed;
use std::{borrow::Cow, path::PathBuf, sync::Arc};

#[derive(Embed)]
#[folder = "dashboard/dist"]
struct Bundle;

/// Paths the API answers; everything else a browser GETs belongs to the dashboard.
const API_PATHS: &[&str] = &[
    "/v1",
    "/docs",
    "/openapi.json",
    "/healthz",
    "/readyz",
    crate::telemetry::route::PATH,
];

const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
     style-src 'self' 'unsafe-inline'; img-src 'self' data: https:; connect-src 'self'; \
     frame-ancestors 'none'; base-uri 'self'; form-action 'self'";

/// One file of the bundle.
struct Asset {
    body: Cow<'static, [u8]>,
    etag: String,
    mime: String,
}

/// Where the bundle comes from: built in, or a folder given at start-up.
#[derive(Clone)]
pub struct Dashboard {
    dir: Option<Arc<PathBuf>>,
}

impl Dashboard {
    pub fn new(dir: Option<PathBuf>) -> Self {
        Self {
            dir: dir.map(Arc::new),
        }
    }

    fn asset(&self, path: &str) -> Option<Asset> {
        // Only plain relative names: no `..`, no absolute paths, no empty segments.
        if path.split('/').any(|part| part == ".." || part.is_empty()) {
            return None;
        }
        let mime = || {
            mime_guess::from_path(path)
                .first_or_octet_stream()
                .to_string()
        };
        match &self.dir {
            None => Bundle::get(path).map(|file| Asset {
                etag: format!("\"{}\"", hex::encode(&file.metadata.sha256_hash()[..16])),
                mime: file.metadata.mimetype().to_string(),
                body: file.data,
            }),
            Some(dir) => {
                let body = std::fs::read(dir.join(path)).ok()?;
                use sha2::Digest;
                let digest = sha2::Sha256::digest(&body);
                Some(Asset {
                    etag: format!("\"{}\"", hex::encode(&digest[..16])),
                    mime: mime(),
                    body: Cow::Owned(body),
                })
            }
        }
    }

    /// Whether a request is the dashboard's: a GET or HEAD outside the API's paths.
    fn owns(req: &Request) -> bool {
        if req.method() != Method::GET && req.method() != Method::HEAD {
            return false;
        }
        let path = req.uri().path();
        !API_PATHS.iter().any(|api| {
            path.strip_prefix(api)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
        })
    }

    /// The file a dashboard request names, or `index.html` for the app's own routes.
    fn respond(&self, req: &Request) -> Response {
        let path = req.uri().path();
        let requested = path.trim_start_matches('/');
        let (name, asset) = match self.asset(requested) {
            Some(asset) => (requested, asset),
            // A missing file (a name with an extension) is a 404; any other path is a page of
            // the app.
            None if requested.rsplit('/').next().is_some_and(|last| last.contains('.')) => {
                return StatusCode::NOT_FOUND.into_response()
            }
            None => match self.asset("index.html") {
                Some(index) => ("index.html", index),
                None => {
                    return "The dashboard is not built: run `npm ci && npm run build` in dashboard/"
                        .with_status(StatusCode::NOT_FOUND)
                        .into_response()
                }
            },
        };
        let immutable = name.starts_with("assets/");
        // The build keeps a brotli and a gzip copy of each text file (`name.br`, `name.gz`):
        // answer the best one the browser takes, compressed once at build time.
        let (asset, encoding) =
            match preferred_encodings(req)
                .into_iter()
                .find_map(|(encoding, suffix)| {
                    self.asset(&format!("{name}{suffix}"))
                        .map(|compressed| (compressed, encoding))
                }) {
                Some((compressed, encoding)) => (
                    Asset {
                        etag: format!("{}-{encoding}\"", asset.etag.trim_end_matches('"')),
                        mime: asset.mime,
                        body: compressed.body,
                    },
                    Some(encoding),
                ),
                None => (asset, None),
            };
        let cache = if immutable {
            "public, max-age=31536000, immutable"
        } else {
            "no-cache"
        };
        let not_modified = req
            .headers()
            .get(header::IF_NONE_MATCH)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|tags| tags.split(',').any(|tag| tag.trim() == asset.etag));
        let mut response = if not_modified {
            Response::builder()
                .status(StatusCode::NOT_MODIFIED)
                .finish()
        } else {
            Response::builder()
                .content_type(asset.mime.as_str())
                .body(asset.body.into_owned())
        };
        let headers = response.headers_mut();
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
        headers.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
        if let Some(encoding) = encoding {
            headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static(encoding));
        }
        if let Ok(etag) = HeaderValue::from_str(&asset.etag) {
            headers.insert(header::ETAG, etag);
        }
        headers.insert(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        );
        // E-mailed links carry a token in the query: never hand it to another site.
        headers.insert(
            header::REFERRER_POLICY,
            HeaderValue::from_static("no-referrer"),
        );
        headers.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CONTENT_SECURITY_POLICY),
        );
        headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
        response
    }
}

/// The encodings the request accepts that the build has copies for, best first, with the
/// suffix of their files: brotli, then gzip (`q=0` refuses one).
fn preferred_encodings(req: &Request) -> Vec<(&'static str, &'static str)> {
    let accepted = req
        .headers()
        .get(header::ACCEPT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let takes = |wanted: &str| {
        accepted.split(',').any(|item| {
            let mut parts = item.split(';').map(str::trim);
            let name = parts.next().unwrap_or_default();
            let refused = parts.any(|param| {
                param.strip_prefix("q=").and_then(|q| q.parse::<f32>().ok()) == Some(0.0)
            });
            name.eq_ignore_ascii_case(wanted) && !refused
        })
    };
    [("br", ".br"), ("gzip", ".gz")]
        .into_iter()
        .filter(|(name, _)| takes(name))
        .collect()
}

impl<E: Endpoint + 'static> Middleware<E> for Dashboard {
    type Output = DashboardEndpoint<E>;

    fn transform(&self, inner: E) -> Self::Output {
        let dashboard = self.clone();
        let files = poem::endpoint::make_sync(move |req| dashboard.respond(&req)).boxed();
        DashboardEndpoint { files, inner }
    }
}

/// Answers the dashboard's requests and hands every other request to the API.
pub struct DashboardEndpoint<E> {
    files: BoxEndpoint<'static, Response>,
    inner: E,
}

impl<E: Endpoint> Endpoint for DashboardEndpoint<E> {
    type Output = Response;

    async fn call(&self, req: Request) -> poem::Result<Response> {
        if Dashboard::owns(&req) {
            let started = std::time::Instant::now();
            let method = req.method().clone();
            let response = self.files.call(req).await;
            if let Ok(response) = &response {
                let status = response.status().as_u16();
                crate::telemetry::request("dashboard", &method, status, started.elapsed());
            }
            response
        } else {
            self.inner.call(req).await.map(IntoResponse::into_response)
        }
    }
}
