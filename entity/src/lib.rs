//! SeaORM entities for playtrace's cold store, one module per table (sea-orm-cli layout).
pub mod prelude;

pub mod alert_history;
pub mod alert_rules;
pub mod api_keys;
pub mod events;
pub mod funnels;
pub mod game_members;
pub mod games;
pub mod password_reset_tokens;
pub mod settings;
pub mod users;
