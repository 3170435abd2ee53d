//! A local HTTP receiver standing in for a webhook endpoint (a chat service for alerts, a
//! studio's server for leaderboard results). `/hook` records each POST's JSON body with its
//! `Idempotency-Key` header and answers from a script (204 when the script is empty);
//! `/redirect` answers 302 to `/hook`, which a webhook must not follow.
use poem::{listener::Acceptor, listener::Listener, Response as PoemResponse, Route};
use serde_json::Value;
use std::{
    collections::VecDeque,
    sync::{Arc, Mutex},
};

#[derive(Clone)]
pub struct Receiver {
    /// The receiver's base address (`hook()` is where webhooks go).
    pub url: String,
    /// Each POST to `/hook`: its body, and its `Idempotency-Key` ("" without one).
    received: Arc<Mutex<Vec<(Value, String)>>>,
    script: Arc<Mutex<VecDeque<PoemResponse>>>,
}

impl Receiver {
    pub async fn start() -> Self {
        let acceptor = poem::listener::TcpListener::bind("127.0.0.1:0")
            .into_acceptor()
            .await
            .unwrap();
        let port = acceptor.local_addr()[0].as_socket_addr().unwrap().port();
        let receiver = Receiver {
            url: format!("http://127.0.0.1:{port}"),
            received: Arc::default(),
            script: Arc::default(),
        };
        let hook = receiver.clone();
        let route = Route::new()
            .at(
                "/hook",
                poem::post(poem::endpoint::make(move |req: poem::Request| {
                    let hook = hook.clone();
                    async move {
                        let key = req
                            .header("idempotency-key")
                            .unwrap_or_default()
                            .to_string();
                        let text = req.into_body().into_string().await.unwrap_or_default();
                        let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
                        hook.received.lock().unwrap().push((body, key));
                        let scripted = hook.script.lock().unwrap().pop_front();
                        scripted.unwrap_or_else(|| {
                            PoemResponse::builder()
                                .status(poem::http::StatusCode::NO_CONTENT)
                                .finish()
                        })
                    }
                })),
            )
            .at(
                "/redirect",
                poem::post(poem::endpoint::make_sync(|_| {
                    PoemResponse::builder()
                        .status(poem::http::StatusCode::FOUND)
                        .header("location", "/hook")
                        .finish()
                })),
            );
        tokio::spawn(poem::Server::new_with_acceptor(acceptor).run(route));
        receiver
    }

    /// Where webhooks are sent.
    pub fn hook(&self) -> String {
        format!("{}/hook", self.url)
    }

    /// The next POST to `/hook` is answered with `status` and the JSON `body`.
    pub fn then_answer(&self, status: u16, body: &str) {
        let response = PoemResponse::builder()
            .status(poem::http::StatusCode::from_u16(status).unwrap())
            .content_type("application/json")
            .body(body.to_string());
        self.script.lock().unwrap().push_back(response);
    }

    /// The bodies received so far.
    pub fn bodies(&self) -> Vec<Value> {
        self.received().into_iter().map(|(body, _)| body).collect()
    }

    /// The bodies received so far, each with its `Idempotency-Key`.
    pub fn received(&self) -> Vec<(Value, String)> {
        self.received.lock().unwrap().clone()
    }
}
