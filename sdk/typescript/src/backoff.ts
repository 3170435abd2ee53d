// How long to wait before trying again.

export interface BackoffOptions {
  /** The first wait, in ms (default 1,000). */
  baseMs: number;
  /** The longest wait, in ms (default 60,000). */
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 1_000, maxMs: 60_000 };

/**
 * The wait before retry number `attempt` (1 for the first retry): exponential, capped, with
 * "equal jitter" (between half and all of the step) so that many clients that failed together
 * do not all come back together, while each still waits longer after each failure.
 */
export function backoffDelay(attempt: number, options: BackoffOptions, random: () => number = Math.random): number {
  const step = Math.min(options.maxMs, options.baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(step / 2 + random() * (step / 2));
}

/** `Retry-After` in ms: delta seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null | undefined, now: number): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
