// The client a game holds: one per game key, made by init().
import { DEFAULT_BACKOFF, type BackoffOptions } from './backoff.js';
import { systemClock, type Clock, type TimerHandle } from './clock.js';
import { PlaytraceError, SaveConflictError } from './errors.js';
import { EventQueue, type Problem, type QueueStats } from './events.js';
import { atProcessExit } from './exit.js';
import { eventId, uuid } from './ids.js';
import { Persisted } from './persist.js';
import { DEFAULT_RETRY, withRetries, type RetryPolicy } from './retry.js';
import { SCORE_WINDOW_MS, ScoreThrottle, type ScoreOptions } from './scores.js';
import {
  progressionProperties,
  resourceProperties,
  type ProgressionLevels,
  type ProgressionOptions,
  type ProgressionStatus,
  type ResourceFlow,
  type ResourceOptions,
} from './standard.js';
import { PlayerSession, type PlayerAuth, type PlayerIdentity } from './session.js';
import { memoryStorage, storageName, type StorageAdapter } from './storage.js';
import { segment, Transport, type Fetch, type RequestOptions } from './transport.js';
import type {
  AchievementList,
  ActivityStatus,
  FunnelList,
  FunnelReport,
  GameConfig,
  Json,
  LeaderboardPage,
  PlayerStanding,
  PresenceItem,
  PresenceList,
  Properties,
  Save,
  SaveReceipt,
  SlotList,
  SubmittedEntry,
  TournamentJoined,
  TrackEvent,
  UnlockResult,
} from './types.js';

/** The most events one request carries (the interface's batch limit). */
export const MAX_BATCH = 100;

/** Chooses what to write when a save changed since it was read: the merged data, or undefined to give up. */
export type SaveConflictHandler = (conflict: { slot: string; playerId: string; stored: Save | null; mine: Json }) =>
  | Json
  | undefined
  | Promise<Json | undefined>;

export interface PlaytraceOptions {
  /** The playtrace node, e.g. `https://analytics.example.com`. */
  baseUrl: string;
  /** The game's API key (sent as `x-game-api-key`). */
  apiKey: string;
  /** The player; may be set later with `setPlayer`. */
  playerId?: string;
  /**
   * Sign the player in (games with player identity on): `'device'`, a custom identity signed
   * by the studio's backend, or a function answering one. The client then sends a player token
   * with every call and its player is the one the service answers (see `signIn`).
   */
  playerAuth?: PlayerAuth;
  /** Where the queue lives between runs (default: localStorage in browsers, a file in Node). */
  storage?: StorageAdapter;
  /** Told about dropped events, the quota, refused keys and calls that failed for good. */
  onError?: (problem: Problem) => void;
  /** Called when a save write meets a newer stored copy (409); see `writeSave`. */
  onSaveConflict?: SaveConflictHandler;
  /** Events per request, 1 to 100 (default 100). */
  batchSize?: number;
  /** How often queued events are sent when no batch fills up, in ms (default 3,000). */
  flushIntervalMs?: number;
  /** Events kept while they cannot be sent; above it the oldest are dropped (default 5,000). */
  maxQueueSize?: number;
  /** A session ends after this long without a call, in ms (default 30 minutes). */
  sessionIdleMs?: number;
  /** How often presence is refreshed while an activity is set, in ms (default 4 minutes; it expires after 10). */
  heartbeatMs?: number;
  /** Waits between event retries (default 1 s doubling to 60 s, with jitter). */
  backoff?: Partial<BackoffOptions>;
  /** Tries of one call (scores, saves, reads) before it fails (default 4, 0.5 s doubling to 8 s). */
  retry?: Partial<RetryPolicy>;
  /** A request without an answer after this many ms is a network error (default 10,000). */
  timeoutMs?: number;
  /**
   * The queue is written to storage at most this long after a change, in ms (default 1,000),
   * and at once by `flush`, `close`, a page being hidden and a Node process exiting.
   */
  persistDelayMs?: number;
  /** Flush with `keepalive` when the page is hidden or closed (browsers; default true). */
  flushOnHide?: boolean;
  fetch?: Fetch;
  /** For tests: the time and timers the client uses. */
  clock?: Clock;
  /** For tests: the random source of the backoff's jitter. */
  random?: () => number;
}

