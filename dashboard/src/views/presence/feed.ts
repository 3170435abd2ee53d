// The game's live players, kept in one Map: filled by paging GET /v1/activity/live (1000 at a
// time, in the background) and kept current by the WebSocket feed. Changes are batched and
// published at most every 250 ms as a version number, so 10,000 players and a busy feed never
// make React re-render more than four times a second.
import { useCallback, useEffect, useRef, useState } from 'react';
import { api, ApiError, storedToken, unwrap, messageOf, type Schemas } from '../../api/client';

/** One player as the view needs it (timestamps in epoch milliseconds). */
export interface LivePlayer {
  id: string;
  status: string;
  activity: string;
  details: unknown;
  /** `details` as one short line, computed once per update. */
  summary: string;
  updatedAt: number;
  sessionId?: string | null;
}

export type Connection = 'connecting' | 'live' | 'reconnecting' | 'closed';

export interface LoadProgress {
  /** Players read from the live list so far in the current full load. */
  loaded: number;
  /** True once the first full load finished. */
  ready: boolean;
  /** True while a full load (first or after a reconnect) runs. */
  syncing: boolean;
  error: string | null;
}

type LiveEntry = Schemas['LiveActivity'];

type FeedMessage =
  | {
      type: 'activity.updated';
      player_id: string;
      status: string;
      activity: string;
      details: unknown;
      session_id?: string | null;
      updated_at: string;
    }
  | { type: 'activity.cleared'; player_id: string; cleared_at: string }
  | { type: 'presence.offline'; player_id: string; last_updated: string };

/** A player silent this long is offline (the server's rule). */
export const OFFLINE_AFTER_MS = 10 * 60_000;
/** "All Active": updated within this long. */
export const ACTIVE_WITHIN_MS = 5 * 60_000;

const PAGE = 1000;
const MAX_OFFSET = 100_000;
const FLUSH_EVERY_MS = 250;
const MAX_BACKOFF_MS = 30_000;

export function summarize(details: unknown): string {
  if (details === null || details === undefined) return '';
  if (typeof details !== 'object') return String(details);
  const parts: string[] = [];
  for (const [key, value] of Object.entries(details as Record<string, unknown>)) {
    const text = value !== null && typeof value === 'object' ? JSON.stringify(value) : String(value);
    parts.push(`${key}: ${text.length > 40 ? `${text.slice(0, 39)}…` : text}`);
    if (parts.length === 6) {
      parts.push('…');
      break;
    }
  }
  return parts.join(' · ');
}

function parseTime(iso: string): number {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? Date.now() : ms;
}

