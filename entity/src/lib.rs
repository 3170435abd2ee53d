//! SeaORM entities for playtrace's cold store, one module per table (sea-orm-cli layout).
pub mod prelude;

pub mod achievement_unlocks;
pub mod achievements;
pub mod alert_history;
pub mod alert_rules;
pub mod api_keys;
pub mod event_schemas;
pub mod event_usage;
pub mod events;
pub mod funnels;
pub mod game_configs;
pub mod game_members;
pub mod games;
pub mod leaderboard_bans;
pub mod leaderboard_entries;
pub mod leaderboard_periods;
pub mod leaderboard_result_deliveries;
pub mod leaderboard_tournament_players;
pub mod leaderboards;
pub mod password_reset_tokens;
pub mod player_data_audit;
pub mod player_identities;
pub mod saves;
pub mod settings;
pub mod users;