interface CachedConfig {
  etag?: string;
  config?: GameConfig['config'];
}

export class Playtrace {
  private readonly transport: Transport;
  private readonly clock: Clock;
  private readonly queue: EventQueue;
  private readonly scores: ScoreThrottle;
  private readonly configCache: Persisted<CachedConfig>;
  private config: CachedConfig = {};
  private readonly configLoaded: Promise<void>;
  private readonly retry: RetryPolicy;
  private readonly report: (problem: Problem) => void;
  private readonly saveVersions = new Map<string, number>();
  private readonly options: PlaytraceOptions;
  private player: string | undefined;
  private session = { id: '', lastActive: -Infinity };
  private activity: { body: Record<string, unknown>; timer?: TimerHandle } | undefined;
  private closed = false;
  /** The last write of each save slot, so that writes of one slot go one after another. */
  private readonly saveWrites = new Map<string, Promise<unknown>>();
  private readonly removeListeners: () => void;
  private readonly identity?: PlayerSession;

  constructor(options: PlaytraceOptions) {
    if (!options?.baseUrl) throw new TypeError('init needs baseUrl, the address of the playtrace node');
    if (!options.apiKey) throw new TypeError("init needs apiKey, the game's API key");
    this.options = options;
    this.clock = options.clock ?? systemClock;
    this.player = options.playerId;
    this.transport = new Transport({ baseUrl: options.baseUrl, apiKey: options.apiKey, fetch: options.fetch, timeoutMs: options.timeoutMs });
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    const onError = options.onError;
    this.report = (problem) => {
      try {
        onError?.(problem);
      } catch {
        // A failing handler must not stop the queue.
      }
    };
    const storage = options.storage ?? memoryStorage();
    const name = storageName(this.transport.baseUrl, options.apiKey);
    const backoff = { ...DEFAULT_BACKOFF, ...options.backoff };
    const persistDelayMs = Math.max(0, options.persistDelayMs ?? 1_000);
    if (options.playerAuth) {
      this.identity = new PlayerSession(this.transport, storage, `${name}.device`, this.clock, options.playerAuth, (id) => {
        this.player = id;
      });
      this.transport.tokens = this.identity;
    }
    this.queue = new EventQueue({
      transport: this.transport,
      clock: this.clock,
      storage,
      storageKey: `${name}.events`,
      batchSize: Math.min(MAX_BATCH, Math.max(1, options.batchSize ?? MAX_BATCH)),
      flushIntervalMs: options.flushIntervalMs ?? 3_000,
      maxQueueSize: Math.max(1, options.maxQueueSize ?? 5_000),
      persistDelayMs,
      backoff,
      report: this.report,
      random: options.random,
    });
    this.scores = new ScoreThrottle({
      transport: this.transport,
      clock: this.clock,
      storage,
      storageKey: `${name}.scores`,
      windowMs: SCORE_WINDOW_MS,
      persistDelayMs,
      backoff: { baseMs: this.retry.baseMs, maxMs: backoff.maxMs },
      attempts: this.retry.attempts,
      report: this.report,
      random: options.random,
    });
    this.configCache = new Persisted<CachedConfig>(
      storage,
      `${name}.config`,
      () => this.config,
      (error) => this.report({ kind: 'storage', error }),
      this.clock,
      0,
    );
    this.configLoaded = this.configCache.load().then((stored) => {
      if (stored && !this.config.etag) this.config = stored;
    });
    const stopHide = options.flushOnHide === false ? noop : this.listenForHide();
    const stopExit = this.listenForExit();
    this.removeListeners = () => {
      stopHide();
      stopExit();
    };
  }

  /** Resolves once what the last run left in storage has been read. */
  async ready(): Promise<void> {
    await Promise.all([this.queue.loaded, this.scores.loaded, this.configLoaded]);
  }

  /** The player events and calls are about (unless a call names another). */
  get playerId(): string | undefined {
    return this.player;
  }

