// The event queue: events wait here, in storage, until the service has committed them. Sent in
// batches of up to 100 every few seconds or as soon as a batch is full; retried with backoff on
// network errors, 5xx and 429; a batch the service refuses (400, 413, or 403 because an event
// names another player than the player token's) is split until only the bad events are left,
// and those are dropped and reported. Every event carries its event_id,
// so a batch sent twice (its answer lost on the way back) is stored once.
import { MAX_TIMER_MS, nextUtcMonth, type Clock, type TimerHandle } from './clock.js';
import { type BackoffOptions } from './backoff.js';
import { PlaytraceError } from './errors.js';
import { Persisted } from './persist.js';
import { waitAfter } from './retry.js';
import type { StorageAdapter } from './storage.js';
import type { Transport } from './transport.js';
import type { SchemaViolation, TrackAccepted, TrackEvent } from './types.js';

/** Something the game may want to know about; passed to `onError`. */
export type Problem =
  /** The service refused these events (400, 413, or 403 for another player): they were dropped. */
  | { kind: 'rejected'; error: PlaytraceError; events: TrackEvent[] }
  /** The monthly event quota is used up: sending pauses until `pausedUntil` (the next UTC month). */
  | { kind: 'quota'; error: PlaytraceError; pausedUntil: Date }
  /** The queue was full: the oldest events were dropped (`dropped` counts them all so far). */
  | { kind: 'overflow'; dropped: number }
  /** The key was refused (401/403) or the address is not a playtrace node: events are kept and retried slowly. */
  | { kind: 'refused'; error: PlaytraceError }
  /** Events were stored but break their event schema (the game's validation is `warn`). */
  | { kind: 'warnings'; warnings: SchemaViolation[] }
  /** A score or another call failed for good. */
  | { kind: 'failed'; error: unknown; operation: string }
  /** Storage could not be read or written (e.g. localStorage full). */
  | { kind: 'storage'; error: unknown };

export interface QueueOptions {
  transport: Transport;
  clock: Clock;
  storage: StorageAdapter;
  storageKey: string;
  batchSize: number;
  flushIntervalMs: number;
  maxQueueSize: number;
  /** Storage is written at most this long after a change (and at once on flush). */
  persistDelayMs: number;
  backoff: BackoffOptions;
  report: (problem: Problem) => void;
  random?: () => number;
}

interface Stored {
  events: TrackEvent[];
  dropped: number;
  pausedUntil?: number;
}

/** Bodies sent with `keepalive` must stay under 64 KiB in all; this leaves room for headers. */
const KEEPALIVE_BYTES = 60_000;

export interface QueueStats {
  queued: number;
  dropped: number;
  sent: number;
  /** Set while the monthly quota is used up. */
  pausedUntil?: Date;
}

export class EventQueue {
  private events: TrackEvent[] = [];
  private dropped = 0;
  private sent = 0;
  private pausedUntil = 0;
  private attempt = 0;
  /** No send before this (the backoff after a failure). */
  private retryAt = 0;
  /** No send before this either, not even by flush(): what a 429's Retry-After asked. */
  private askedUntil = 0;
  /** Event ids of the batch the send loop has on the wire. */
  private onTheWire = new Set<string>();
  private keepaliveOnTheWire = false;
  private overflowing = false;
  private refusedStatus = 0;
  private timer: TimerHandle | undefined;
  private sending: Promise<void> | undefined;
  private closed = false;
  /** Storage has been read: until then nothing is written or sent, so nothing stored is lost. */
  private ready = false;
  private readonly persisted: Persisted<Stored>;
  readonly loaded: Promise<void>;

  constructor(private readonly options: QueueOptions) {
    this.persisted = new Persisted<Stored>(
      options.storage,
      options.storageKey,
      () => ({ events: this.events, dropped: this.dropped, pausedUntil: this.pausedUntil || undefined }),
      (error) => options.report({ kind: 'storage', error }),
      options.clock,
      options.persistDelayMs,
    );
    this.loaded = this.persisted.load().then((stored) => {
      if (stored && Array.isArray(stored.events)) {
        // Events tracked while storage was being read go after the ones from the last run.
        const known = new Set(stored.events.map((event) => event.event_id));
        this.events = [...stored.events, ...this.events.filter((event) => !known.has(event.event_id))];
        this.dropped += stored.dropped ?? 0;
        this.pausedUntil = Math.max(this.pausedUntil, stored.pausedUntil ?? 0);
        this.trim();
      }
      this.ready = true;
      this.persisted.save();
      if (this.events.length >= this.options.batchSize) this.kick(false);
      else this.schedule();
    });
  }

