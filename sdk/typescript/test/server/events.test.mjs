// Events through the SDK into the real service: batches stored whole, the stamps kept, a
// refused event dropped alone, and a server that goes away and comes back with every event
// stored exactly once, even when the client restarts meanwhile or an answer is lost.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { fileStorage, init } from '../../dist/node.js';
import { call, gameWithClient, serverFor, storedCounts, storedEvents } from './setup.mjs';

describe('events', () => {
  const env = serverFor({ before, after });

  it('stores 250 tracked events, sent in batches of at most 100, with their stamps', async () => {
    const { gameId, client, requests } = await gameWithClient(env);
    for (let i = 0; i < 250; i++) client.track('coin_collected', { i, zone: 'caves' });
    const stats = await client.flush();
    assert.deepEqual([stats.queued, stats.sent], [0, 250]);
    const tracks = requests.filter((r) => r.path === '/v1/track');
    assert.ok(tracks.length >= 3 && tracks.every((r) => r.status === 202), JSON.stringify(tracks));
    assert.deepEqual(await storedCounts(env, gameId), { total: 250, coin_collected: 250 });
    const [newest] = await storedEvents(env, gameId);
    assert.equal(newest.player_id, 'ann');
    assert.equal(newest.properties.zone, 'caves');
    assert.equal(newest.session_id, client.sessionId);
    assert.match(newest.event_id, /^[0-9a-f-]{36}$/);
    await client.close();
  });

  it('drops only the event that breaks an enforced schema, and reports it', async () => {
    const problems = [];
    const { gameId, client } = await gameWithClient(env, { onError: (p) => problems.push(p) });
    const token = env.studio.token;
    await call(env.server, 'PUT', `/v1/games/${gameId}/event-schemas/purchase`, {
      token,
      body: { type: 'object', required: ['amount'], properties: { amount: { type: 'number' } } },
    });
    await call(env.server, 'PATCH', `/v1/games/${gameId}`, { token, body: { event_validation: 'enforce' } });
    for (let i = 0; i < 20; i++) client.track('purchase', i === 13 ? { amount: 'lots' } : { amount: i });
    await client.flush();
    assert.deepEqual(await storedCounts(env, gameId), { total: 19, purchase: 19 });
    assert.equal(problems.length, 1, JSON.stringify(problems));
    assert.equal(problems[0].kind, 'rejected');
    assert.equal(problems[0].error.status, 400);
    assert.deepEqual(problems[0].events.map((e) => e.properties.amount), ['lots']);
    assert.ok(Array.isArray(problems[0].error.body.violations));
    await client.close();
  });

  it('keeps events while the server is down, across a client restart, and stores each once', async () => {
    const { gameId, key, client, dir } = await gameWithClient(env);
    client.track('before_outage');
    await client.flush();
    await env.server.halt();
    for (let i = 0; i < 30; i++) client.track('during_outage', { i });
    const left = await client.flush();
    assert.equal(left.queued, 30, 'nothing is lost while the server is away');
    await client.close();

    await env.server.restart();
    // The game starts again: a new client on the same folder sends what the last run kept.
    const again = init({ baseUrl: env.server.url, apiKey: key, playerId: 'ann', storage: fileStorage(dir) });
    again.track('after_outage');
    const stats = await again.flush();
    assert.equal(stats.queued, 0);
    assert.deepEqual(await storedCounts(env, gameId), { total: 32, before_outage: 1, during_outage: 30, after_outage: 1 });
    await again.close();
  });

  it('stores a batch once when its answer is lost on the way back and the client sends it again', async () => {
    // A proxy in front of the real server that lets the first track request through and then
    // cuts the connection instead of passing the 202 back.
    let cut = 1;
    const proxy = createServer(async (req, res) => {
      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      const upstream = await fetch(env.server.url + req.url, {
        method: req.method,
        headers: { 'content-type': 'application/json', 'x-game-api-key': req.headers['x-game-api-key'] },
        body: chunks.length ? Buffer.concat(chunks) : undefined,
      });
      const body = Buffer.from(await upstream.arrayBuffer());
      if (req.url === '/v1/track' && cut-- > 0) return req.socket.destroy();
      res.writeHead(upstream.status, { 'content-type': 'application/json' });
      res.end(body);
    });
    await new Promise((ok) => proxy.listen(0, '127.0.0.1', ok));
    const { gameId, client } = await gameWithClient(env, {
      baseUrl: `http://127.0.0.1:${proxy.address().port}`,
      backoff: { baseMs: 50, maxMs: 200 },
    });
    for (let i = 0; i < 40; i++) client.track('level_up', { i });
    const first = await client.flush();
    assert.equal(first.queued, 40, 'the client did not hear the answer, so it keeps the events');
    const second = await client.flush();
    assert.equal(second.queued, 0);
    assert.deepEqual(await storedCounts(env, gameId), { total: 40, level_up: 40 }, 'sent twice, stored once');
    await client.close();
    proxy.close();
  });
});
