//! Schema migrations for playtrace's cold store. Every migration runs on both SQLite and PostgreSQL.
pub use sea_orm_migration::prelude::*;

mod m20261121_000001_create_accounts_games_keys;
mod m20261121_000002_create_events;
mod m20261121_000003_create_leaderboards;
mod m20261121_000004_create_achievements_presence;
mod m20261121_000005_create_funnels_alerts;
mod m20261121_000006_create_config_saves;
mod m20261121_000007_shard_event_usage;
mod m20261122_000008_events_game_checked_per_write;
mod m20261123_000009_add_game_allowed_origins;
mod m20261123_000010_player_identity;
mod m20261125_000011_create_player_data_audit;
mod m20261125_000012_add_game_retention_days;
mod m20261125_000013_create_analytics_aggregates;
mod m20261125_000014_add_game_event_quota;
mod m20261126_000015_create_sign_in_failures;
mod m20261126_000016_add_user_token_generation;
mod m20261126_000017_add_user_reset_mailed_at;
mod m20261126_000018_create_analytics_paying_days;
mod m20261126_000019_index_events_by_player_step;
mod m20261126_000020_create_analytics_sessions;
mod m20261127_000021_add_alert_rule_metric;
mod m20261127_000030_add_leaderboards_from_scores;
mod m20261127_000031_add_score_operators;
mod m20261127_000032_add_leaderboard_reset_at;
mod m20261127_000040_create_analytics_progression_economy;
mod m20261127_000055_add_game_currency;
mod m20261127_000060_add_leaderboard_tournaments;
mod m20261127_000070_create_leaderboard_result_deliveries;
mod m20261127_000080_add_leaderboard_reset_schedule;
mod m20261127_000085_index_unfolded_aggregate_rows;
mod m20261127_000095_add_player_hour_minutes;
mod m20261127_000096_create_sign_in_failures_by_client;
mod m20261128_000097_add_player_day_seconds;
mod m20261129_000098_index_player_days_by_player;
mod m20261207_000099_add_player_day_previous_last_second;

pub struct Migrator;

#[async_trait::async_trait]
impl MigratorTrait for Migrator {
    fn migrations() -> Vec<Box<dyn MigrationTrait>> {
        vec![
            Box::new(m20261121_000001_create_accounts_games_keys::Migration),
            Box::new(m20261121_000002_create_events::Migration),
            Box::new(m20261121_000003_create_leaderboards::Migration),
            Box::new(m20261121_000004_create_achievements_presence::Migration),
            Box::new(m20261121_000005_create_funnels_alerts::Migration),
            Box::new(m20261121_000006_create_config_saves::Migration),
            Box::new(m20261121_000007_shard_event_usage::Migration),
            Box::new(m20261122_000008_events_game_checked_per_write::Migration),
            Box::new(m20261123_000009_add_game_allowed_origins::Migration),
            Box::new(m20261123_000010_player_identity::Migration),
            Box::new(m20261125_000011_create_player_data_audit::Migration),
            Box::new(m20261125_000012_add_game_retention_days::Migration),
            Box::new(m20261125_000013_create_analytics_aggregates::Migration),
            Box::new(m20261125_000014_add_game_event_quota::Migration),
            Box::new(m20261126_000015_create_sign_in_failures::Migration),
            Box::new(m20261126_000016_add_user_token_generation::Migration),
            Box::new(m20261126_000017_add_user_reset_mailed_at::Migration),
            Box::new(m20261126_000018_create_analytics_paying_days::Migration),
            Box::new(m20261126_000019_index_events_by_player_step::Migration),
            Box::new(m20261126_000020_create_analytics_sessions::Migration),
            Box::new(m20261127_000021_add_alert_rule_metric::Migration),
            Box::new(m20261127_000030_add_leaderboards_from_scores::Migration),
            Box::new(m20261127_000031_add_score_operators::Migration),
            Box::new(m20261127_000032_add_leaderboard_reset_at::Migration),
            Box::new(m20261127_000040_create_analytics_progression_economy::Migration),
            Box::new(m20261127_000055_add_game_currency::Migration),
            Box::new(m20261127_000060_add_leaderboard_tournaments::Migration),
            Box::new(m20261127_000070_create_leaderboard_result_deliveries::Migration),
            Box::new(m20261127_000080_add_leaderboard_reset_schedule::Migration),
            Box::new(m20261127_000085_index_unfolded_aggregate_rows::Migration),
            Box::new(m20261127_000095_add_player_hour_minutes::Migration),
            Box::new(m20261127_000096_create_sign_in_failures_by_client::Migration),
            Box::new(m20261128_000097_add_player_day_seconds::Migration),
            Box::new(m20261129_000098_index_player_days_by_player::Migration),
            Box::new(m20261207_000099_add_player_day_previous_last_second::Migration),
        ]
    }
}