  setPlayer(playerId: string | undefined): void {
    this.player = playerId;
  }

  /**
   * Signs the player in now (with `playerAuth`) and answers the player id the service gave;
   * otherwise the first call signs in on its own.
   */
  async signIn(): Promise<string> {
    if (!this.identity) throw new TypeError('signIn needs init({ playerAuth })');
    await this.identity.signIn();
    return this.player!;
  }

  /** Links another identity to the signed-in player, so that it signs in as the same player. */
  async linkIdentity(identity: PlayerIdentity): Promise<{ player_id: string; linked: boolean }> {
    if (!this.identity) throw new TypeError('linkIdentity needs init({ playerAuth })');
    return this.identity.link(identity);
  }

  /** This run's session id; a new one after `sessionIdleMs` without a call. */
  get sessionId(): string {
    return this.touch();
  }

  // ---- events ---------------------------------------------------------------------------

  /**
   * Queues an event, stamped now with `client_timestamp` and a unique `event_id`. It is sent
   * with others within a few seconds, kept in storage until the service has it.
   */
  track(eventName: string, properties?: Properties, options: { playerId?: string } = {}): void {
    if (typeof eventName !== 'string' || eventName.length === 0 || eventName.length > 128) {
      throw new TypeError('track needs an event name of 1 to 128 characters');
    }
    if (properties !== undefined && (properties === null || typeof properties !== 'object' || Array.isArray(properties))) {
      throw new TypeError('track: properties must be an object');
    }
    const playerId = options.playerId ?? this.player;
    const now = this.clock.now();
    const event: TrackEvent = {
      event_name: eventName,
      session_id: this.touch(),
      client_timestamp: new Date(now).toISOString(),
      event_id: eventId(now),
    };
    if (playerId !== undefined) event.player_id = playerId;
    if (properties !== undefined) event.properties = properties;
    this.queue.add(event);
  }

  /**
   * Tracks a `progression` event: a step of the game (one to three level names, outermost
   * first) started, completed or failed, e.g.
   * `trackProgression('complete', ['world 1', 'level 3'], { attempt: 2, score: 1200 })`.
   * Throws a `TypeError` for what the service's progression schema refuses.
   */
  trackProgression(status: ProgressionStatus, levels: ProgressionLevels, options: ProgressionOptions = {}): void {
    this.track('progression', progressionProperties(status, levels, options), options);
  }

  /**
   * Tracks a `resource` event: an amount of a currency gained (`source`) or spent (`sink`),
   * e.g. `trackResource('sink', 'gold', 50, { itemType: 'shop', itemId: 'sword' })`. Throws a
   * `TypeError` for what the service's resource schema refuses (a negative amount included).
   */
  trackResource(flow: ResourceFlow, currency: string, amount: number, options: ResourceOptions = {}): void {
    this.track('resource', resourceProperties(flow, currency, amount, options), options);
  }

  /** Sends every queued event and waiting score now; answers what is left queued. */
  async flush(): Promise<QueueStats> {
    await this.scores.flush();
    return this.queue.flush();
  }

  /** Events queued, sent and dropped, and the quota pause when there is one. */
  stats(): QueueStats & { scoresWaiting: number } {
    return { ...this.queue.stats(), scoresWaiting: this.scores.waitingCount() };
  }

  // ---- leaderboards ---------------------------------------------------------------------

  /**
   * Submits a score with the 5-second throttle: the first at once; a better one within 5
   * seconds of the last send waits for the window's end (only the best waiting one is sent).
   * Answers the entry as it stands once the score (or a better one) is stored.
   */
  async submitScore(board: string, score: number, options: ScoreOptions = {}): Promise<SubmittedEntry> {
    this.touch();
    return this.scores.submit(board, score, await this.playerFor(options.playerId, 'submitScore'), options);
  }

  /** A page of a board, ranked (`limit` 1 to 100, default 50). */
  async getLeaderboard(board: string, options: { limit?: number; offset?: number; period?: string } = {}): Promise<LeaderboardPage> {
    return this.get<LeaderboardPage>(`/v1/leaderboards/${segment(board)}`, options);
  }

