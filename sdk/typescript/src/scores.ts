// Score submission with the interface's 5-second throttle, per board and player: the first
// score is sent at once; a better one within 5 seconds of the last send waits, only the best
// of those kept (by the board's order), and goes when the window ends. A score no better than
// the best already sent, on its way or waiting is answered without a request of its own, as
// the service would keep the stored entry anyway. Waiting and in-flight scores are kept in
// storage and sent again after a restart; a send that fails on the network is retried in the
// background until it is stored.
//
// Until an answer has told the board's order (or the game passed `order`), the highest and the
// lowest waiting scores are both kept, and neither is dropped: the highest is sent, the lowest
// stays waiting, and once the answer tells the order the lowest is dropped if it is no better
// than the stored entry, else sent when the next window opens. So a retry after a network
// failure, or the scores a restart finds in storage (the order is not stored with them), never
// lose the best time of a lower-is-better board.
//
// Merging is for `best` boards only. On a `latest`, `increment` or `decrement` board (known
// from the game's `operator` option or from an answer) every score counts: scores within the
// window wait in order, none dropped or merged, and go one request each when it ends. Until
// the operator is known a board is taken for `best` (the interface's default).
//
// In Node, a lane's timer keeps the process alive while a caller waits on it (a score held for
// its window, or retried before its promise fails), so `await submitScore(...)` at the end of a
// script settles before the process ends. Once no caller waits (scores a restart found, or
// retried after their promises failed) the timer runs in the background and does not.
import type { BackoffOptions } from './backoff.js';
import { keepAlive, type Clock, type TimerHandle } from './clock.js';
import { isRetryable } from './errors.js';
import type { Problem } from './events.js';
import { Persisted } from './persist.js';
import { waitAfter } from './retry.js';
import type { StorageAdapter } from './storage.js';
import type { Transport } from './transport.js';
import type { Json, ScoreOperator, ScoreOrder, SubmittedEntry } from './types.js';

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
  /**
   * The board's operator, when the game knows it before the first answer tells it: on any
   * but `best` (the default) every score is sent, none merged. Also sent with the score, so a
   * board this score creates gets it (as `order` does).
   */
  operator?: ScoreOperator;
}

interface Submission {
  board: string;
  playerId: string;
  score: number;
  playerName?: string;
  metadata?: { [key: string]: Json };
  order?: ScoreOrder;
  /** Kept with the score, so a restart still knows not to merge it. */
  operator?: ScoreOperator;
}

interface Waiter {
  resolve: (entry: SubmittedEntry) => void;
  reject: (error: unknown) => void;
}

interface Lane {
  lastSentAt: number;
  /** Known from the game or from an answer; until then both extremes wait (see `waiting`). */
  order?: ScoreOrder;
  /** Known from the game or from an answer; until then taken for `best`. */
  operator?: ScoreOperator;
  /** The player's entry as the service last answered it. */
  last?: SubmittedEntry;
  /**
   * The scores waiting for the window's end: the best one once the order is known, else the
   * highest and the lowest. Without the order the highest is sent and the lowest stays here
   * until that answer tells whether it is better (never dropped before).
   */
  waiting: Submission[];
  /** The score on its way. */
  inFlight?: Submission;
  /** The send under way, for flush() to wait on. */
  sending?: Promise<boolean>;
  waiters: Waiter[];
  timer?: TimerHandle;
  /** Failed tries of the score waiting now (reset by a new, better one). */
  attempt: number;
}

