//! The WebSocket side of the live feed: forwards one game's presence messages to one dashboard
//! connection until either side goes away, or the user loses access to the game (removed from
//! its members, or the game deleted: announced on the feed itself, so on every node).
use crate::{
    games::{access::Role, require_role},
    state::AppState,
    store::hot::presence::{revokes, FeedSubscription},
};
use futures_util::{SinkExt, StreamExt};
use poem::web::websocket::{CloseCode, Message, WebSocketStream};
use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::Duration,
};
use uuid::Uuid;

/// The live feeds each user holds open on this node, capped by `--max-feeds-per-user`: one
/// token could otherwise hold thousands of sockets (and their subscriptions) open. Per node:
/// behind a balancer a user may hold the cap on each node.
#[derive(Clone, Default)]
pub struct FeedSlots(Arc<Mutex<HashMap<Uuid, u32>>>);

/// One open feed of a user; dropping it gives the slot back.
pub struct FeedSlot {
    slots: FeedSlots,
    user_id: Uuid,
}

impl FeedSlots {
    /// A slot for one more feed of `user_id`, unless it holds `cap` already.
    pub fn take(&self, user_id: Uuid, cap: u32) -> Option<FeedSlot> {
        let mut open = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let held = open.entry(user_id).or_default();
        if *held >= cap {
            return None;
        }
        *held += 1;
        Some(FeedSlot {
            slots: self.clone(),
            user_id,
        })
    }
}

impl Drop for FeedSlot {
    fn drop(&mut self) {
        let mut open = self
            .slots
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(held) = open.get_mut(&self.user_id) {
            *held -= 1;
            if *held == 0 {
                open.remove(&self.user_id);
            }
        }
    }
}

/// Keep-alive ping interval: lets proxies keep the connection open and notices dead peers.
const PING_EVERY: Duration = Duration::from_secs(30);

/// Whose connection this is, to check again when the game's access changes.
pub struct Access {
    pub state: AppState,
    pub user_id: Uuid,
    pub game_id: Uuid,
}

impl Access {
    async fn still_granted(&self) -> bool {
        require_role(&self.state.db, self.user_id, self.game_id, Role::Viewer)
            .await
            .is_ok()
    }
}

pub async fn pump(
    socket: WebSocketStream,
    mut feed: FeedSubscription,
    access: Access,
    _slot: FeedSlot,
) {
    let _open = crate::telemetry::OpenFeed::open();
    let (mut sink, mut incoming) = socket.split();
    let mut ping = tokio::time::interval(PING_EVERY);
    ping.tick().await;
    loop {
        tokio::select! {
            message = feed.recv() => {
                let Some(message) = message else { break };
                match revokes(&message, access.user_id) {
                    None => {
                        if sink.send(Message::Text(message.to_string())).await.is_err() {
                            break;
                        }
                    }
                    Some(true) if !access.still_granted().await => {
                        let _ = sink
                            .send(Message::Close(Some((
                                CloseCode::Policy,
                                "Access to this game was revoked".to_string(),
                            ))))
                            .await;
                        break;
                    }
                    Some(_) => {}
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
