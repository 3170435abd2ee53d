// What a call can fail with.

/** The service answered with an error status. `body` is its JSON error (`{ error, ... }`). */
export class PlaytraceError extends Error {
  readonly status: number;
  readonly body: { error?: string; [field: string]: unknown };
  /** Seconds the service asked to wait (`Retry-After`), when it said. */
  readonly retryAfter?: number;

  constructor(status: number, body: unknown, retryAfter?: number) {
    const fields = (body && typeof body === 'object' ? body : {}) as PlaytraceError['body'];
    super(fields.error ? `${fields.error} (${status})` : `playtrace answered ${status}`);
    this.name = 'PlaytraceError';
    this.status = status;
    this.body = fields;
    this.retryAfter = retryAfter;
  }

  /**
   * A leaderboard refused the score because the player is banned from it (403 with `code`
   * `PLAYER_BANNED`, or, from a server before the code, its text).
   */
  get isBanned(): boolean {
    if (this.status !== 403) return false;
    if (typeof this.body.code === 'string') return this.body.code === 'PLAYER_BANNED';
    return this.body.error === 'This player is banned from this leaderboard';
  }

  /** The monthly event quota is used up (429 with `quota`). */
  get isQuotaExceeded(): boolean {
    return this.status === 429 && typeof this.body.quota === 'object' && this.body.quota !== null;
  }

  /**
   * Why a tournament refused a join or a score, read from the answer's `code`:
   * `not_started` (409), `ended` (409), `full` (409), `not_a_tournament` (409, a join of an
   * ordinary board) or `join_required` (403, a score before joining); undefined otherwise.
   * An answer without `code` (a server from before the codes) is read from its status and text.
   */
  get tournamentRefusal(): TournamentRefusal | undefined {
    const code = this.body.code;
    if (typeof code === 'string') return REFUSAL_CODES.get(code);
    return refusalFromText(this.status, typeof this.body.error === 'string' ? this.body.error : '');
  }
}

/** The service's `code` of each tournament refusal. */
const REFUSAL_CODES = new Map<string, TournamentRefusal>([
  ['TOURNAMENT_NOT_STARTED', 'not_started'],
  ['TOURNAMENT_ENDED', 'ended'],
  ['TOURNAMENT_FULL', 'full'],
  ['NOT_A_TOURNAMENT', 'not_a_tournament'],
  ['TOURNAMENT_JOIN_REQUIRED', 'join_required'],
]);

/** A refusal as servers before the codes said it: only its status and the start of its text. */
function refusalFromText(status: number, message: string): TournamentRefusal | undefined {
  if (status === 403) return message.startsWith('join the tournament first') ? 'join_required' : undefined;
  if (status !== 409) return undefined;
  if (message.startsWith('the tournament is full')) return 'full';
  if (message.startsWith('the tournament has ended')) return 'ended';
  if (message.startsWith('the tournament has not started')) return 'not_started';
  if (message.startsWith('this leaderboard is not a tournament')) return 'not_a_tournament';
  return undefined;
}

/** Why a tournament refused a join or a score (see `PlaytraceError.tournamentRefusal`). */
export type TournamentRefusal = 'not_started' | 'ended' | 'full' | 'not_a_tournament' | 'join_required';

/** The service could not be reached, or did not answer in time. */
export class NetworkError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message);
    this.name = 'NetworkError';
    if (options?.cause !== undefined) (this as { cause?: unknown }).cause = options.cause;
  }
}

/** A save was written by someone else since it was read; `stored` is the copy there now. */
export class SaveConflictError extends Error {
  readonly stored: import('./types.js').Save | null;

  constructor(slot: string, stored: import('./types.js').Save | null) {
    super(`save slot ${slot} changed since it was read (stored version ${stored?.version ?? 0})`);
    this.name = 'SaveConflictError';
    this.stored = stored;
  }
}

/**
 * Worth trying again later: the network, a timeout, a 5xx, a 429 (rate limit, or the quota,
 * which the event queue handles on its own), 408. Never a 400 or a 413: the same request
 * would be refused again.
 */
export function isRetryable(error: unknown): boolean {
  if (error instanceof NetworkError) return true;
  if (error instanceof PlaytraceError) {
    return error.status >= 500 || error.status === 429 || error.status === 408;
  }
  return false;
}
