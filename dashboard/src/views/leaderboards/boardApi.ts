// The reads of one board the tabs share: its periods, its bans, a page of entries and one
// player's entry.
import { api, unwrap } from '../../api/client';

interface BoardRef {
  gameId: string;
  board: string;
}

function path({ gameId, board }: BoardRef) {
  return { game_id: gameId, board_name: board };
}

export function loadPeriods(ref: BoardRef) {
  return unwrap(api.GET('/v1/games/{game_id}/leaderboards/{board_name}/periods', { params: { path: path(ref) } }));
}

export function loadBans(ref: BoardRef) {
  return unwrap(api.GET('/v1/games/{game_id}/leaderboards/{board_name}/bans', { params: { path: path(ref) } }));
}

export function loadEntries(
  ref: BoardRef,
  query: { status: 'ok' | 'suspicious' | 'all'; period?: string; limit: number; offset: number; player_id?: string },
) {
  return unwrap(
    api.GET('/v1/games/{game_id}/leaderboards/{board_name}/entries', {
      params: { path: path(ref), query: { ...query, period: query.period || undefined } },
    }),
  );
}

export function banPlayer(ref: BoardRef, playerId: string) {
  return unwrap(
    api.POST('/v1/games/{game_id}/leaderboards/{board_name}/entries/{player_id}/ban', {
      params: { path: { ...path(ref), player_id: playerId } },
    }),
  );
}

export function unbanPlayer(ref: BoardRef, playerId: string) {
  return unwrap(
    api.DELETE('/v1/games/{game_id}/leaderboards/{board_name}/entries/{player_id}/ban', {
      params: { path: { ...path(ref), player_id: playerId } },
    }),
  );
}

export function approveEntry(ref: BoardRef, playerId: string, period: string) {
  return unwrap(
    api.POST('/v1/games/{game_id}/leaderboards/{board_name}/entries/{player_id}/approve', {
      params: { path: { ...path(ref), player_id: playerId }, query: period ? { period } : undefined },
    }),
  );
}

export function loadDeliveries(ref: BoardRef) {
  return unwrap(api.GET('/v1/games/{game_id}/leaderboards/{board_name}/deliveries', { params: { path: path(ref) } }));
}
