// Player identity through the SDK against the real service: a game that requires player
// tokens, a client signing in with its device, every call acting as that player, an account
// id signed by the "studio backend" linked to it, and a bare key refused.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { init, memoryStorage, PlaytraceError } from '../../dist/node.js';
import { call, gameWithClient, serverFor, storedEvents } from './setup.mjs';

describe('player identity', () => {
  const env = serverFor({ before, after });

  it('signs in with the device, acts as that player, and links a signed account id', async () => {
    const { gameId, key, client: bare } = await gameWithClient(env);
    const token = env.studio.token;
    await call(env.server, 'PATCH', `/v1/games/${gameId}`, { token, body: { player_auth: 'required' } });
    const { secret } = await call(env.server, 'POST', `/v1/games/${gameId}/player-secret`, { token });

    // The bare key no longer writes a player's save.
    const refused = await bare.writeSave('main', { gold: 1 }).catch((error) => error);
    assert.ok(refused instanceof PlaytraceError && refused.status === 401, String(refused));
    await bare.close();

    const storage = memoryStorage();
    const game = init({ baseUrl: env.server.url, apiKey: key, storage, playerAuth: 'device', flushIntervalMs: 200 });
    const player = await game.signIn();
    game.track('level_start', { level: 1 });
    await game.flush();
    const entry = await game.submitScore('arena', 42);
    assert.equal(entry.player_id, player);
    assert.equal((await game.writeSave('main', { gold: 5 })).version, 1);
    const [event] = await storedEvents(env, gameId);
    assert.equal(event.player_id, player, 'events carry the signed-in player');

    // The studio's backend signs the account id; linking it makes it sign in as this player.
    const signed = (customId) => {
      const timestamp = Math.floor(Date.now() / 1000);
      const signature = createHmac('sha256', secret).update(`${customId}:${timestamp}`).digest('hex');
      return { customId, timestamp, signature };
    };
    assert.deepEqual(await game.linkIdentity(signed('account-7')), { player_id: player, linked: true });
    const laptop = init({ baseUrl: env.server.url, apiKey: key, storage: memoryStorage(), playerAuth: () => signed('account-7') });
    assert.equal(await laptop.signIn(), player, 'the account signs in as the device player');
    assert.deepEqual((await laptop.loadSave('main')).data, { gold: 5 }, 'and finds its save');

    // Another player's token cannot write this player's save.
    const stranger = init({ baseUrl: env.server.url, apiKey: key, storage: memoryStorage(), playerAuth: 'device' });
    await stranger.signIn();
    const error = await stranger.writeSave('main', { gold: 0 }, { playerId: player }).catch((e) => e);
    assert.equal(error.status, 403);
    for (const client of [game, laptop, stranger]) await client.close();
  });

  it("drops the events of another player the token refuses (403) and stores the player's own", async () => {
    const { gameId, key, client: bare } = await gameWithClient(env);
    await bare.close();
    await call(env.server, 'PATCH', `/v1/games/${gameId}`, { token: env.studio.token, body: { player_auth: 'optional' } });
    const problems = [];
    const game = init({ baseUrl: env.server.url, apiKey: key, storage: memoryStorage(), playerAuth: 'device', onError: (p) => problems.push(p) });
    const player = await game.signIn();
    game.track('before', { i: 1 });
    game.track('other', { i: 2 }, { playerId: 'someone-else' });
    game.track('after', { i: 3 });
    const stats = await game.flush();
    assert.equal(stats.queued, 0, 'nothing is left to block the queue');
    assert.deepEqual(problems.map((p) => [p.kind, p.error?.status]), [['rejected', 403]]);
    assert.deepEqual(problems[0].events.map((e) => e.event_name), ['other']);
    const stored = await storedEvents(env, gameId);
    assert.deepEqual(stored.map((e) => e.event_name).sort(), ['after', 'before']);
    assert.ok(stored.every((e) => e.player_id === player));
    await game.close();
  });
});