  stats(): QueueStats {
    return {
      queued: this.events.length,
      dropped: this.dropped,
      sent: this.sent,
      pausedUntil: this.paused() ? new Date(this.pausedUntil) : undefined,
    };
  }

  add(event: TrackEvent): void {
    this.events.push(event);
    this.trim();
    if (!this.ready) return;
    if (this.closed) {
      // After close() nothing is sent: the event is kept for the next start.
      this.persisted.flushNow();
      return;
    }
    this.persisted.save();
    if (this.events.length >= this.options.batchSize) this.kick(false);
    else this.schedule();
  }

  /**
   * Sends everything queued now (one batch after another), waiting out no backoff. Answers
   * once the queue is empty or a send failed; the events left stay queued.
   */
  async flush(): Promise<QueueStats> {
    await this.loaded;
    while (this.sending) await this.sending;
    if (this.askedUntil > this.options.clock.now()) return this.stats();
    this.retryAt = 0;
    this.kick(true);
    while (this.sending) await this.sending;
    await this.persisted.flush();
    return this.stats();
  }

  /**
   * For a page being hidden or closed: one request with `keepalive`, which the browser
   * completes even after the page is gone. The events stay queued until it is confirmed, so
   * a page that dies first sends them again at its next start (stored once, by event_id).
   */
  flushKeepalive(): void {
    if (!this.ready) return;
    this.persisted.flushNow();
    // One keepalive request at a time (the browser caps their bytes in flight), and none for
    // events the send loop already has on the wire.
    if (this.paused() || this.keepaliveOnTheWire) return;
    const encoder = new TextEncoder();
    const batch: TrackEvent[] = [];
    let bytes = 2;
    for (const event of this.events) {
      if (batch.length === this.options.batchSize) break;
      if (this.onTheWire.has(event.event_id)) continue;
      const size = encoder.encode(JSON.stringify(event)).length + 1;
      if (bytes + size > KEEPALIVE_BYTES) break;
      batch.push(event);
      bytes += size;
    }
    if (batch.length === 0) return;
    this.keepaliveOnTheWire = true;
    void this.send(batch, true).finally(() => (this.keepaliveOnTheWire = false));
  }

  /** Writes the queue to storage now (done at return with a synchronous store). */
  persistNow(): void {
    if (this.ready) this.persisted.flushNow();
  }

  /** Stops the timers; what is queued stays in storage for the next start. */
  async close(): Promise<void> {
    await this.loaded;
    this.closed = true;
    if (this.timer !== undefined) this.options.clock.clearTimeout(this.timer);
    this.timer = undefined;
    while (this.sending) await this.sending;
    await this.persisted.flush();
  }

  private paused(): boolean {
    return this.pausedUntil > this.options.clock.now();
  }

  /** Drops the oldest events above the bound. */
  private trim(): void {
    const over = this.events.length - this.options.maxQueueSize;
    if (over <= 0) return;
    this.events.splice(0, over);
    this.dropped += over;
    if (!this.overflowing) {
      this.overflowing = true;
      this.options.report({ kind: 'overflow', dropped: this.dropped });
    }
  }

  /** Arms the timer for the next send: the flush interval, the backoff, or the quota pause. */
  private schedule(): void {
    if (this.closed || !this.ready || this.timer !== undefined || this.sending || this.events.length === 0) return;
    const now = this.options.clock.now();
    let delay = this.options.flushIntervalMs;
    const waitUntil = Math.max(this.retryAt, this.askedUntil);
    if (this.paused()) delay = Math.min(this.pausedUntil - now, MAX_TIMER_MS);
    else if (waitUntil > now) delay = waitUntil - now;
    this.timer = this.options.clock.setTimeout(() => {
      this.timer = undefined;
      this.kick(false);
    }, delay);
  }

