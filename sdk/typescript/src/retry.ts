// Trying a call again after a failure worth retrying, waiting longer each time.
import { backoffDelay, type BackoffOptions } from './backoff.js';
import { keepAlive, type Clock } from './clock.js';
import { isRetryable, PlaytraceError } from './errors.js';

export interface RetryPolicy extends BackoffOptions {
  /** Tries in all, the first included (default 4). */
  attempts: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 4, baseMs: 500, maxMs: 8_000 };

/** Waits `ms`. A caller awaits this, so in Node the wait keeps the process alive. */
export function sleep(clock: Clock, ms: number): Promise<void> {
  return new Promise((done) => keepAlive(clock.setTimeout(done, ms)));
}

/**
 * The wait before retrying after `error`: what the service asked for (`Retry-After`) when it
 * asked for longer than the backoff, else the backoff.
 */
export function waitAfter(error: unknown, attempt: number, backoff: BackoffOptions, random?: () => number): number {
  const asked = error instanceof PlaytraceError && error.retryAfter !== undefined ? error.retryAfter * 1000 : 0;
  return Math.max(asked, backoffDelay(attempt, backoff, random));
}

/** Runs `call`, retrying network errors, 5xx and 429 up to the policy's attempts. */
export async function withRetries<T>(clock: Clock, policy: RetryPolicy, call: () => Promise<T>, random?: () => number): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (attempt >= policy.attempts || !isRetryable(error)) throw error;
      await sleep(clock, waitAfter(error, attempt, policy, random));
    }
  }
}
