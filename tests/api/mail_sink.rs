//! A real SMTP server for tests (mailin-embedded), keeping every message it receives.
use mailin_embedded::{response, Handler, Response, Server};
use std::{
    net::TcpListener,
    sync::{Arc, Mutex},
    time::Duration,
};

#[derive(Debug, Clone)]
pub struct Mail {
    pub to: Vec<String>,
    pub data: String,
}

#[derive(Clone, Default)]
struct Collector {
    current: Arc<Mutex<Option<Mail>>>,
    inbox: Arc<Mutex<Vec<Mail>>>,
}

impl Handler for Collector {
    fn data_start(&mut self, _domain: &str, _from: &str, _is8bit: bool, to: &[String]) -> Response {
        *self.current.lock().unwrap() = Some(Mail {
            to: to.to_vec(),
            data: String::new(),
        });
        response::OK
    }

    fn data(&mut self, buf: &[u8]) -> std::io::Result<()> {
        if let Some(mail) = self.current.lock().unwrap().as_mut() {
            mail.data.push_str(&String::from_utf8_lossy(buf));
        }
        Ok(())
    }

    fn data_end(&mut self) -> Response {
        if let Some(mail) = self.current.lock().unwrap().take() {
            self.inbox.lock().unwrap().push(mail);
        }
        response::OK
    }
}

pub struct MailSink {
    pub url: String,
    inbox: Arc<Mutex<Vec<Mail>>>,
}

impl MailSink {
    pub fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let collector = Collector::default();
        let inbox = collector.inbox.clone();
        let mut server = Server::new(collector);
        server
            .with_name("sink.test")
            .with_num_threads(2)
            .with_tcp_listener(listener);
        std::thread::spawn(move || {
            let _ = server.serve();
        });
        Self {
            url: format!("smtp://127.0.0.1:{port}"),
            inbox,
        }
    }

    /// Waits up to 10 seconds for a mail to `to` and returns it.
    pub async fn wait_for(&self, to: &str) -> Mail {
        for _ in 0..100 {
            if let Some(mail) = self
                .messages()
                .into_iter()
                .find(|m| m.to.iter().any(|t| t.contains(to)))
            {
                return mail;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("no mail to {to} arrived");
    }

    pub fn messages(&self) -> Vec<Mail> {
        self.inbox.lock().unwrap().clone()
    }
}

/// The 64-hex-character token in a reset or invitation mail.
pub fn token_in(mail: &Mail) -> String {
    let body = mail.data.replace("=\r\n", "").replace("=3D", "=");
    let start = body.find("token=").expect("mail has a token link") + "token=".len();
    body[start..]
        .chars()
        .take_while(|c| c.is_ascii_hexdigit())
        .collect()
}