export interface ScoreOptionsAll {
  transport: Transport;
  clock: Clock;
  storage: StorageAdapter;
  storageKey: string;
  windowMs: number;
  persistDelayMs: number;
  backoff: BackoffOptions;
  /** Tries of one score before its promise fails (the score stays queued). */
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
      () => [...this.lanes.values()].flatMap((lane) => [...lane.waiting, ...(lane.inFlight ? [lane.inFlight] : [])]),
      (error) => options.report({ kind: 'storage', error }),
      options.clock,
      options.persistDelayMs,
    );
    // Scores left waiting by the last run go now: their window ended long ago.
    this.loaded = this.persisted.load().then((stored) => {
      for (const submission of Array.isArray(stored) ? stored : []) {
        const lane = this.lane(submission.board, submission.playerId);
        if (submission.operator) lane.operator = submission.operator;
        this.keep(lane, submission);
        if (lane.timer === undefined && !lane.inFlight) this.arm(lane, 0);
      }
    });
  }

  submit(board: string, score: number, playerId: string, options: ScoreOptions): Promise<SubmittedEntry> {
    if (!Number.isFinite(score)) return Promise.reject(new TypeError('score must be a finite number'));
    const submission: Submission = {
      board,
      playerId,
      score,
      playerName: options.playerName,
      metadata: options.metadata,
      order: options.order,
      operator: options.operator,
    };
    const lane = this.lane(board, playerId);
    if (options.order) lane.order = options.order;
    if (options.operator) lane.operator = options.operator;
    const answer = new Promise<SubmittedEntry>((resolve, reject) => {
      const now = this.options.clock.now();
      lane.waiters.push({ resolve, reject });
      const idle = lane.waiting.length === 0 && !lane.inFlight;
      if (idle && now - lane.lastSentAt >= this.options.windowMs) {
        lane.waiting = [submission];
        lane.attempt = 0;
        void this.send(lane);
        return;
      }
      if (merges(lane) && lane.order && !this.beats(lane, score, lane.order)) {
        // No better than what is stored, on its way or waiting: answered with that.
        if (idle && lane.last) {
          lane.waiters.pop();
          resolve({ ...lane.last, updated: false });
        }
        return;
      }
      this.keep(lane, submission);
      lane.attempt = 0;
      this.persisted.save();
      if (lane.timer === undefined && !lane.inFlight) this.arm(lane, lane.lastSentAt + this.options.windowMs - now);
    });
    // The timer may have been armed before this caller came (by a score of the last run).
    this.holdForWaiters(lane);
    return answer;
  }

  /** Sends every waiting score now, throttle or not, and waits for the answers. */
  async flush(): Promise<void> {
    await this.loaded;
    await Promise.all(
      [...this.lanes.values()].map(async (lane) => {
        while (lane.inFlight && lane.sending) await lane.sending;
        // Twice at most: a score held while the order was unknown goes after the first answer
        // (every waiting score, one after another, on boards that do not merge).
        for (let round = 0; (round < 2 || !merges(lane)) && lane.waiting.length > 0 && !lane.inFlight; round++) {
          if (lane.timer !== undefined) this.options.clock.clearTimeout(lane.timer);
          lane.timer = undefined;
          if (!(await this.send(lane))) break;
        }
      }),
    );
    await this.persisted.flush();
  }

  /** Writes the waiting scores to storage now (done at return with a synchronous store). */
  persistNow(): void {
    this.persisted.flushNow();
  }

  /** Stops the timers; scores not sent stay in storage, and their promises fail. */
  async close(): Promise<void> {
    await this.loaded;
    this.closed = true;
    for (const lane of this.lanes.values()) {
      if (lane.timer !== undefined) this.options.clock.clearTimeout(lane.timer);
      lane.timer = undefined;
      if (lane.inFlight) continue;
      const waiters = lane.waiters;
      lane.waiters = [];
      const error = new Error('the client was closed before the score was sent; it is kept in storage for the next start');
      for (const waiter of waiters) waiter.reject(error);
    }
    await this.persisted.flush();
  }

  /** How many boards and players have a score waiting (for its window or the network). */
  waitingCount(): number {
    return [...this.lanes.values()].filter((lane) => lane.waiting.length > 0 || lane.inFlight).length;
  }

  private lane(board: string, playerId: string): Lane {
    const key = JSON.stringify([board, playerId]);
    let lane = this.lanes.get(key);
    if (!lane) {
      lane = { lastSentAt: -Infinity, waiting: [], waiters: [], attempt: 0 };
      this.lanes.set(key, lane);
    }
    return lane;
  }

  /** Whether `score` is better than every score stored, on its way or waiting. */
  private beats(lane: Lane, score: number, order: ScoreOrder): boolean {
    const known = [lane.last?.score, lane.inFlight?.score, ...lane.waiting.map((s) => s.score)];
    return known.every((other) => other === undefined || better(score, other, order));
  }

  /** Adds a waiting score: only the best once the order is known, else the two extremes. */
  private keep(lane: Lane, submission: Submission): void {
    const all = [...lane.waiting, submission];
    if (!merges(lane)) {
      lane.waiting = all;
    } else if (lane.order) {
      lane.waiting = [all.reduce((a, b) => (better(b.score, a.score, lane.order!) ? b : a))];
    } else {
      const high = all.reduce((a, b) => (b.score > a.score ? b : a));
      const low = all.reduce((a, b) => (b.score < a.score ? b : a));
      lane.waiting = high === low ? [high] : [high, low];
    }
  }

  private arm(lane: Lane, delay: number): void {
    if (this.closed) return;
    lane.timer = this.options.clock.setTimeout(() => {
      lane.timer = undefined;
      void this.send(lane);
    }, Math.max(0, delay));
    this.holdForWaiters(lane);
  }

  /** In Node, a timer that callers' promises wait on keeps the process alive until it fires. */
  private holdForWaiters(lane: Lane): void {
    if (lane.timer !== undefined && lane.waiters.length > 0) keepAlive(lane.timer);
  }

  /** Sends the best waiting score; true once the service answered it. */
  private send(lane: Lane): Promise<boolean> {
    if (lane.waiting.length === 0 || lane.inFlight) return Promise.resolve(false);
    const sending = this.sendBest(lane);
    lane.sending = sending;
    return sending;
  }

  private async sendBest(lane: Lane): Promise<boolean> {
    const order = lane.order ?? 'higher';
    const merging = merges(lane);
    // Without merging, the oldest waiting score goes first and the others wait their turn.
    const submission = merging ? lane.waiting.reduce((a, b) => (better(b.score, a.score, order) ? b : a)) : lane.waiting[0];
    const waiters = lane.waiters;
    lane.waiters = [];
    // With the order known only the best waits, and it goes now. Without it, the other
    // extreme stays waiting until the answer tells whether it is better.
    lane.waiting = merging && lane.order ? [] : lane.waiting.filter((other) => other !== submission);
    const held = lane.waiting.length > 0;
    lane.inFlight = submission;
    lane.lastSentAt = this.options.clock.now();
    const { board, playerId, score, playerName, metadata, order: boardOrder, operator } = submission;
    try {
      const answer = await this.options.transport.request<SubmittedEntry>('POST', '/v1/leaderboards', {
        body: { board_name: board, player_id: playerId, score, player_name: playerName, metadata, order: boardOrder, operator },
      });
      lane.last = answer.body;
      if (answer.body.order === 'higher' || answer.body.order === 'lower') lane.order = answer.body.order;
      if (answer.body.operator) lane.operator = answer.body.operator;
      lane.inFlight = undefined;
      lane.attempt = 0;
      // With the order known, what waits is the best one, and only if it beats the entry.
      if (merges(lane) && lane.order && lane.waiting.length > 0) {
        const stored = answer.body.score;
        const order = lane.order;
        const beating = lane.waiting.filter((s) => typeof stored !== 'number' || better(s.score, stored, order));
        lane.waiting = beating.length > 0 ? [beating.reduce((a, b) => (better(b.score, a.score, order) ? b : a))] : [];
      }
      if (held && lane.waiting.length > 0) {
        // A held score is still to go (it is better, or the order is still unknown): all the
        // callers of this send wait for its answer, as theirs may be the better one.
        lane.waiters = [...waiters, ...lane.waiters];
      } else {
        // Waiters of scores no better than this one, which came while it was on its way, too.
        const settled = lane.waiting.length === 0 ? [...waiters, ...lane.waiters.splice(0)] : waiters;
        for (const waiter of settled) waiter.resolve(answer.body);
      }
    } catch (error) {
      lane.inFlight = undefined;
      if (isRetryable(error)) {
        // Kept: it goes again after the backoff, unless a better one came meanwhile.
        lane.attempt += 1;
        // Without merging it goes again first, before the scores that came after it.
        if (merges(lane)) this.keep(lane, submission);
        else lane.waiting = [submission, ...lane.waiting];
        if (lane.attempt >= this.options.attempts || this.closed) {
          for (const waiter of waiters) waiter.reject(error);
        } else {
          lane.waiters = [...waiters, ...lane.waiters];
        }
        this.persisted.save();
        if (lane.timer === undefined) this.arm(lane, waitAfter(error, lane.attempt, this.options.backoff, this.options.random));
        return false;
      }
      this.options.report({ kind: 'failed', error, operation: `submitScore ${board}` });
      if (held && lane.waiting.length > 0) {
        // The held score still goes; its answer settles every caller.
        lane.waiters = [...waiters, ...lane.waiters];
      } else {
        for (const waiter of [...waiters, ...(lane.waiting.length === 0 ? lane.waiters.splice(0) : [])]) waiter.reject(error);
      }
    }
    this.persisted.save();
    // A better score that came while this one was on its way waits for its own window; on a
    // board that does not merge, the scores of the window that ended go on at once.
    if (lane.waiting.length > 0 && lane.timer === undefined) {
      this.arm(lane, merges(lane) ? lane.lastSentAt + this.options.windowMs - this.options.clock.now() : 0);
    }
    return true;
  }
}

/** Whether the lane's waiting scores may be merged: on `best` boards (or not yet known) only. */
function merges(lane: Lane): boolean {
  return (lane.operator ?? 'best') === 'best';
}

function better(score: number, than: number, order: ScoreOrder): boolean {
  return order === 'lower' ? score < than : score > than;
}
