//! The worker's part: once a period is over, record it as archived in the cold store (which
//! already holds every entry, written through) with its final entry count, and let its hot
//! copy expire. Reads of `?period=` for a finished period go to the cold store either way.
use super::{boards::Board, boards::HOT_GRACE, error::LeaderboardError, service::STATUS_OK};
use crate::state::AppState;
use entity::{leaderboard_entries as entries, leaderboard_periods as periods, leaderboards};
use sea_orm::{ActiveValue::Set, ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};

/// How often the worker looks for finished periods.
pub const ARCHIVE_EVERY: std::time::Duration = std::time::Duration::from_secs(60);
const LOCK: &str = "leaderboards:archive";
const LOCK_TTL_SECS: u64 = 300;

/// Archives every period that is over. Runs on one worker at a time. Returns how many periods
/// it archived.
pub async fn archive_finished_periods(state: &AppState) -> Result<u64, LeaderboardError> {
    let now = state.now();
    if !state
        .hot
        .locks
        .try_acquire(LOCK, LOCK_TTL_SECS, now)
        .await?
    {
        return Ok(0);
    }
    let result = archive_all(state).await;
    state.hot.locks.release(LOCK).await?;
    result
}

async fn archive_all(state: &AppState) -> Result<u64, LeaderboardError> {
    let open = periods::Entity::find()
        .filter(periods::Column::ArchivedAt.is_null())
        .find_also_related(leaderboards::Entity)
        .all(&state.db)
        .await?;
    let mut archived = 0;
    for (period, board) in open {
        let Some(model) = board else { continue };
        let board = Board::new(model)?;
        let now = state.now();
        if board.current_period(now) == period.period {
            continue;
        }
        let count = entries::Entity::find()
            .filter(entries::Column::BoardId.eq(board.id()))
            .filter(entries::Column::Period.eq(period.period.as_str()))
            .filter(entries::Column::Status.eq(STATUS_OK))
            .count(&state.db)
            .await?;
        periods::Entity::update(periods::ActiveModel {
            board_id: Set(period.board_id),
            period: Set(period.period.clone()),
            archived_at: Set(Some(now)),
            entry_count: Set(Some(count as i64)),
            ..Default::default()
        })
        .exec(&state.db)
        .await?;
        let hot = board.hot(&period.period, now);
        state
            .hot
            .leaderboards
            .expire(&hot, HOT_GRACE.num_seconds() as u64, now)
            .await?;
        tracing::info!(board_id = %board.id(), period = %period.period, entries = count, "archived leaderboard period");
        archived += 1;
    }
    Ok(archived)
}
