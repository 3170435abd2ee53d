//! Slow and idle clients (issue 29): raw TCP sockets on loopback against a node with short
//! timeouts, so a socket that never finishes its headers, a body trickled a byte at a time, an
//! idle kept-alive connection and one connection too many are each let go within seconds.
use crate::helpers::{spawn_app_with, TestApp};
use std::time::{Duration, Instant};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpStream,
};

/// A node whose connection timeouts are short enough for a test.
async fn node(max_connections: u32) -> TestApp {
    spawn_app_with(|settings| {
        settings.header_timeout_secs = 1;
        settings.body_timeout_secs = 1;
        settings.keep_alive_timeout_secs = 1;
        settings.max_connections = max_connections;
    })
    .await
}

async fn connect(app: &TestApp) -> TcpStream {
    TcpStream::connect(app.address.trim_start_matches("http://"))
        .await
        .expect("the node accepts")
}

/// Reads until the node closes the connection (or resets it), within `limit`; returns what it
/// sent. Panics when the connection is still open after `limit`.
async fn read_until_closed(stream: &mut TcpStream, limit: Duration) -> String {
    let mut received = Vec::new();
    let outcome = tokio::time::timeout(limit, async {
        let mut buffer = [0u8; 4096];
        loop {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => return,
                Ok(n) => received.extend_from_slice(&buffer[..n]),
            }
        }
    })
    .await;
    let text = String::from_utf8_lossy(&received).into_owned();
    assert!(
        outcome.is_ok(),
        "the connection is still open after {limit:?}; received so far: {text:?}"
    );
    text
}

/// Reads one whole answer to a `GET /healthz` (small, with a Content-Length) without waiting
/// for the connection to close.
async fn read_answer(stream: &mut TcpStream) -> String {
    let mut received = Vec::new();
    let mut buffer = [0u8; 4096];
    tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            let n = stream.read(&mut buffer).await.expect("read");
            assert!(n > 0, "closed before the answer was complete");
            received.extend_from_slice(&buffer[..n]);
            let text = String::from_utf8_lossy(&received);
            if let Some((head, body)) = text.split_once("\r\n\r\n") {
                let length = head
                    .lines()
                    .find_map(|line| {
                        let (name, value) = line.split_once(':')?;
                        name.eq_ignore_ascii_case("content-length")
                            .then(|| value.trim().parse::<usize>().ok())?
                    })
                    .unwrap_or(0);
                if body.len() >= length {
                    return;
                }
            }
        }
    })
    .await
    .expect("an answer within 5 s");
    String::from_utf8_lossy(&received).into_owned()
}

