//! The node's accept loop, in front of poem's routes: it holds every client connection to a
//! deadline and caps how many are open (issue 29, "Hold under abuse").
//!
//! - A request's headers must arrive within the header timeout: counted from the moment the
//!   connection opens, or from the first byte of a later request on a kept-alive connection
//!   (slow-header clients such as Slowloris are closed, however steadily they trickle).
//! - A kept-alive connection with no request in flight is closed after the keep-alive timeout.
//! - The body deadline is kept per request by `api.rs` (it answers 408; see `body_deadline`).
//! - At most `max_connections` sockets are open (WebSocket feeds included, as long as they
//!   live); one more is answered 503 with `Retry-After: 1` and closed at once.
//!
//! poem's `Server` offers only an inactivity timeout (any byte keeps a connection alive, and
//! it knows no request boundaries), so the node drives hyper itself, the way poem does, and
//! watches each connection: a request is in flight from the end of its headers until its
//! answer's body has been written.
use parking_lot::Mutex;
use poem::{
    endpoint::BoxEndpoint,
    http,
    web::{LocalAddr, RemoteAddr},
    Addr, Endpoint, Response,
};
use std::{
    convert::Infallible,
    future::Future,
    io,
    pin::Pin,
    sync::Arc,
    task::{Context, Poll},
    time::Duration,
};
use tokio::{
    io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf},
    net::{TcpListener, TcpStream},
    sync::{Notify, OwnedSemaphorePermit, Semaphore},
    time::Instant,
};
use tokio_util::{sync::CancellationToken, task::TaskTracker};

/// The deadlines and the cap, from the settings.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub header_timeout: Duration,
    pub keep_alive_timeout: Duration,
    pub max_connections: u32,
}

impl Limits {
    pub fn from_settings(settings: &crate::cli::Settings) -> Self {
        Self {
            header_timeout: Duration::from_secs(settings.header_timeout_secs),
            keep_alive_timeout: Duration::from_secs(settings.keep_alive_timeout_secs),
            max_connections: settings.max_connections,
        }
    }
}

/// Serves `routes` on `listener` until `stop` completes; then stops accepting, lets each
/// connection finish what it is answering (idle ones close at once), and gives up on the rest
/// after `drain`.
pub async fn serve(
    listener: TcpListener,
    routes: BoxEndpoint<'static, Response>,
    limits: Limits,
    stop: impl Future<Output = ()>,
    drain: Duration,
) -> io::Result<()> {
    let routes = Arc::new(routes);
    let local = listener.local_addr()?;
    let slots = Arc::new(Semaphore::new(limits.max_connections as usize));
    let shutdown = CancellationToken::new();
    let abort = CancellationToken::new();
    let connections = TaskTracker::new();
    let refusals = Refusals::default();
    tracing::info!(addr = %local, "listening");
    tokio::pin!(stop);
    loop {
        let accepted = tokio::select! {
            _ = &mut stop => break,
            accepted = listener.accept() => accepted,
        };
        let (stream, remote) = match accepted {
            Ok(accepted) => accepted,
            Err(error) => {
                // Out of file descriptors (or a connection reset before it was accepted):
                // pause instead of spinning on the error.
                tracing::warn!(error = %error, "accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            refusals.note(limits.max_connections);
            tokio::spawn(refuse(stream));
            continue;
        };
        connections.spawn(serve_connection(Connection {
            stream,
            slot,
            local,
            remote,
            routes: routes.clone(),
            limits,
            shutdown: shutdown.clone(),
            abort: abort.clone(),
        }));
    }
    drop(listener);
    shutdown.cancel();
    connections.close();
    if tokio::time::timeout(drain, connections.wait())
        .await
        .is_err()
    {
        tracing::warn!("requests still running after the drain period; stopping them");
        abort.cancel();
        connections.wait().await;
    }
    Ok(())
}

/// Logs the refusals of connections over the cap, at most once every 10 seconds (an attack
/// must not turn into a flood of log lines).
#[derive(Default)]
struct Refusals {
    last_logged: Mutex<Option<Instant>>,
}

impl Refusals {
    fn note(&self, cap: u32) {
        let mut last = self.last_logged.lock();
        if last.is_none_or(|at| at.elapsed() >= Duration::from_secs(10)) {
            *last = Some(Instant::now());
            tracing::warn!(
                max_connections = cap,
                "connection refused: this node holds its maximum of open connections \
                 (--max-connections)"
            );
        }
    }
}

/// Answers a connection over the cap without reading its request, then reads and drops what
/// the client still sends for a moment before closing, so that closing with unread data
/// (which resets the connection) does not destroy the answer before the client reads it.
async fn refuse(mut stream: TcpStream) {
    const BODY: &str =
        r#"{"error":"This server has too many open connections; try again shortly"}"#;
    let answer = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n\
         retry-after: 1\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{BODY}",
        BODY.len()
    );
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        stream.write_all(answer.as_bytes()).await?;
        stream.shutdown().await?;
        let mut sink = [0u8; 4096];
        while stream.read(&mut sink).await? > 0 {}
        Ok::<_, io::Error>(())
    })
    .await;
}

struct Connection {
    stream: TcpStream,
    slot: OwnedSemaphorePermit,
    local: std::net::SocketAddr,
    remote: std::net::SocketAddr,
    routes: Arc<BoxEndpoint<'static, Response>>,
    limits: Limits,
    shutdown: CancellationToken,
    abort: CancellationToken,
}

