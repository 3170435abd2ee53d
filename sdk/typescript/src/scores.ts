// Score submission with the interface's 5-second throttle, per board and player: the first
// score is sent at once; a better one within 5 seconds of the last send waits, only the best
// of those kept (by the board's order), and goes when the window ends. A score no better than
// the player's best is answered from the last answer without a request, as the service would
// keep the stored entry anyway. Scores waiting are kept in storage and resent after a restart;
// a send that fails on the network is retried in the background until it is stored.
import type { BackoffOptions } from './backoff.js';
import type { Clock, TimerHandle } from './clock.js';
import { isRetryable } from './errors.js';
import type { Problem } from './events.js';
import { Persisted } from './persist.js';
import { waitAfter } from './retry.js';
import type { StorageAdapter } from './storage.js';
import type { Transport } from './transport.js';
import type { Json, ScoreOrder, SubmittedEntry } from './types.js';

/** The interface's score submission throttle. */
export const SCORE_WINDOW_MS = 5_000;

export interface ScoreOptions {
  /** The player; default the client's player. */
  playerId?: string;
  playerName?: string;
  metadata?: { [key: string]: Json };
  /**
   * Which scores are better, when the game knows it before the first answer tells it
   * (default: what the service answered, else `higher`).
   */
  order?: ScoreOrder;
}

interface Submission {
  board: string;
  playerId: string;
  score: number;
  playerName?: string;
  metadata?: { [key: string]: Json };
}

interface Waiter {
  resolve: (entry: SubmittedEntry) => void;
  reject: (error: unknown) => void;
}

interface Lane {
  lastSentAt: number;
  order?: ScoreOrder;
  /** The player's best as the service last answered it. */
  last?: SubmittedEntry;
  pending?: Submission;
  waiters: Waiter[];
  timer?: TimerHandle;
  attempt: number;
  sending: boolean;
}

export interface ScoreOptionsAll {
  transport: Transport;
  clock: Clock;
  storage: StorageAdapter;
  storageKey: string;
  windowMs: number;
  persistDelayMs: number;
  backoff: BackoffOptions;
  /** Tries of one send before its promise fails (the score stays queued). */
  attempts: number;
  report: (problem: Problem) => void;
  random?: () => number;
}

export class ScoreThrottle {
  private readonly lanes = new Map<string, Lane>();
  private readonly persisted: Persisted<Submission[]>;
  readonly loaded: Promise<void>;
  private closed = false;

  constructor(private readonly options: ScoreOptionsAll) {
    this.persisted = new Persisted<Submission[]>(
      options.storage,
      options.storageKey,
      () => [...this.lanes.values()].flatMap((lane) => (lane.pending ? [lane.pending] : [])),
      (error) => options.report({ kind: 'storage', error }),
      options.clock,
      options.persistDelayMs,
    );
    // Scores left waiting by the last run go now: their window ended long ago.
    this.loaded = this.persisted.load().then((stored) => {
      for (const submission of Array.isArray(stored) ? stored : []) {
        const lane = this.lane(submission.board, submission.playerId);
        if (!lane.pending) {
          lane.pending = submission;
          this.arm(lane, 0);
        }
      }
    });
  }

  submit(board: string, score: number, playerId: string, options: ScoreOptions): Promise<SubmittedEntry> {
    if (!Number.isFinite(score)) return Promise.reject(new TypeError('score must be a finite number'));
    const submission: Submission = { board, playerId, score, playerName: options.playerName, metadata: options.metadata };
    const lane = this.lane(board, playerId);
    if (options.order) lane.order = options.order;
    return new Promise<SubmittedEntry>((resolve, reject) => {
      const now = this.options.clock.now();
      const waiter = { resolve, reject };
      const order = lane.order ?? 'higher';
      if (!lane.pending && !lane.sending && now - lane.lastSentAt >= this.options.windowMs) {
        lane.pending = submission;
        lane.waiters.push(waiter);
        void this.send(lane);
        return;
      }
      const best = lane.pending?.score ?? lane.last?.score;
      if (best !== undefined && !better(score, best, order)) {
        // Nothing to send: the entry stands as it is, or as the waiting better score makes it.
        if (lane.pending || lane.sending || !lane.last) lane.waiters.push(waiter);
        else resolve({ ...lane.last, updated: false });
        return;
      }
      lane.pending = submission;
      lane.waiters.push(waiter);
      this.persisted.save();
      if (lane.timer === undefined && !lane.sending) this.arm(lane, lane.lastSentAt + this.options.windowMs - now);
    });
  }

