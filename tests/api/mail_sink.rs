//! A real SMTP server for tests, keeping every message it receives: plain SMTP on the test's
//! tokio runtime (no TLS, no AUTH), the commands a client such as lettre sends to deliver a mail.
//! Our own rather than a crate's: the SMTP server crates switch on TLS providers whose C code
//! takes a minute to compile and change the features of the app's own dependencies.
use std::{
    sync::{Arc, Mutex},
    time::Duration,
};
use tokio::{
    io::{AsyncBufReadExt, AsyncWriteExt, BufReader},
    net::{TcpListener, TcpStream},
};

#[derive(Debug, Clone)]
pub struct Mail {
    pub to: Vec<String>,
    pub data: String,
}

type Inbox = Arc<Mutex<Vec<Mail>>>;

pub struct MailSink {
    pub url: String,
    inbox: Inbox,
}

impl MailSink {
    /// Listens on a free local port; each connection is served by a task on the calling
    /// test's runtime, so the sink stops with the test.
    pub fn start() -> Self {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        listener.set_nonblocking(true).unwrap();
        let listener =
            TcpListener::from_std(listener).expect("MailSink::start runs inside a tokio runtime");
        let inbox = Inbox::default();
        let delivered = inbox.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(session(stream, delivered.clone()));
            }
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

const OK: &[u8] = b"250 OK\r\n";

/// One client's SMTP session, until it says QUIT or hangs up. A message goes to the inbox when
/// its DATA ends.
async fn session(stream: TcpStream, inbox: Inbox) -> std::io::Result<()> {
    let (read, mut write) = stream.into_split();
    let mut reader = BufReader::new(read);
    write.write_all(b"220 sink.test ESMTP\r\n").await?;
    let mut recipients = Vec::new();
    let mut line = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line).await? == 0 {
            return Ok(());
        }
        let command = String::from_utf8_lossy(&line).trim_end().to_string();
        let verb = command
            .split_whitespace()
            .next()
            .unwrap_or("")
            .to_ascii_uppercase();
        let reply = match verb.as_str() {
            "EHLO" | "HELO" => b"250 sink.test\r\n".as_slice(),
            "MAIL" | "RSET" => {
                recipients.clear();
                OK
            }
            "RCPT" => {
                recipients.push(forward_path(&command));
                OK
            }
            "DATA" => {
                write
                    .write_all(b"354 End data with <CR><LF>.<CR><LF>\r\n")
                    .await?;
                let data = message(&mut reader).await?;
                inbox.lock().unwrap().push(Mail {
                    to: std::mem::take(&mut recipients),
                    data,
                });
                OK
            }
            "NOOP" => OK,
            "QUIT" => {
                write.write_all(b"221 Bye\r\n").await?;
                return Ok(());
            }
            _ => b"502 Command not implemented\r\n".as_slice(),
        };
        write.write_all(reply).await?;
    }
}

/// The address of `RCPT TO:<address> [parameters]`.
fn forward_path(command: &str) -> String {
    let after_colon = command.split_once(':').map_or("", |(_, rest)| rest).trim();
    let path = after_colon.split_whitespace().next().unwrap_or("");
    path.trim_start_matches('<')
        .trim_end_matches('>')
        .to_string()
}

/// The message text after DATA, up to the line holding a single dot, with the sender's
/// dot-stuffing undone (RFC 5321 4.5.2).
async fn message(
    reader: &mut BufReader<tokio::net::tcp::OwnedReadHalf>,
) -> std::io::Result<String> {
    let mut data = Vec::new();
    let mut line = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line).await? == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        if line == b".\r\n" || line == b".\n" {
            return Ok(String::from_utf8_lossy(&data).into_owned());
        }
        let unstuffed = line.strip_prefix(b".").unwrap_or(&line);
        data.extend_from_slice(unstuffed);
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
