// What the SDK's tests against the real binary share: a server per test file (see
// scripts/lib/playtrace-server.mjs), a studio account and game made through the API, a client
// of the SDK (the Node build) with its queue in a temporary folder, and the dashboard-side
// reads that show what was stored.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, newAccount, newGame, sleep, startPlaytrace } from '../../../../scripts/lib/playtrace-server.mjs';
import { fileStorage, init } from '../../dist/node.js';

export { call, sleep };

/** A server before the file's tests and stopped after: `env.server`, `env.studio`. */
export function serverFor(hooks) {
  const env = {};
  hooks.before(async () => {
    env.server = await startPlaytrace();
    env.studio = await newAccount(env.server, 'sdk');
  });
  hooks.after(async () => {
    await env.server?.stop();
  });
  return env;
}

const folders = [];
process.on('exit', () => folders.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A new game and a client on its key: { gameId, key, client, storage, requests }. */
export async function gameWithClient(env, options = {}) {
  const { gameId, key } = await newGame(env.server, env.studio, 'SDK Game');
  const dir = mkdtempSync(join(tmpdir(), 'pt-sdk-'));
  folders.push(dir);
  const storage = fileStorage(dir);
  const requests = [];
  // Every request the client makes, with its answer's status, for the tests that count them.
  const fetch = async (url, init) => {
    const response = await globalThis.fetch(url, init);
    requests.push({ method: init.method, path: new URL(url).pathname, status: response.status });
    return response;
  };
  const client = init({ baseUrl: env.server.url, apiKey: key, playerId: 'ann', storage, fetch, flushIntervalMs: 200, ...options });
  return { gameId, key, client, storage, requests, dir };
}

/** Stored events of a game by name, read through the dashboard's counts. */
export async function storedCounts(env, gameId) {
  const answer = await call(env.server, 'GET', `/v1/games/${gameId}/events/counts`, { token: env.studio.token });
  return { total: answer.total, ...Object.fromEntries(answer.counts.map((c) => [c.event_name, c.count])) };
}

/** The newest stored events of a game (up to 200). */
export async function storedEvents(env, gameId) {
  const answer = await call(env.server, 'GET', `/v1/games/${gameId}/events?limit=200`, { token: env.studio.token });
  return answer.events;
}