  /** Starts sending unless a send is under way, the quota is out, or a backoff is running. */
  private kick(all: boolean): void {
    if ((this.closed && !all) || !this.ready) return;
    if (this.paused()) return this.schedule();
    if (this.sending || this.events.length === 0) return;
    const now = this.options.clock.now();
    if ((!all && this.retryAt > now) || this.askedUntil > now) return this.schedule();
    if (this.timer !== undefined) {
      this.options.clock.clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.sending = this.sendQueued(all).finally(() => {
      this.sending = undefined;
      this.schedule();
    });
  }

  private async sendQueued(all: boolean): Promise<void> {
    let first = true;
    while (this.events.length > 0 && !this.paused() && (all || first || this.events.length >= this.options.batchSize)) {
      first = false;
      if (!(await this.send(this.events.slice(0, this.options.batchSize), false))) return;
    }
  }

  /** Sends one batch; false when it must wait (backoff or quota), true when done with it. */
  private async send(batch: TrackEvent[], keepalive: boolean): Promise<boolean> {
    const { transport, clock, report } = this.options;
    const wire = keepalive ? undefined : batch.map((event) => event.event_id);
    wire?.forEach((id) => this.onTheWire.add(id));
    try {
      const answer = await transport.request<TrackAccepted>('POST', '/v1/track', { body: batch, keepalive });
      this.sent += this.forget(batch);
      this.attempt = 0;
      this.retryAt = 0;
      this.overflowing = false;
      this.refusedStatus = 0;
      if (answer.body?.warnings?.length) report({ kind: 'warnings', warnings: answer.body.warnings });
      return true;
    } catch (error) {
      if (keepalive) return false; // the events stay queued; the normal sending retries them
      if (error instanceof PlaytraceError && (error.status === 400 || error.status === 413 || isOtherPlayer(error, batch))) {
        if (batch.length > 1) {
          // All or nothing: find the bad events by halves; the good ones are sent.
          const half = Math.ceil(batch.length / 2);
          return (await this.send(batch.slice(0, half), false)) && (await this.send(batch.slice(half), false));
        }
        this.forget(batch);
        report({ kind: 'rejected', error, events: batch });
        return true;
      }
      if (error instanceof PlaytraceError && error.isQuotaExceeded) {
        // A batch is refused whole when it does not fit: what still fits goes first. The 429
        // always says `remaining: 0` (nothing of this request was taken); what is left of the
        // month is `limit - current`.
        const fits = stillFits(error.body.quota);
        if (fits > 0 && fits < batch.length) return this.send(batch.slice(0, fits), false);
        const until = nextUtcMonth(clock.now());
        if (until !== this.pausedUntil) {
          this.pausedUntil = until;
          this.persisted.save();
          report({ kind: 'quota', error, pausedUntil: new Date(until) });
        }
        return false;
      }
      this.attempt += 1;
      if (error instanceof PlaytraceError && error.status < 500 && error.status !== 429 && error.status !== 408) {
        // A refused key or a wrong address: nothing to gain from hurrying.
        this.retryAt = clock.now() + this.options.backoff.maxMs;
        if (this.refusedStatus !== error.status) {
          this.refusedStatus = error.status;
          report({ kind: 'refused', error });
        }
        return false;
      }
      this.retryAt = clock.now() + waitAfter(error, this.attempt, this.options.backoff, this.options.random);
      if (error instanceof PlaytraceError && error.retryAfter !== undefined) {
        this.askedUntil = clock.now() + error.retryAfter * 1000;
      }
      return false;
    } finally {
      wire?.forEach((id) => this.onTheWire.delete(id));
    }
  }

  /** Removes the batch's events from the queue; answers how many were still there. */
  private forget(batch: TrackEvent[]): number {
    const ids = new Set(batch.map((event) => event.event_id));
    const before = this.events.length;
    this.events = this.events.filter((event) => !ids.has(event.event_id));
    this.persisted.save();
    return before - this.events.length;
  }
}

/** What the service's error says about the events of this batch. */
const OTHER_PLAYER = /another player/i;

/**
 * The 403 of a batch in which an event names another player than the request's player token
 * (`This player token is for another player`): the batch is refused whole, so it is split
 * like a 400 and the events of the other player are dropped. Only events that name a player
 * can cause it; other 403s (an origin the game does not allow) stay `refused` and are retried.
 */
function isOtherPlayer(error: PlaytraceError, batch: TrackEvent[]): boolean {
  return (
    error.status === 403 &&
    typeof error.body.error === 'string' &&
    OTHER_PLAYER.test(error.body.error) &&
    batch.some((event) => event.player_id !== undefined)
  );
}

/** Events that still fit in the month's quota, from a quota-exceeded 429's `quota`. */
function stillFits(quota: unknown): number {
  const { current, limit } = (quota ?? {}) as { current?: unknown; limit?: unknown };
  if (typeof current !== 'number' || typeof limit !== 'number') return 0;
  return Math.max(0, Math.floor(limit - current));
}