async fn serve_connection(connection: Connection) {
    let Connection {
        stream,
        slot,
        local,
        remote,
        routes,
        limits,
        shutdown,
        abort,
    } = connection;
    let watch = Arc::new(Watch::new());
    let io = Watched {
        inner: stream,
        watch: watch.clone(),
        _slot: slot,
    };
    let service = hyper::service::service_fn({
        let watch = watch.clone();
        move |request: http::Request<hyper::body::Incoming>| {
            let routes = routes.clone();
            let watch = watch.clone();
            let in_flight = InFlight::begin(watch.clone());
            async move {
                let request = poem::Request::from((
                    request,
                    LocalAddr(Addr::SocketAddr(local)),
                    RemoteAddr(Addr::SocketAddr(remote)),
                    http::uri::Scheme::HTTP,
                ));
                let response = routes.get_response(request).await;
                if response.status() == http::StatusCode::SWITCHING_PROTOCOLS {
                    // A WebSocket feed: it lives on as long as either side wants it.
                    watch.upgraded();
                }
                let response: http::Response<_> = response.into();
                Ok::<_, Infallible>(response.map(|body| Tracked {
                    inner: body,
                    _in_flight: in_flight,
                }))
            }
        }
    });
    let builder =
        hyper_util::server::conn::auto::Builder::new(hyper_util::rt::TokioExecutor::new());
    let connection =
        builder.serve_connection_with_upgrades(hyper_util::rt::TokioIo::new(io), service);
    tokio::pin!(connection);
    tokio::select! {
        _ = connection.as_mut() => return,
        // Dropping the connection closes the socket.
        _ = watch.expired(limits) => return,
        _ = abort.cancelled() => return,
        _ = shutdown.cancelled() => {}
    }
    connection.as_mut().graceful_shutdown();
    tokio::select! {
        _ = connection => {}
        _ = watch.expired(limits) => {}
        _ = abort.cancelled() => {}
    }
}

/// What a connection is doing, shared by its socket, its requests and its watchdog.
struct Watch {
    state: Mutex<State>,
    changed: Notify,
}

struct State {
    /// Requests whose headers arrived and whose answer is not yet written.
    in_flight: usize,
    /// When the connection opened, or its last answer was written.
    idle_since: Instant,
    /// The first byte of the next request, read while no request was in flight.
    head_started: Option<Instant>,
    /// Whether any request was answered (then the wait for the next is keep-alive).
    answered: bool,
    /// Upgraded to a WebSocket: no deadline applies any more.
    upgraded: bool,
}

impl Watch {
    fn new() -> Self {
        Self {
            state: Mutex::new(State {
                in_flight: 0,
                idle_since: Instant::now(),
                head_started: None,
                answered: false,
                upgraded: false,
            }),
            changed: Notify::new(),
        }
    }

    fn read_some(&self) {
        let mut state = self.state.lock();
        if state.in_flight == 0 && state.head_started.is_none() {
            state.head_started = Some(Instant::now());
            drop(state);
            self.changed.notify_one();
        }
    }

    fn upgraded(&self) {
        self.state.lock().upgraded = true;
        self.changed.notify_one();
    }

    /// When the connection must be closed, as things stand (`None`: no deadline).
    fn deadline(&self, limits: Limits) -> Option<Instant> {
        let state = self.state.lock();
        if state.upgraded || state.in_flight > 0 {
            None
        } else if let Some(started) = state.head_started {
            Some(started + limits.header_timeout)
        } else if state.answered {
            Some(state.idle_since + limits.keep_alive_timeout)
        } else {
            Some(state.idle_since + limits.header_timeout)
        }
    }

    /// Completes when the connection has passed its deadline.
    async fn expired(&self, limits: Limits) {
        loop {
            // Notify keeps one wake-up for a change made before this waits.
            match self.deadline(limits) {
                None => self.changed.notified().await,
                Some(deadline) if deadline <= Instant::now() => {
                    tracing::debug!("closing a connection past its header or keep-alive deadline");
                    return;
                }
                Some(deadline) => {
                    tokio::select! {
                        _ = tokio::time::sleep_until(deadline) => {}
                        _ = self.changed.notified() => {}
                    }
                }
            }
        }
    }
}

/// One request in flight, from the end of its headers until its answer's body is written (or
/// abandoned).
struct InFlight(Arc<Watch>);

impl InFlight {
    fn begin(watch: Arc<Watch>) -> Self {
        {
            let mut state = watch.state.lock();
            state.in_flight += 1;
            state.head_started = None;
        }
        watch.changed.notify_one();
        Self(watch)
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        {
            let mut state = self.0.state.lock();
            state.in_flight -= 1;
            state.answered = true;
            if state.in_flight == 0 {
                state.idle_since = Instant::now();
            }
        }
        self.0.changed.notify_one();
    }
}

/// An answer's body that ends its request's time in flight when it is dropped (hyper drops it
/// once written, or when the connection goes).
struct Tracked<B> {
    inner: B,
    _in_flight: InFlight,
}

impl<B: http_body::Body + Unpin> http_body::Body for Tracked<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

/// The client's socket: notes when a request's first byte arrives, and holds the connection's
/// slot under the cap for as long as the socket lives (through a WebSocket upgrade too).
struct Watched {
    inner: TcpStream,
    watch: Arc<Watch>,
    _slot: OwnedSemaphorePermit,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.watch.read_some();
        }
        polled
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}
