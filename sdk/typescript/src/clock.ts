// Time and timers behind one small interface, so the tests can drive them by hand.

export type TimerHandle = unknown;

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  setTimeout(run: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/**
 * The real clock. Its timers never keep a Node process alive on their own: a timer that a
 * caller's promise waits on is held with `keepAlive`.
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(run, ms) {
    const handle = setTimeout(run, ms) as unknown as { unref?: () => void };
    handle.unref?.();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * Makes a timer keep a Node process alive until it fires (a no-op elsewhere, and for the tests'
 * clock). For the timers a caller's promise waits on: unref'd, the process would end with the
 * promise unsettled (an awaited call at the top level exits with code 13).
 */
export function keepAlive(handle: TimerHandle): void {
  (handle as { ref?: () => void } | undefined)?.ref?.();
}

/** The first instant of the next UTC month after `ms`. */
export function nextUtcMonth(ms: number): number {
  const date = new Date(ms);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
}

/** The longest delay a timer takes reliably (setTimeout overflows above 2^31 - 1 ms). */
export const MAX_TIMER_MS = 24 * 60 * 60 * 1000;