  /** Sends every waiting score now, throttle or not. */
  async flush(): Promise<void> {
    await this.loaded;
    await Promise.all(
      [...this.lanes.values()].filter((lane) => lane.pending && !lane.sending).map((lane) => {
        if (lane.timer !== undefined) this.options.clock.clearTimeout(lane.timer);
        lane.timer = undefined;
        return this.send(lane);
      }),
    );
    await this.persisted.flush();
  }

  /** Writes the waiting scores to storage now (done at return with a synchronous store). */
  persistNow(): void {
    this.persisted.flushNow();
  }

  async close(): Promise<void> {
    await this.loaded;
    this.closed = true;
    for (const lane of this.lanes.values()) {
      if (lane.timer !== undefined) this.options.clock.clearTimeout(lane.timer);
      lane.timer = undefined;
    }
    await this.persisted.flush();
  }

  /** How many scores wait for their window (or for the network). */
  waiting(): number {
    return [...this.lanes.values()].filter((lane) => lane.pending).length;
  }

  private lane(board: string, playerId: string): Lane {
    const key = JSON.stringify([board, playerId]);
    let lane = this.lanes.get(key);
    if (!lane) {
      lane = { lastSentAt: -Infinity, waiters: [], attempt: 0, sending: false };
      this.lanes.set(key, lane);
    }
    return lane;
  }

  private arm(lane: Lane, delay: number): void {
    if (this.closed) return;
    lane.timer = this.options.clock.setTimeout(() => {
      lane.timer = undefined;
      void this.send(lane);
    }, Math.max(0, delay));
  }

  private async send(lane: Lane): Promise<void> {
    const submission = lane.pending;
    if (!submission || lane.sending) return;
    const waiters = lane.waiters;
    lane.waiters = [];
    lane.pending = undefined;
    lane.sending = true;
    lane.lastSentAt = this.options.clock.now();
    const { board, playerId, score, playerName, metadata } = submission;
    try {
      const answer = await this.options.transport.request<SubmittedEntry>('POST', '/v1/leaderboards', {
        body: { board_name: board, player_id: playerId, score, player_name: playerName, metadata },
      });
      lane.last = answer.body;
      if (answer.body.order === 'higher' || answer.body.order === 'lower') lane.order = answer.body.order;
      lane.attempt = 0;
      for (const waiter of waiters) waiter.resolve(answer.body);
    } catch (error) {
      if (isRetryable(error)) {
        // Kept: unless a better score came meanwhile, this one goes again after the backoff.
        lane.attempt += 1;
        // (lane.pending may have been set by a submission made while this one was on its way.)
        const waiting = lane.pending as Submission | undefined;
        if (!waiting || better(score, waiting.score, lane.order ?? 'higher')) lane.pending = submission;
        if (lane.attempt >= this.options.attempts) {
          for (const waiter of waiters) waiter.reject(error);
        } else {
          lane.waiters = [...waiters, ...lane.waiters];
        }
        lane.sending = false;
        this.persisted.save();
        this.arm(lane, waitAfter(error, lane.attempt, this.options.backoff, this.options.random));
        return;
      }
      this.options.report({ kind: 'failed', error, operation: `submitScore ${board}` });
      for (const waiter of waiters) waiter.reject(error);
    } finally {
      lane.sending = false;
    }
    this.persisted.save();
    // A better score that came while this one was on its way waits for its own window.
    if (lane.pending && lane.timer === undefined) {
      this.arm(lane, lane.lastSentAt + this.options.windowMs - this.options.clock.now());
    }
  }
}

function better(score: number, than: number, order: ScoreOrder): boolean {
  return order === 'lower' ? score < than : score > than;
}
