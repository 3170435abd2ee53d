// What the leaderboard pages share: the words for orders and periods, score and bound
// formatting, and the UTC date-time field conversions.
import type { Schemas } from '../../api/client';
import { formatExact } from '../../ui/format';

export type Board = Schemas['LeaderboardDefinition'];

export const ORDERS: { value: string; label: string }[] = [
  { value: 'higher', label: 'Higher is better' },
  { value: 'lower', label: 'Lower is better' },
];

export const OPERATORS: { value: string; label: string; hint: string }[] = [
  { value: 'best', label: 'Keep the best', hint: "A score replaces the player's entry only when it is better." },
  { value: 'latest', label: 'Keep the latest', hint: "Every score replaces the player's entry." },
  { value: 'increment', label: 'Add up', hint: "Every score is added to the player's entry (points, kills)." },
  { value: 'decrement', label: 'Subtract', hint: "Every score is subtracted from the player's entry." },
];

export function operatorLabel(operator: string): string {
  return OPERATORS.find((o) => o.value === operator)?.label ?? operator;
}

export const PERIODS: { value: string; label: string; hint: string }[] = [
  { value: 'all_time', label: 'All time', hint: 'Never resets (unless a one-time reset is set).' },
  { value: 'daily', label: 'Daily', hint: 'A new board every day at 00:00 UTC.' },
  { value: 'weekly', label: 'Weekly', hint: 'A new board every ISO week, Monday 00:00 UTC.' },
  { value: 'monthly', label: 'Monthly', hint: 'A new board on the 1st of every month, 00:00 UTC.' },
];

/** The period select's choice of a cron reset schedule instead of one of the periods. */
export const SCHEDULE_CHOICE = 'schedule';

export const PAGE_SIZE = 25;

export function orderLabel(order: string): string {
  return ORDERS.find((o) => o.value === order)?.label ?? order;
}

export function periodLabel(period: string): string {
  return PERIODS.find((p) => p.value === period)?.label ?? period;
}

/** A score as every leaderboard view shows it: grouped, and with every decimal it was sent with. */
export function formatScore(score: number | null | undefined): string {
  return formatExact(score);
}

/** "0 to 1,000", "at least 0", "at most 1,000" or "None". */
export function boundsText(board: Pick<Board, 'min_score' | 'max_score'>): string {
  const min = board.min_score;
  const max = board.max_score;
  if (min != null && max != null) return `${formatScore(min)} to ${formatScore(max)}`;
  if (min != null) return `At least ${formatScore(min)}`;
  if (max != null) return `At most ${formatScore(max)}`;
  return 'None';
}

export function hasBounds(board: Pick<Board, 'min_score' | 'max_score'>): boolean {
  return board.min_score != null || board.max_score != null;
}

/** Why a held entry is suspicious, from the board's bounds. */
export function suspicionReason(board: Pick<Board, 'min_score' | 'max_score'>, score: number): string {
  if (board.max_score != null && score > board.max_score) return `Above the maximum (${formatScore(board.max_score)})`;
  if (board.min_score != null && score < board.min_score) return `Below the minimum (${formatScore(board.min_score)})`;
  return 'Outside the bounds when submitted';
}

/** A period key as people read it: `all_time` as "All time", `since-2026-12-01` as "Since 2026-12-01". */
export function periodKeyLabel(key: string): string {
  if (key === 'all_time') return 'All time';
  // A manual reset's key carries the instant to the microsecond (two resets never share one);
  // people read it to the second.
  if (key.startsWith('since-')) return `Since ${key.slice(6).replace('T', ' ').replace(/(\.\d+)?Z$/, ' UTC')}`;
  return key;
}

/** An RFC 3339 instant as the value of a `datetime-local` field read as UTC. */
export function toUtcInput(iso: string | null | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  return date.toISOString().slice(0, 16);
}

/** A `datetime-local` value (read as UTC) as an RFC 3339 instant. */
export function fromUtcInput(value: string): string {
  return new Date(`${value.length === 16 ? `${value}:00` : value}Z`).toISOString().replace('.000Z', 'Z');
}

export function boardPath(gameId: string, name: string): string {
  return `/games/${gameId}/leaderboards/${encodeURIComponent(name)}`;
}

/** What every tab of a board's page gets: the board, whether the caller may edit, and a
 * version that changes (and reloads the tab) after any moderation action. */
export interface BoardTabProps {
  gameId: string;
  board: Board;
  canEdit: boolean;
  version: number;
  onChanged(): void;
}