  /** The player's rank and the entries around it; null when the player has no entry. */
  async getStanding(board: string, options: { playerId?: string; around?: number; period?: string } = {}): Promise<PlayerStanding | null> {
    const player = await this.playerFor(options.playerId, 'getStanding');
    return this.getOrNull<PlayerStanding>(`/v1/leaderboards/${segment(board)}/players/${segment(player)}`, {
      around: options.around,
      period: options.period,
    });
  }

  /**
   * Joins a tournament board as the player (the client's, or `options.playerId`). Sent at once,
   * not queued: when it resolves the player takes part, so the game may let them play. Joining
   * again is harmless. Fails with PlaytraceError: 404 unknown board; 409 not a tournament,
   * ended or full (see `tournamentRefusal`); 403 a banned player (`isBanned`).
   */
  async joinTournament(board: string, options: { playerId?: string } = {}): Promise<TournamentJoined> {
    const player = await this.playerFor(options.playerId, 'joinTournament');
    this.touch();
    return this.call<TournamentJoined>('POST', `/v1/leaderboards/${segment(board)}/join`, { body: { player_id: player } });
  }

  // ---- achievements ---------------------------------------------------------------------

  async unlockAchievement(key: string, options: { playerId?: string } = {}): Promise<UnlockResult> {
    const player = await this.playerFor(options.playerId, 'unlockAchievement');
    this.touch();
    return this.call<UnlockResult>('POST', '/v1/achievements/unlock', { body: { achievement_key: key, player_id: player } });
  }

  /** Every achievement; with a player (the client's by default), each says whether it is unlocked. */
  async getAchievements(options: { playerId?: string | null } = {}): Promise<AchievementList> {
    const player = options.playerId === null ? undefined : (options.playerId ?? this.player);
    return this.get<AchievementList>('/v1/achievements', { player_id: player });
  }

  // ---- presence -------------------------------------------------------------------------

  /**
   * Sets what the player is doing, and keeps it fresh (presence goes offline after 10 minutes
   * without an update) until `clearActivity` or `close`.
   */
  async setActivity(
    activity: string,
    options: { status?: ActivityStatus; details?: { [key: string]: Json }; playerId?: string } = {},
  ): Promise<void> {
    const player = await this.playerFor(options.playerId, 'setActivity');
    this.stopHeartbeat();
    const body: Record<string, unknown> = { player_id: player, activity, session_id: this.touch() };
    if (options.status) body.status = options.status;
    if (options.details) body.details = options.details;
    const current = { body };
    this.activity = current;
    await this.call('POST', '/v1/activity', { body });
    // Unless another setActivity, clearActivity or close came meanwhile.
    if (this.activity === current && !this.closed) this.beat();
  }

  /** Clears the player's activity (they show offline) and stops the heartbeat. */
  async clearActivity(options: { playerId?: string } = {}): Promise<void> {
    const player = await this.playerFor(options.playerId, 'clearActivity');
    this.stopHeartbeat();
    this.activity = undefined;
    await this.call('DELETE', '/v1/activity', { body: { player_id: player } });
  }

  /** A player's presence (the client's player by default); null when never seen. */
  async getPresence(playerId?: string): Promise<PresenceItem | null> {
    return this.getOrNull<PresenceItem>(`/v1/presence/${segment(await this.playerFor(playerId, 'getPresence'))}`);
  }

  async listPresence(options: { status?: ActivityStatus | 'offline' } = {}): Promise<PresenceList> {
    return this.get<PresenceList>('/v1/presence', options);
  }

  // ---- remote config --------------------------------------------------------------------

  /**
   * The game's remote config. Asks with the last ETag, so an unchanged config costs an empty
   * 304; offline, answers the last config seen (kept in storage) when there is one.
   */
  async getConfig(): Promise<{ [key: string]: Json }> {
    await this.configLoaded;
    try {
      const answer = await withRetries(this.clock, this.retry, () =>
        this.transport.request<GameConfig>('GET', '/v1/config', {
          headers: this.config.etag ? { 'if-none-match': this.config.etag } : undefined,
        }),
      );
      if (answer.status !== 304 || this.config.config === undefined) {
        this.config = { etag: answer.headers.get('etag') ?? undefined, config: answer.body?.config ?? {} };
        this.configCache.save();
      }
    } catch (error) {
      if (this.config.config === undefined || error instanceof PlaytraceError && error.status < 500 && error.status !== 429) throw error;
    }
    return (this.config.config ?? {}) as { [key: string]: Json };
  }

