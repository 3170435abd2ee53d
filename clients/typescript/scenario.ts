// One short session through the client generated from openapi/openapi.json (openapi-typescript
// types + openapi-fetch), against the real binary. Every request goes through the generated
// client, so a spec change that breaks these calls fails `tsc`, and a server that answers
// something else than its spec says fails an assertion. clients/python/scenario.py is the same
// session in Python.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import createClient from 'openapi-fetch';
import type { components, paths } from './generated/schema.js';
import { startPlaytrace, type Server } from './server.js';

type Schemas = components['schemas'];

let server: Server;
before(async () => {
  server = await startPlaytrace();
});
after(async () => {
  await server?.stop();
});

test('a studio and a game go through the generated TypeScript client', async () => {
  const api = createClient<paths>({ baseUrl: server.url });

  // A studio account, its game and the game's API key.
  const email = `ts-${Date.now()}@studio.test`;
  const registered = await api.POST('/v1/auth/register', { body: { email, password: 'correct horse battery' } });
  assert.equal(registered.response.status, 201);
  const token: string = registered.data!.token;
  assert.equal(registered.data!.user.email, email);
  const studio = { headers: { authorization: `Bearer ${token}` } };

  const created = await api.POST('/v1/games', { ...studio, body: { name: 'Generated Client Game' } });
  assert.equal(created.response.status, 201);
  const game: Schemas['Game'] = created.data!;
  assert.equal(game.name, 'Generated Client Game');
  assert.equal(game.tier, 'free');
  assert.equal(game.role, 'owner');
  const gameId = game.game_id;
  const path = { game_id: gameId };

  const keyAnswer = await api.POST('/v1/games/{game_id}/api-keys', { ...studio, params: { path }, body: { name: 'client', environment: 'development' } });
  assert.equal(keyAnswer.response.status, 201);
  assert.equal(keyAnswer.data!.environment, 'development');
  assert.match(keyAnswer.data!.key, /^pt_/);
  const withKey = { headers: { 'x-game-api-key': keyAnswer.data!.key } };

  // A batch of two events.
  const tracked = await api.POST('/v1/track', {
    ...withKey,
    body: [
      { event_name: 'level_start', session_id: 's-1', player_id: 'ann', properties: { level: 3 } },
      { event_name: 'level_end', session_id: 's-1', player_id: 'ann', properties: { level: 3, won: true }, client_timestamp: new Date().toISOString() },
    ],
  });
  assert.equal(tracked.response.status, 202);
  assert.equal(tracked.data!.received, 2);

  // A leaderboard score, then the board.
  const submitted = await api.POST('/v1/leaderboards/{board_name}/entries', {
    ...withKey,
    params: { path: { board_name: 'high-scores' } },
    body: { player_id: 'ann', player_name: 'Ann', score: 4200 },
  });
  assert.equal(submitted.response.status, 200);
  assert.equal(submitted.data!.status, 'ok');
  assert.equal(submitted.data!.order, 'higher');
  assert.equal(submitted.data!.rank, 1);
  const board = await api.GET('/v1/leaderboards/{board_name}', { ...withKey, params: { path: { board_name: 'high-scores' } } });
  assert.equal(board.response.status, 200);
  assert.equal(board.data!.total, 1);
  const [first] = board.data!.entries;
  assert.deepEqual([first.rank, first.player_id, first.player_name, first.score], [1, 'ann', 'Ann', 4200]);

  // A cloud save, then a second write from a stale version: a typed 409 with the stored version.
  const slot = { path: { player_id: 'ann', slot: 'main' } };
  const saved = await api.PUT('/v1/saves/{player_id}/{slot}', { ...withKey, params: slot, body: { version: 0, data: { level: 3, coins: 12 } } });
  assert.equal(saved.response.status, 200);
  assert.equal(saved.data!.version, 1);
  const again = await api.PUT('/v1/saves/{player_id}/{slot}', { ...withKey, params: slot, body: { version: 1, data: { level: 4, coins: 30 } } });
  assert.equal(again.data!.version, 2);
  const stale = await api.PUT('/v1/saves/{player_id}/{slot}', { ...withKey, params: slot, body: { version: 1, data: { level: 1 } } });
  assert.equal(stale.response.status, 409);
  assert.equal(stale.data, undefined);
  // The error is typed by the operation's error statuses; `version` narrows it to the conflict.
  const conflict = stale.error!;
  assert.ok('version' in conflict, 'the 409 body carries the stored version');
  assert.equal(typeof conflict.error, 'string');
  assert.equal(conflict.version, 2);
  const read = await api.GET('/v1/saves/{player_id}/{slot}', { ...withKey, params: slot });
  assert.deepEqual([read.data!.version, read.data!.data], [2, { level: 4, coins: 30 }]);

  // A validation error: an achievement without its description is a typed 400 naming the field.
  const refused = await api.POST('/v1/games/{game_id}/achievements', {
    ...studio,
    params: { path },
    // @ts-expect-error the spec marks `description` as required; the server must refuse it too
    body: { key: 'first_win', name: 'First win', points: 10 },
  });
  assert.equal(refused.response.status, 400);
  const invalid: Schemas['Error'] = refused.error!;
  assert.equal(invalid.field, 'description');
  assert.match(invalid.error, /description/);

  // Remote config: set by the studio, read back with the game key.
  const values = { spawn_rate: 1.5, motd: 'Welcome back', features: { pvp: true } };
  const set = await api.PUT('/v1/games/{game_id}/config', { ...studio, params: { path }, body: { values } });
  assert.equal(set.response.status, 200);
  assert.deepEqual(set.data!.values, values);
  const config = await api.GET('/v1/config', { ...withKey });
  assert.equal(config.response.status, 200);
  assert.deepEqual(config.data!.config, values);
  assert.ok(config.response.headers.get('etag'));
});