function streamUrl(gameId: string): string {
  const url = new URL('/v1/activity/stream', window.location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.searchParams.set('game_id', gameId);
  url.searchParams.set('access_token', storedToken() ?? '');
  return url.toString();
}

export function usePresenceFeed(gameId: string) {
  const players = useRef(new Map<string, LivePlayer>());
  const [version, setVersion] = useState(0);
  const [connection, setConnection] = useState<Connection>('connecting');
  const [closedReason, setClosedReason] = useState<string | null>(null);
  const [progress, setProgress] = useState<LoadProgress>({ loaded: 0, ready: false, syncing: true, error: null });
  const resyncRef = useRef<() => void>(() => {});

  useEffect(() => {
    const map = new Map<string, LivePlayer>();
    players.current = map;
    setVersion((v) => v + 1);
    setProgress({ loaded: 0, ready: false, syncing: true, error: null });
    setConnection('connecting');
    setClosedReason(null);

    let disposed = false;
    let flushTimer: number | null = null;
    let changed = false;

    // State of the full load in progress (null when none runs).
    let generation = 0;
    let sync: { removed: number; seen: Set<string>; tombstones: Map<string, number> } | null = null;

    function publish() {
      if (flushTimer !== null || disposed) return;
      flushTimer = window.setTimeout(() => {
        flushTimer = null;
        if (disposed || !changed) return;
        changed = false;
        setVersion((v) => v + 1);
      }, FLUSH_EVERY_MS);
    }

    function upsert(player: LivePlayer, fromPage: boolean) {
      const known = map.get(player.id);
      if (known && (fromPage ? known.updatedAt >= player.updatedAt : known.updatedAt > player.updatedAt)) return;
      map.set(player.id, player);
      changed = true;
    }

    function remove(id: string, at: number, onlyIfOlder: boolean) {
      const known = map.get(id);
      if (sync) {
        sync.removed += 1;
        sync.tombstones.set(id, Math.max(at, sync.tombstones.get(id) ?? 0));
      }
      if (!known || (onlyIfOlder && known.updatedAt > at)) return;
      map.delete(id);
      changed = true;
    }

    function onMessage(raw: string) {
      let message: FeedMessage;
      try {
        message = JSON.parse(raw) as FeedMessage;
      } catch {
        return;
      }
      if (!message || typeof message.player_id !== 'string') return;
      switch (message.type) {
        case 'activity.updated':
          sync?.seen.add(message.player_id);
          sync?.tombstones.delete(message.player_id);
          upsert(
            {
              id: message.player_id,
              status: message.status,
              activity: message.activity,
              details: message.details,
              summary: summarize(message.details),
              updatedAt: parseTime(message.updated_at),
              sessionId: message.session_id,
            },
            false,
          );
          break;
        case 'activity.cleared':
          remove(message.player_id, parseTime(message.cleared_at), false);
          break;
        case 'presence.offline':
          remove(message.player_id, parseTime(message.last_updated), true);
          break;
        default:
          return;
      }
      publish();
    }

    /**
     * Reads the whole live list, page by page. Players cleared meanwhile shift later pages
     * up, so each next offset steps back by the removals seen (duplicates are harmless, the
     * Map keeps one). Players the load never saw, and the feed did not mention, are gone.
     */
    async function fullLoad() {
      const mine = ++generation;
      const state = { removed: 0, seen: new Set<string>(), tombstones: new Map<string, number>() };
      sync = state;
      setProgress((p) => ({ ...p, loaded: 0, syncing: true, error: null }));
      let offset = 0;
      let loaded = 0;
      try {
        for (;;) {
          const removedBefore = state.removed;
          const page: LiveEntry[] = await unwrap(
            api.GET('/v1/activity/live', { params: { query: { game_id: gameId, limit: PAGE, offset } } }),
          );
          if (disposed || mine !== generation) return;
          for (const entry of page) {
            state.seen.add(entry.player_id);
            const updatedAt = parseTime(entry.updated_at);
            const cleared = state.tombstones.get(entry.player_id);
            if (cleared !== undefined && updatedAt <= cleared) continue;
            upsert(
              {
                id: entry.player_id,
                status: entry.status,
                activity: entry.activity,
                details: entry.details,
                summary: summarize(entry.details),
                updatedAt,
              },
              true,
            );
          }
          loaded += page.length;
          setProgress((p) => ({ ...p, loaded }));
          // Show the first page at once; later ones ride the usual 250 ms batching.
          if (offset === 0 && changed) {
            changed = false;
            setVersion((v) => v + 1);
          } else {
            publish();
          }
          if (page.length < PAGE) break;
          offset = Math.max(0, offset + page.length - (state.removed - removedBefore));
          if (offset > MAX_OFFSET) break;
        }
        for (const id of Array.from(map.keys())) {
          if (!state.seen.has(id)) {
            map.delete(id);
            changed = true;
          }
        }
        if (changed) {
          changed = false;
          setVersion((v) => v + 1);
        }
        setProgress({ loaded, ready: true, syncing: false, error: null });
      } catch (e) {
        if (disposed || mine !== generation) return;
        setProgress((p) => ({ ...p, syncing: false, error: messageOf(e) }));
        if (e instanceof ApiError && (e.status === 403 || e.status === 404)) {
          // No access to this game: retrying the feed cannot help.
          stopped = true;
          if (retryTimer !== null) window.clearTimeout(retryTimer);
          socket?.close();
          setConnection('closed');
        }
      } finally {
        if (mine === generation) sync = null;
      }
    }
    resyncRef.current = () => void fullLoad();

    // The socket: every (re)connection starts a full load, since messages may have been
    // missed while it was down. Drops reconnect with exponential backoff (1 s up to 30 s).
    let socket: WebSocket | null = null;
    let attempt = 0;
    let retryTimer: number | null = null;
    let loadedOnce = false;
    let stopped = false;

    function connect() {
      retryTimer = null;
      if (disposed || stopped) return;
      const ws = new WebSocket(streamUrl(gameId));
      socket = ws;
      ws.onopen = () => {
        if (disposed || socket !== ws) return;
        attempt = 0;
        setConnection('live');
        loadedOnce = true;
        void fullLoad();
      };
      ws.onmessage = (event) => {
        if (typeof event.data === 'string') onMessage(event.data);
      };
      ws.onclose = (event) => {
        if (disposed || socket !== ws) return;
        socket = null;
        if (stopped) return;
        if (event.code === 1008) {
          setConnection('closed');
          setClosedReason(event.reason || 'Access to this game was revoked.');
          return;
        }
        setConnection('reconnecting');
        if (!loadedOnce) {
          // Without the feed, still show the list (and surface a refused token or access).
          loadedOnce = true;
          void fullLoad();
        }
        const delay = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** attempt) * (0.8 + Math.random() * 0.4);
        attempt += 1;
        retryTimer = window.setTimeout(connect, delay);
      };
    }
    connect();

    // Players silent for 10 minutes are offline even if no notice came (no worker running).
    const sweep = window.setInterval(() => {
      const cutoff = Date.now() - OFFLINE_AFTER_MS;
      let dropped = false;
      for (const [id, player] of map) {
        if (player.updatedAt <= cutoff) {
          map.delete(id);
          dropped = true;
        }
      }
      if (dropped) {
        changed = true;
        publish();
      }
    }, 5000);

    return () => {
      disposed = true;
      generation += 1;
      if (flushTimer !== null) window.clearTimeout(flushTimer);
      if (retryTimer !== null) window.clearTimeout(retryTimer);
      window.clearInterval(sweep);
      if (socket) {
        socket.onclose = null;
        socket.close();
      }
    };
  }, [gameId]);

  const reload = useCallback(() => resyncRef.current(), []);
  return { players, version, connection, closedReason, progress, reload };
}

/** A timestamp that moves every `ms`, for "N s ago" and the 5-minute window. */
export function useNow(ms: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), ms);
    return () => window.clearInterval(timer);
  }, [ms]);
  return now;
}