  // ---- cloud saves ----------------------------------------------------------------------

  /** A save slot, or null when the player has none by that name. Remembers its version. */
  async loadSave(slot: string, options: { playerId?: string } = {}): Promise<Save | null> {
    const player = await this.playerFor(options.playerId, 'loadSave');
    const save = await this.getOrNull<Save>(savePath(player, slot));
    this.saveVersions.set(JSON.stringify([player, slot]), save?.version ?? 0);
    return save;
  }

  /**
   * Writes a save slot as of `version` (default: the version this client last read or wrote,
   * else 0 to create it). When someone wrote the slot meanwhile (409), the conflict handler
   * (this call's, else init's) gets the stored copy and answers what to write instead; without
   * one, or when it answers undefined, the call fails with SaveConflictError holding the copy.
   */
  async writeSave(
    slot: string,
    data: Json,
    options: { playerId?: string; version?: number; onConflict?: SaveConflictHandler } = {},
  ): Promise<SaveReceipt> {
    const player = await this.playerFor(options.playerId, 'writeSave');
    const known = JSON.stringify([player, slot]);
    // Writes of one slot wait for each other: each goes as of the version the last one made.
    const previous = this.saveWrites.get(known) ?? Promise.resolve();
    const write = previous.catch(() => undefined).then(() => this.writeSaveNow(slot, data, player, known, options));
    this.saveWrites.set(known, write);
    void write.finally(() => {
      if (this.saveWrites.get(known) === write) this.saveWrites.delete(known);
    }).catch(() => undefined);
    return write;
  }

  private async writeSaveNow(
    slot: string,
    data: Json,
    player: string,
    known: string,
    options: { version?: number; onConflict?: SaveConflictHandler },
  ): Promise<SaveReceipt> {
    let version = options.version ?? this.saveVersions.get(known) ?? 0;
    const resolve = options.onConflict ?? this.options.onSaveConflict;
    for (let round = 0; ; round++) {
      try {
        const receipt = await this.call<SaveReceipt>('PUT', savePath(player, slot), { body: { data, version } });
        this.saveVersions.set(known, receipt.version);
        return receipt;
      } catch (error) {
        if (!(error instanceof PlaytraceError) || error.status !== 409) throw error;
        // Read without adopting its version: only a resolved conflict may write over it.
        const stored = await this.getOrNull<Save>(savePath(player, slot));
        // A retried write whose first try did land meets itself: that is a success.
        if (stored && round === 0 && sameJson(stored.data, data) && stored.version === version + 1) {
          return { slot, version: stored.version, updated_at: stored.updated_at };
        }
        const merged = resolve && round < 3 ? await resolve({ slot, playerId: player, stored, mine: data }) : undefined;
        if (merged === undefined) throw new SaveConflictError(slot, stored);
        data = merged;
        version = stored?.version ?? 0;
      }
    }
  }

  /** Deletes a save slot (only while it still has `version`, when given). */
  async deleteSave(slot: string, options: { playerId?: string; version?: number } = {}): Promise<void> {
    const player = await this.playerFor(options.playerId, 'deleteSave');
    await this.call('DELETE', savePath(player, slot), { query: { version: options.version } });
    this.saveVersions.delete(JSON.stringify([player, slot]));
  }

  async listSaves(options: { playerId?: string } = {}): Promise<SlotList> {
    return this.get<SlotList>(`/v1/saves/${segment(await this.playerFor(options.playerId, 'listSaves'))}`);
  }

  // ---- funnels --------------------------------------------------------------------------

  async listFunnels(): Promise<FunnelList> {
    return this.get<FunnelList>('/v1/funnels');
  }

