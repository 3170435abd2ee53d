//! The WebSocket side of the live feed: forwards one game's presence messages to one dashboard
//! connection until either side goes away.
use crate::store::hot::presence::FeedSubscription;
use futures_util::{SinkExt, StreamExt};
use poem::web::websocket::{Message, WebSocketStream};
use std::time::Duration;

/// Keep-alive ping interval: lets proxies keep the connection open and notices dead peers.
const PING_EVERY: Duration = Duration::from_secs(30);

pub async fn pump(socket: WebSocketStream, mut feed: FeedSubscription) {
    let (mut sink, mut incoming) = socket.split();
    let mut ping = tokio::time::interval(PING_EVERY);
    ping.tick().await;
    loop {
        tokio::select! {
            message = feed.recv() => {
                let Some(message) = message else { break };
                if sink.send(Message::Text(message.to_string())).await.is_err() {
                    break;
                }
            }
            received = incoming.next() => match received {
                // The feed is one-way; anything the dashboard sends besides a close is ignored.
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                Some(Ok(_)) => {}
            },
            _ = ping.tick() => {
                if sink.send(Message::Ping(Vec::new())).await.is_err() {
                    break;
                }
            }
        }
    }
    let _ = sink.close().await;
}
