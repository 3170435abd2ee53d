//! The per-node fan-out of presence messages to WebSocket connections. Each game with at least
//! one local subscriber has a tokio broadcast channel; with Redis, the node also subscribes to
//! that game's pub/sub channel while it has subscribers, so messages published by any node
//! reach it, and unsubscribes when the last one leaves.
use super::super::HotError;
use fred::{
    clients::SubscriberClient,
    interfaces::{EventInterface, PubsubInterface},
};
use parking_lot::Mutex;
use std::{collections::HashMap, sync::Arc};
use tokio::sync::broadcast;
use uuid::Uuid;

/// Messages a slow connection may fall behind by before it skips the oldest.
const BUFFER: usize = 1024;

/// The Redis side of the hub: the subscriber connection and how channels are named.
pub(super) struct RemoteFeed {
    pub subscriber: SubscriberClient,
    /// Full channel name minus the game id, e.g. `pt:pr:feed:`.
    pub channel_prefix: String,
}

pub struct FeedHub {
    senders: Mutex<HashMap<Uuid, broadcast::Sender<Arc<str>>>>,
    /// Serialises subscribing and releasing so a game's Redis subscription always matches
    /// whether it has local subscribers.
    changes: tokio::sync::Mutex<()>,
    remote: Option<RemoteFeed>,
}

impl FeedHub {
    /// A hub for one process (in-process store): publishers deliver straight into it.
    pub fn local() -> Arc<Self> {
        Arc::new(Self {
            senders: Mutex::default(),
            changes: tokio::sync::Mutex::new(()),
            remote: None,
        })
    }

    /// A hub fed by Redis pub/sub: spawns the task that hands received messages to local
    /// subscribers.
    pub(super) fn remote(remote: RemoteFeed) -> Arc<Self> {
        let mut messages = remote.subscriber.message_rx();
        let prefix = remote.channel_prefix.clone();
        let hub = Arc::new(Self {
            senders: Mutex::default(),
            changes: tokio::sync::Mutex::new(()),
            remote: Some(remote),
        });
        let weak = Arc::downgrade(&hub);
        tokio::spawn(async move {
            loop {
                match messages.recv().await {
                    Ok(message) => {
                        let Some(hub) = weak.upgrade() else { break };
                        let game = message
                            .channel
                            .strip_prefix(prefix.as_str())
                            .and_then(|id| Uuid::parse_str(id).ok());
                        if let (Some(game), Some(text)) = (game, message.value.as_str()) {
                            hub.deliver(game, Arc::from(text.as_ref()));
                        }
                    }
                    Err(broadcast::error::RecvError::Lagged(skipped)) => {
                        tracing::warn!(
                            skipped,
                            "presence feed fell behind Redis; messages skipped"
                        );
                    }
                    Err(broadcast::error::RecvError::Closed) => break,
                }
            }
        });
        hub
    }

    /// The Redis channel carrying one game's messages, when Redis backs the hub.
    pub fn channel(&self, game_id: Uuid) -> Option<String> {
        self.remote
            .as_ref()
            .map(|remote| format!("{}{game_id}", remote.channel_prefix))
    }

    /// Hands a message to this node's subscribers of the game (none: dropped).
    pub fn deliver(&self, game_id: Uuid, message: Arc<str>) {
        if let Some(sender) = self.senders.lock().get(&game_id) {
            let _ = sender.send(message);
        }
    }

    pub async fn subscribe(self: &Arc<Self>, game_id: Uuid) -> Result<FeedSubscription, HotError> {
        let _changing = self.changes.lock().await;
        let existing = self
            .senders
            .lock()
            .get(&game_id)
            .map(broadcast::Sender::subscribe);
        let receiver = match existing {
            Some(receiver) => receiver,
            None => {
                let (sender, receiver) = broadcast::channel(BUFFER);
                self.senders.lock().insert(game_id, sender);
                if let (Some(remote), Some(channel)) = (&self.remote, self.channel(game_id)) {
                    if let Err(error) = remote.subscriber.subscribe(channel).await {
                        self.senders.lock().remove(&game_id);
                        return Err(error.into());
                    }
                }
                receiver
            }
        };
        Ok(FeedSubscription {
            receiver: Some(receiver),
            hub: self.clone(),
            game_id,
        })
    }

    /// Drops the game's channel (and its Redis subscription) once nobody here listens.
    async fn release(&self, game_id: Uuid) {
        let _changing = self.changes.lock().await;
        let unused = {
            let mut senders = self.senders.lock();
            let unused = senders
                .get(&game_id)
                .is_some_and(|sender| sender.receiver_count() == 0);
            if unused {
                senders.remove(&game_id);
            }
            unused
        };
        if let (true, Some(remote), Some(channel)) = (unused, &self.remote, self.channel(game_id)) {
            if let Err(error) = remote.subscriber.unsubscribe(channel).await {
                tracing::warn!(error.cause_chain = ?error, "unsubscribing from a presence feed failed");
            }
        }
    }

    /// Games with at least one subscriber on this node (for tests and diagnostics).
    pub fn subscribed_games(&self) -> usize {
        self.senders.lock().len()
    }
}

/// One listener's view of a game's feed. Dropping it unsubscribes.
pub struct FeedSubscription {
    receiver: Option<broadcast::Receiver<Arc<str>>>,
    hub: Arc<FeedHub>,
    game_id: Uuid,
}

impl FeedSubscription {
    /// The next message as JSON text; `None` when the feed has closed. A listener that fell
    /// more than the buffer behind skips the oldest messages.
    pub async fn recv(&mut self) -> Option<Arc<str>> {
        let receiver = self.receiver.as_mut()?;
        loop {
            match receiver.recv().await {
                Ok(message) => return Some(message),
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    }
}

impl Drop for FeedSubscription {
    fn drop(&mut self) {
        drop(self.receiver.take());
        let hub = self.hub.clone();
        let game_id = self.game_id;
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move { hub.release(game_id).await });
        }
    }
}
