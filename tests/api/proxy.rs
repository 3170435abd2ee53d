//! A TCP forwarder between a node and one of its stores (Redis or PostgreSQL), for fault tests:
//! `cut()` makes the store unreachable the way a stopped server is (every open connection
//! dropped, new ones refused), `restore()` makes it reachable again on the same address.
use std::{
    net::SocketAddr,
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc,
    },
    time::Duration,
};
use tokio::{
    net::{TcpListener, TcpSocket, TcpStream},
    sync::{watch, Mutex},
};

pub struct Proxy {
    address: SocketAddr,
    target: String,
    /// True while the target is reachable through the proxy; every task watches it.
    up: watch::Sender<bool>,
    /// Connections being forwarded.
    open: Arc<AtomicUsize>,
    /// While cut: the port, bound but not listening, so that connections to it are refused
    /// and nothing else takes it before `restore()`.
    parked: Mutex<Option<TcpSocket>>,
}

impl Proxy {
    /// Listens on 127.0.0.1:0 and forwards every connection to `target` (`host:port`).
    pub async fn start(target: &str) -> Arc<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("proxy binds");
        let proxy = Arc::new(Self {
            address: listener.local_addr().unwrap(),
            target: target.to_string(),
            up: watch::channel(true).0,
            open: Arc::default(),
            parked: Mutex::new(None),
        });
        proxy.serve(listener);
        proxy
    }

    /// A proxy to the host and port of `url` (`redis://127.0.0.1:6379`,
    /// `postgres://postgres@127.0.0.1:5432/db`).
    pub async fn to(url: &str) -> Arc<Self> {
        Self::start(&Self::split(url).1).await
    }

    /// `url` with its host and port replaced by the proxy's; scheme, credentials, path and
    /// query are kept.
    pub fn url_for(&self, url: &str) -> String {
        let (scheme, _, credentials, path) = Self::parts(url);
        format!("{scheme}://{credentials}{}{path}", self.address)
    }

    fn split(url: &str) -> (String, String) {
        let (scheme, host_port, _, _) = Self::parts(url);
        (scheme, host_port)
    }

    /// (scheme, host:port, "user@" or "", path and query).
    fn parts(url: &str) -> (String, String, String, String) {
        let (scheme, rest) = url.split_once("://").expect("a URL with a scheme");
        let (authority, path) = rest.split_at(rest.find(['/', '?']).unwrap_or(rest.len()));
        let (credentials, host_port) = match authority.rsplit_once('@') {
            Some((credentials, host_port)) => (format!("{credentials}@"), host_port),
            None => (String::new(), authority),
        };
        (
            scheme.to_string(),
            host_port.to_string(),
            credentials,
            path.to_string(),
        )
    }

    /// Drops every open connection; new ones are refused until `restore()`.
    pub async fn cut(&self) {
        let mut parked = self.parked.lock().await;
        if parked.is_some() {
            return;
        }
        self.up.send_replace(false);
        // The accept task drops the listener when told; then the port is parked.
        for _ in 0..400 {
            if let Ok(socket) = park(self.address) {
                *parked = Some(socket);
                break;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert!(parked.is_some(), "could not park the proxy's port");
        while self.open.load(Ordering::Acquire) > 0 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    /// Accepts and forwards connections again, on the same address.
    pub async fn restore(&self) {
        let Some(socket) = self.parked.lock().await.take() else {
            return;
        };
        let listener = socket.listen(1024).expect("the parked port listens again");
        self.up.send_replace(true);
        self.serve(listener);
    }

    fn serve(&self, listener: TcpListener) {
        let mut up = self.up.subscribe();
        let target = self.target.clone();
        let open = self.open.clone();
        tokio::spawn(async move {
            loop {
                let client = tokio::select! {
                    accepted = listener.accept() => match accepted {
                        Ok((client, _)) => client,
                        Err(_) => continue,
                    },
                    // Returning drops the listener.
                    _ = up.wait_for(|up| !*up) => return,
                };
                let mut up = up.clone();
                let target = target.clone();
                let open = open.clone();
                open.fetch_add(1, Ordering::AcqRel);
                tokio::spawn(async move {
                    let mut client = client;
                    if let Ok(mut server) = TcpStream::connect(&target).await {
                        let _ = client.set_nodelay(true);
                        let _ = server.set_nodelay(true);
                        tokio::select! {
                            _ = tokio::io::copy_bidirectional(&mut client, &mut server) => {}
                            // Both sockets are dropped: each side sees its connection closed.
                            _ = up.wait_for(|up| !*up) => {}
                        }
                    }
                    drop(client);
                    open.fetch_sub(1, Ordering::AcqRel);
                });
            }
        });
    }
}

/// A socket bound to `address` that does not listen: connections to it are refused.
fn park(address: SocketAddr) -> std::io::Result<TcpSocket> {
    let socket = TcpSocket::new_v4()?;
    socket.set_reuseaddr(true)?;
    socket.bind(address)?;
    Ok(socket)
}
