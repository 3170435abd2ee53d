// The request and response shapes of the game-side routes, named once for the rest of the
// library. They come from schema.ts, generated from openapi/openapi.json (`npm run types`).
import type { components } from './schema.js';

type Schemas = components['schemas'];

export type QuotaStatus = Schemas['QuotaStatus'];
export type TrackAccepted = Schemas['TrackAccepted'];
export type SchemaViolation = Schemas['SchemaViolation'];
export type SubmittedEntry = Schemas['SubmittedEntry'];
export type LeaderboardEntry = Schemas['LeaderboardEntry'];
export type LeaderboardPage = Schemas['LeaderboardPage'];
export type PlayerStanding = Schemas['PlayerStanding'];
/** A tournament board's settings and where it stands (`tournament` on board reads and score answers; null on an ordinary board). */
export type TournamentView = Schemas['TournamentView'];
/** `upcoming` (before `starts_at`), `live`, or `ended` (from `ends_at` on). */
export type TournamentState = Schemas['TournamentState'];
/** What `joinTournament` answers: the player takes part, and the tournament as it stands. */
export type TournamentJoined = Schemas['TournamentJoined'];
export type Achievement = Schemas['Achievement'];
export type AchievementList = Schemas['AchievementList'];
export type UnlockResult = Schemas['UnlockResult'];
export type PresenceItem = Schemas['PresenceItem'];
export type PresenceList = Schemas['PresenceList'];
export type GameConfig = Schemas['GameConfig'];
export type Save = Schemas['Save'];
export type SaveReceipt = Schemas['SaveReceipt'];
export type SlotList = Schemas['SlotList'];
export type FunnelList = Schemas['FunnelList'];
export type FunnelReport = Schemas['FunnelReport'];
export type ProgressionReport = Schemas['ProgressionReport'];
export type EconomyReport = Schemas['EconomyReport'];

/** Any JSON value. */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/** Event properties: a JSON object. */
export type Properties = { [key: string]: Json };

/**
 * One event as sent to `POST /v1/track` (section 2.1 of the interface, with `event_id`). The
 * route takes one object or an array, so its body is not typed in the OpenAPI document.
 */
export interface TrackEvent {
  event_name: string;
  session_id: string;
  player_id?: string;
  properties?: Properties;
  client_timestamp: string;
  event_id: string;
}

/** Which scores are better on a board. */
export type ScoreOrder = 'higher' | 'lower';

/**
 * What a submitted score does to the player's entry: `best` keeps the better one (the
 * default), `latest` replaces it, `increment` adds to it, `decrement` subtracts from it.
 */
export type ScoreOperator = 'best' | 'latest' | 'increment' | 'decrement';

/** Presence status a game sets (`offline` is only ever reported by the service). */
export type ActivityStatus = 'playing' | 'waiting' | 'idle';
