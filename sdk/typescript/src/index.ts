// @playtrace/sdk: the playtrace game client for browsers, Electron and engines on JavaScript.
//
//   import { init } from '@playtrace/sdk';
//   const playtrace = init({ baseUrl: 'https://analytics.example.com', apiKey: 'pt_...', playerId: 'ann' });
//   playtrace.track('level_start', { level: 3 });
//   await playtrace.submitScore('high-scores', 4200);
import { Playtrace, type PlaytraceOptions } from './client.js';
import { browserStorage, memoryStorage } from './storage.js';

/** A client for one game key; its queue is kept in localStorage when the browser has one. */
export function init(options: PlaytraceOptions): Playtrace {
  return new Playtrace({ ...options, storage: options.storage ?? browserStorage() ?? memoryStorage() });
}

export { Playtrace, MAX_BATCH } from './client.js';
export type { PlaytraceOptions, SaveConflictHandler } from './client.js';
export type { Problem, QueueStats } from './events.js';
export type { ScoreOptions } from './scores.js';
export type {
  ProgressionLevels,
  ProgressionOptions,
  ProgressionStatus,
  ResourceFlow,
  ResourceOptions,
} from './standard.js';
export type { PlayerAuth, PlayerIdentity } from './session.js';
export { SCORE_WINDOW_MS } from './scores.js';
export { PlaytraceError, NetworkError, SaveConflictError, type TournamentRefusal } from './errors.js';
export { memoryStorage, browserStorage, type StorageAdapter } from './storage.js';
export type { Clock } from './clock.js';
export type * from './types.js';
