// The standard event kinds the service counts for its progression and economy reports
// (docs/events.md, "Progression and economy events"): `trackProgression` and `trackResource`
// build their properties and check them by the same rules as the service's ready schemas, so a
// mistake throws where it is made instead of being stored and left out of the reports.
import type { Properties } from './types.js';

/** What happened to a step of the game. */
export type ProgressionStatus = 'start' | 'complete' | 'fail';

/** One to three level names, outermost first: world, level, stage. */
export type ProgressionLevels = [string] | [string, string] | [string, string, string];

export interface ProgressionOptions {
  /** Which attempt at the step this is (on `complete`: how many it took), a whole number from 1. */
  attempt?: number;
  /** The score reached. */
  score?: number;
  /** More properties sent along. */
  properties?: Properties;
  /** The player, when not the client's. */
  playerId?: string;
}

/** Gained (`source`) or spent (`sink`). */
export type ResourceFlow = 'source' | 'sink';

export interface ResourceOptions {
  /** What it was gained by or spent on: `shop`, `reward`, `quest`. */
  itemType?: string;
  /** Which one: `sword_1`. */
  itemId?: string;
  /** More properties sent along. */
  properties?: Properties;
  /** The player, when not the client's. */
  playerId?: string;
}

const MAX_NAME = 64;
const MAX_ATTEMPT = 1_000_000;
const MAX_AMOUNT = 1_000_000_000;

function name(value: unknown, what: string): string {
  if (typeof value !== 'string' || value.length === 0 || [...value].length > MAX_NAME) {
    throw new TypeError(`${what} must be a string of 1 to ${MAX_NAME} characters`);
  }
  return value;
}

/** The properties of a `progression` event. */
export function progressionProperties(
  status: ProgressionStatus,
  levels: ProgressionLevels,
  options: ProgressionOptions = {},
): Properties {
  if (status !== 'start' && status !== 'complete' && status !== 'fail') {
    throw new TypeError('trackProgression: status must be start, complete or fail');
  }
  if (!Array.isArray(levels) || levels.length < 1 || levels.length > 3) {
    throw new TypeError('trackProgression: levels must hold one to three level names');
  }
  const properties: Properties = { ...options.properties, status };
  levels.forEach((level, index) => {
    properties[`level${index + 1}`] = name(level, `trackProgression: level ${index + 1}`);
  });
  const { attempt, score } = options;
  if (attempt !== undefined) {
    if (!Number.isInteger(attempt) || attempt < 1 || attempt > MAX_ATTEMPT) {
      throw new TypeError(`trackProgression: attempt must be a whole number from 1 to ${MAX_ATTEMPT}`);
    }
    properties.attempt = attempt;
  }
  if (score !== undefined) {
    if (typeof score !== 'number' || !Number.isFinite(score)) {
      throw new TypeError('trackProgression: score must be a finite number');
    }
    properties.score = score;
  }
  return properties;
}

/** The properties of a `resource` event. */
export function resourceProperties(
  flow: ResourceFlow,
  currency: string,
  amount: number,
  options: ResourceOptions = {},
): Properties {
  if (flow !== 'source' && flow !== 'sink') {
    throw new TypeError('trackResource: flow must be source or sink');
  }
  if (typeof amount !== 'number' || !Number.isFinite(amount) || amount < 0 || amount > MAX_AMOUNT) {
    throw new TypeError(`trackResource: amount must be a number from 0 to ${MAX_AMOUNT} (the flow gives the direction)`);
  }
  const properties: Properties = {
    ...options.properties,
    flow,
    currency: name(currency, 'trackResource: currency'),
    amount,
  };
  if (options.itemType !== undefined) properties.item_type = name(options.itemType, 'trackResource: itemType');
  if (options.itemId !== undefined) properties.item_id = name(options.itemId, 'trackResource: itemId');
  return properties;
}
