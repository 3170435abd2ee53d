//! The export document, written as it is read: the player's records first (a few rows each),
//! then `events` last, one batch of rows at a time, so a player with millions of events costs
//! the server one batch of memory. A storage failure midway ends the body early (the
//! document is then incomplete JSON, which a client notices), and is logged.
use super::service::{self, PlayerRecords};
use crate::{player_id::PlayerId, store::Db};
use bytes::Bytes;
use futures_util::{stream, Stream, StreamExt};
use poem::{IntoResponse, Response};
use poem_openapi::{
    payload::Payload,
    registry::{MetaSchema, MetaSchemaRef, Registry},
};
use uuid::Uuid;

/// The body: `{"game_id":…,"player_id":…,"exported_at":…,<records>,"events":[…]}`.
pub fn document(
    db: Db,
    game_id: Uuid,
    player: PlayerId,
    exported_at: String,
    records: PlayerRecords,
) -> impl Stream<Item = std::io::Result<Bytes>> + Send + 'static {
    let mut head = serde_json::Map::new();
    head.insert("game_id".into(), game_id.to_string().into());
    head.insert("player_id".into(), player.as_str().into());
    head.insert("exported_at".into(), exported_at.into());
    head.insert(
        "counts".into(),
        serde_json::to_value(&records.counts).unwrap_or_default(),
    );
    head.extend(records.parts);
    let mut opening = serde_json::Value::Object(head).to_string();
    opening.pop(); // the closing brace: the events follow
    opening.push_str(",\"events\":[");

    let mut first = true;
    let rows = service::player_events(db, game_id, player).map(move |batch| match batch {
        Ok(batch) => {
            let mut text = String::new();
            for event in &batch {
                if !std::mem::take(&mut first) {
                    text.push(',');
                }
                text.push_str(&crate::events::export::event_json(event).to_string());
            }
            Ok(Bytes::from(text))
        }
        Err(error) => {
            tracing::error!(error.cause_chain = ?error, "player export stopped midway");
            Err(std::io::Error::other(error))
        }
    });
    stream::once(async move { Ok(Bytes::from(opening)) })
        .chain(rows)
        .chain(stream::once(async { Ok(Bytes::from_static(b"]}")) }))
}

/// A JSON document sent as it is produced, with a download file name.
pub struct StreamedJson {
    pub body: poem::Body,
    pub file_name: String,
}

impl Payload for StreamedJson {
    const CONTENT_TYPE: &'static str = "application/json";

    fn schema_ref() -> MetaSchemaRef {
        MetaSchemaRef::Inline(Box::new(MetaSchema {
            description: Some(
                "The player's data: game_id, player_id, exported_at, counts, \
                 leaderboard_entries, leaderboard_bans, tournaments, leaderboard_results, \
                 achievement_unlocks, saves, presence, player_identities and events (last, in \
                 the order they were stored).",
            ),
            ..MetaSchema::new("object")
        }))
    }

    fn register(_registry: &mut Registry) {}
}

impl IntoResponse for StreamedJson {
    fn into_response(self) -> Response {
        Response::builder()
            .content_type("application/json")
            .header("content-disposition", content_disposition(&self.file_name))
            .body(self.body)
    }
}

/// `attachment; filename="..."` for a file name of any text: characters outside a plain ASCII
/// set become `_` there, and the exact name follows as `filename*` (RFC 6266, UTF-8
/// percent-encoded), which browsers prefer. A plain name is sent alone, as before.
fn content_disposition(file_name: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-.:@|".contains(c);
    let fallback: String = file_name
        .chars()
        .map(|c| if plain(c) { c } else { '_' })
        .collect();
    if fallback == file_name {
        return format!("attachment; filename=\"{file_name}\"");
    }
    let mut encoded = String::new();
    for byte in file_name.bytes() {
        if byte.is_ascii_alphanumeric() || b"!#$&+-.^_`|~".contains(&byte) {
            encoded.push(byte as char);
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    format!("attachment; filename=\"{fallback}\"; filename*=UTF-8''{encoded}")
}

#[cfg(test)]
mod tests {
    use super::content_disposition;

    #[test]
    fn a_file_name_of_any_text_makes_a_valid_header() {
        assert_eq!(
            content_disposition("player-ana@x.json"),
            "attachment; filename=\"player-ana@x.json\""
        );
        assert_eq!(
            content_disposition("player-Zoë \"/\n.json"),
            "attachment; filename=\"player-Zo_____.json\"; \
             filename*=UTF-8''player-Zo%C3%AB%20%22%2F%0A.json"
        );
    }
}
