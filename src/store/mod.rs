//! The two storage tiers: the cold store (SeaORM) and the hot store (in-process or Redis).
pub mod cold;
pub mod group_commit;
pub mod hot;
pub mod node_cache;
pub mod pg;

/// The cold-store connection (SQLite or PostgreSQL).
pub type Db = sea_orm::DatabaseConnection;