  /** A funnel's report over `from`..`to` (YYYY-MM-DD). */
  async getFunnel(funnelId: string, options: { from?: string; to?: string } = {}): Promise<FunnelReport> {
    return this.get<FunnelReport>(`/v1/funnels/${segment(funnelId)}`, options);
  }

  // ---- lifecycle ------------------------------------------------------------------------

  /** Sends what it can, stops the timers and listeners; what is left stays in storage. */
  async close(): Promise<QueueStats> {
    this.closed = true;
    this.stopHeartbeat();
    this.activity = undefined;
    this.removeListeners();
    let stats: QueueStats;
    try {
      stats = await this.flush();
    } finally {
      await Promise.all([this.queue.close(), this.scores.close(), this.configCache.flush()]);
    }
    return stats;
  }

  // ---- inside ---------------------------------------------------------------------------

  private touch(): string {
    const now = this.clock.now();
    if (now - this.session.lastActive > (this.options.sessionIdleMs ?? 30 * 60_000)) this.session.id = uuid();
    this.session.lastActive = now;
    return this.session.id;
  }

  /** `playerOf`, after signing in first when the game signs its players in. */
  private async playerFor(given: string | undefined, operation: string): Promise<string> {
    if (given === undefined && this.player === undefined && this.identity) await this.identity.get();
    return this.playerOf(given, operation);
  }

  private playerOf(given: string | undefined, operation: string): string {
    const player = given ?? this.player;
    if (!player) throw new TypeError(`${operation} needs a player: pass playerId, or set one with init({ playerId }) or setPlayer`);
    return player;
  }

  private async call<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const answer = await withRetries(this.clock, this.retry, () => this.transport.request<T>(method, path, options), this.options.random);
    return answer.body;
  }

  private get<T>(path: string, query?: RequestOptions['query']): Promise<T> {
    return this.call<T>('GET', path, { query });
  }

  private async getOrNull<T>(path: string, query?: RequestOptions['query']): Promise<T | null> {
    try {
      return await this.get<T>(path, query);
    } catch (error) {
      if (error instanceof PlaytraceError && error.status === 404) return null;
      throw error;
    }
  }

  private beat(): void {
    const activity = this.activity;
    if (!activity || this.closed) return;
    if (activity.timer !== undefined) this.clock.clearTimeout(activity.timer);
    activity.timer = this.clock.setTimeout(async () => {
      if (this.activity !== activity || this.closed) return;
      try {
        await this.transport.request('POST', '/v1/activity', { body: { ...activity.body, session_id: this.touch() } });
      } catch {
        // Missed beats are harmless: the next one comes well before the 10-minute expiry.
      }
      if (this.activity === activity) this.beat();
    }, this.options.heartbeatMs ?? 4 * 60_000);
  }

  private stopHeartbeat(): void {
    if (this.activity?.timer !== undefined) this.clock.clearTimeout(this.activity.timer);
    if (this.activity) this.activity.timer = undefined;
  }

  /** In Node: write what is queued when the process exits (the file store writes synchronously). */
  private listenForExit(): () => void {
    return atProcessExit(() => {
      this.queue.persistNow();
      this.scores.persistNow();
    });
  }

  /** In a browser: send with keepalive when the page is hidden or closed. */
  private listenForHide(): () => void {
    const doc = (globalThis as { document?: Document }).document;
    const win = globalThis as unknown as { addEventListener?: Window['addEventListener']; removeEventListener?: Window['removeEventListener'] };
    if (!doc || typeof win.addEventListener !== 'function') return noop;
    const onVisibility = () => {
      if (doc.visibilityState !== 'hidden') return;
      this.queue.flushKeepalive();
      this.scores.persistNow();
    };
    const onPageHide = () => {
      this.queue.flushKeepalive();
      this.scores.persistNow();
    };
    doc.addEventListener('visibilitychange', onVisibility);
    win.addEventListener('pagehide', onPageHide);
    return () => {
      doc.removeEventListener('visibilitychange', onVisibility);
      win.removeEventListener?.('pagehide', onPageHide);
    };
  }
}

function noop(): void {}

function savePath(player: string, slot: string): string {
  return `/v1/saves/${segment(player)}/${segment(slot)}`;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