#[tokio::test]
async fn a_client_that_trickles_its_headers_is_disconnected() {
    let app = node(100).await;
    let mut stream = connect(&app).await;
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nhost: x\r\n")
        .await
        .unwrap();

    // Act: one more header byte every 200 ms, never the blank line that ends the headers.
    let started = Instant::now();
    let drip = async {
        loop {
            tokio::time::sleep(Duration::from_millis(200)).await;
            if stream.write_all(b"x").await.is_err() {
                return;
            }
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(4), drip).await;

    // Assert: the node let go well before the 4 s the client kept trickling.
    let mut stream = stream;
    let _ = read_until_closed(&mut stream, Duration::from_millis(100)).await;
    assert!(
        started.elapsed() < Duration::from_millis(3500),
        "closed after {:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_connection_that_sends_nothing_is_closed_after_the_header_timeout() {
    let app = node(100).await;
    let mut stream = connect(&app).await;
    let started = Instant::now();
    read_until_closed(&mut stream, Duration::from_secs(3)).await;
    assert!(started.elapsed() >= Duration::from_millis(900));
}

#[tokio::test]
async fn a_body_trickled_a_byte_at_a_time_is_answered_408_and_closed() {
    let app = node(100).await;
    let mut stream = connect(&app).await;
    stream
        .write_all(
            b"POST /v1/auth/login HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 200\r\n\r\n{",
        )
        .await
        .unwrap();
    let started = Instant::now();

    // Act: a byte every 200 ms, for longer than the body timeout.
    let mut answer = Vec::new();
    let mut buffer = [0u8; 4096];
    let outcome = tokio::time::timeout(Duration::from_secs(4), async {
        loop {
            tokio::select! {
                read = stream.read(&mut buffer) => match read {
                    Ok(0) | Err(_) => return,
                    Ok(n) => answer.extend_from_slice(&buffer[..n]),
                },
                _ = tokio::time::sleep(Duration::from_millis(200)) => {
                    let _ = stream.write_all(b" ").await;
                }
            }
        }
    })
    .await;

    // Assert
    let answer = String::from_utf8_lossy(&answer);
    assert!(outcome.is_ok(), "still open after 4 s; received {answer:?}");
    assert!(
        answer.starts_with("HTTP/1.1 408"),
        "answered {answer:?} after {:?}",
        started.elapsed()
    );
    assert!(answer.to_ascii_lowercase().contains("connection: close"));
    assert!(answer.contains(r#""error":"#), "{answer}");
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[tokio::test]
async fn an_idle_kept_alive_connection_is_closed_after_the_keep_alive_timeout() {
    let app = node(100).await;
    let mut stream = connect(&app).await;
    let request = b"GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n";

    // A second request within the timeout is served on the same connection.
    stream.write_all(request).await.unwrap();
    assert!(read_answer(&mut stream).await.starts_with("HTTP/1.1 200"));
    tokio::time::sleep(Duration::from_millis(400)).await;
    stream.write_all(request).await.unwrap();
    assert!(read_answer(&mut stream).await.starts_with("HTTP/1.1 200"));

    // Then, left idle, the connection is closed.
    let idle_from = Instant::now();
    read_until_closed(&mut stream, Duration::from_secs(3)).await;
    assert!(idle_from.elapsed() >= Duration::from_millis(900));
}

#[tokio::test]
async fn a_connection_over_the_cap_is_answered_503_and_a_freed_slot_serves_again() {
    let app = spawn_app_with(|settings| {
        settings.header_timeout_secs = 30;
        settings.keep_alive_timeout_secs = 30;
        settings.max_connections = 2;
    })
    .await;
    let mut first = connect(&app).await;
    let second = connect(&app).await;
    first
        .write_all(b"GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n")
        .await
        .unwrap();
    assert!(read_answer(&mut first).await.starts_with("HTTP/1.1 200"));

    // Act: a third connection while two are open.
    let mut third = connect(&app).await;
    let _ = third
        .write_all(b"GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n")
        .await;
    let answer = read_until_closed(&mut third, Duration::from_secs(3)).await;

    // Assert
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer:?}");
    let lower = answer.to_ascii_lowercase();
    assert!(lower.contains("retry-after: 1"), "{answer}");
    assert!(answer.contains(r#"{"error":"#), "{answer}");

    // A slot freed by a closed connection serves the next one.
    drop(second);
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let mut next = connect(&app).await;
        next.write_all(b"GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n")
            .await
            .unwrap();
        if read_answer(&mut next).await.starts_with("HTTP/1.1 200") {
            break;
        }
        assert!(Instant::now() < deadline, "no slot came free");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_quiet_websocket_feed_outlives_the_keep_alive_timeout() {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::{client::IntoClientRequest, Message};
    let app = node(100).await;
    let (token, game_id, _key) = app.game_with_key().await;
    let mut request = format!(
        "{}/v1/activity/stream?game_id={game_id}",
        app.address.replace("http://", "ws://")
    )
    .into_client_request()
    .unwrap();
    request
        .headers_mut()
        .insert("authorization", format!("Bearer {token}").parse().unwrap());
    let (mut socket, _) = tokio_tungstenite::connect_async(request)
        .await
        .expect("the feed opens");

    // Act: quiet for twice the header and keep-alive timeouts.
    tokio::time::sleep(Duration::from_millis(2500)).await;

    // Assert: the feed still answers a ping.
    socket.send(Message::Ping(vec![1].into())).await.unwrap();
    let answer = tokio::time::timeout(Duration::from_secs(3), async {
        loop {
            match socket.next().await {
                Some(Ok(Message::Pong(_))) => return true,
                Some(Ok(_)) => continue,
                _ => return false,
            }
        }
    })
    .await;
    assert_eq!(answer, Ok(true), "the feed was closed");
}
