pub use super::api_keys::Entity as ApiKeys;
pub use super::events::Entity as Events;
pub use super::game_members::Entity as GameMembers;
pub use super::games::Entity as Games;
pub use super::password_reset_tokens::Entity as PasswordResetTokens;
pub use super::settings::Entity as Settings;
pub use super::users::Entity as Users;
