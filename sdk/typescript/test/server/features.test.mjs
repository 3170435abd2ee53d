// Leaderboards, achievements, presence, remote config and cloud saves through the SDK against
// the real service.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { init, memoryStorage, PlaytraceError, SaveConflictError } from '../../dist/node.js';
import { call, gameWithClient, serverFor, sleep } from './setup.mjs';

describe('game features', () => {
  const env = serverFor({ before, after });

  it('throttles scores: the first at once, the best of the next 5 seconds at the window end', async () => {
    const { gameId, client, requests } = await gameWithClient(env);
    await call(env.server, 'POST', `/v1/games/${gameId}/leaderboards`, {
      token: env.studio.token,
      body: { board_name: 'speedrun', order: 'lower' },
    });
    const scoreSends = () => requests.filter((r) => r.path === '/v1/leaderboards').length;
    // The window opens when the first score is sent, so it is timed from before that send (on
    // a loaded machine the first answer can take over half a second).
    const started = Date.now();
    const first = await client.submitScore('speedrun', 95.2, { playerName: 'Ann' });
    assert.deepEqual([first.score, first.rank, first.order], [95.2, 1, 'lower']);
    const answers = Promise.all([
      client.submitScore('speedrun', 99, { playerName: 'Ann' }),
      client.submitScore('speedrun', 70.5, { playerName: 'Ann' }),
      client.submitScore('speedrun', 80, { playerName: 'Ann' }),
    ]);
    await sleep(300);
    assert.equal(scoreSends(), 1, 'improvements wait for the window');
    const settled = await answers;
    assert.ok(Date.now() - started >= 4_500, 'sent when the 5-second window ended');
    assert.equal(scoreSends(), 2, 'one request for the whole window');
    assert.deepEqual(settled.map((a) => [a.score, a.updated]), [[95.2, false], [70.5, true], [70.5, true]], 'a slower time is answered at once');

    const page = await client.getLeaderboard('speedrun');
    assert.deepEqual(page.entries.map((e) => [e.player_id, e.score, e.player_name]), [['ann', 70.5, 'Ann']]);
    await client.close();
  });

  it('reads boards by page and around the player', async () => {
    const { client } = await gameWithClient(env);
    for (let i = 1; i <= 12; i++) await client.submitScore('arena', i * 10, { playerId: `p${String(i).padStart(2, '0')}` });
    const second = await client.getLeaderboard('arena', { limit: 5, offset: 5 });
    assert.deepEqual(second.entries.map((e) => e.rank), [6, 7, 8, 9, 10]);
    assert.equal(second.total, 12);
    const standing = await client.getStanding('arena', { playerId: 'p06', around: 2 });
    assert.equal(standing.rank, 7);
    assert.deepEqual(standing.entries.map((e) => e.player_id), ['p08', 'p07', 'p06', 'p05', 'p04']);
    assert.equal(await client.getStanding('arena', { playerId: 'nobody' }), null);
    await assert.rejects(client.getLeaderboard('arena', { limit: 500 }), (e) => e instanceof PlaytraceError && e.status === 400);
    await client.close();
  });

  it('unlocks achievements and lists them with the player status', async () => {
    const { gameId, client } = await gameWithClient(env);
    for (const [key, points] of [['first_blood', 10], ['marathon', 50]]) {
      await call(env.server, 'POST', `/v1/games/${gameId}/achievements`, {
        token: env.studio.token,
        body: { key, name: key, description: `Earn ${key}`, points },
      });
    }
    const unlocked = await client.unlockAchievement('first_blood');
    assert.deepEqual([unlocked.success, unlocked.already_unlocked, unlocked.total_points], [true, false, 10]);
    assert.equal((await client.unlockAchievement('first_blood')).already_unlocked, true);
    const list = await client.getAchievements();
    const status = Object.fromEntries(list.achievements.map((a) => [a.key, a.unlocked]));
    assert.deepEqual(status, { first_blood: true, marathon: false });
    assert.deepEqual([list.total_points, list.unlocked_points], [60, 10]);
    await assert.rejects(client.unlockAchievement('no_such_thing'), (e) => e.status === 404);
    await client.close();
  });

  it('sets presence with status and details, keeps it fresh, and clears it', async () => {
    const { client } = await gameWithClient(env, { heartbeatMs: 1_200 });
    await client.setActivity('Boss fight', { status: 'waiting', details: { boss: 'Hydra' } });
    const first = await client.getPresence();
    assert.deepEqual([first.status, first.activity, first.data], ['waiting', 'Boss fight', { boss: 'Hydra' }]);
    await sleep(2_600);
    const later = await client.getPresence();
    assert.ok(later.last_updated > first.last_updated, `the heartbeat refreshed it: ${first.last_updated} -> ${later.last_updated}`);
    const listed = await client.listPresence({ status: 'waiting' });
    assert.deepEqual(listed.players.map((p) => p.player_id), ['ann']);
    await client.clearActivity();
    assert.equal((await client.getPresence())?.status ?? 'offline', 'offline');
    await client.close();
  });

  it('caches the remote config by ETag and sees a change', async () => {
    const { gameId, client, requests } = await gameWithClient(env);
    const token = env.studio.token;
    await call(env.server, 'PUT', `/v1/games/${gameId}/config`, { token, body: { values: { spawn_rate: 3 } } });
    assert.deepEqual(await client.getConfig(), { spawn_rate: 3 });
    assert.deepEqual(await client.getConfig(), { spawn_rate: 3 });
    const statuses = () => requests.filter((r) => r.path === '/v1/config').map((r) => r.status);
    assert.deepEqual(statuses(), [200, 304], 'the second read is an empty 304');
    await call(env.server, 'PUT', `/v1/games/${gameId}/config`, { token, body: { values: { spawn_rate: 5 } } });
    let seen;
    for (let i = 0; i < 20 && seen?.spawn_rate !== 5; i++) {
      seen = await client.getConfig();
      if (seen.spawn_rate !== 5) await sleep(100);
    }
    assert.deepEqual(seen, { spawn_rate: 5 });
    await client.close();
  });

  it('writes saves with versions and resolves a conflict with the stored copy', async () => {
    const { key, client } = await gameWithClient(env);
    const phone = init({ baseUrl: env.server.url, apiKey: key, playerId: 'ann', storage: memoryStorage() });
    assert.equal(await client.loadSave('main'), null);
    assert.equal((await client.writeSave('main', { gold: 10, level: 1 })).version, 1);
    assert.equal((await client.writeSave('main', { gold: 20, level: 2 })).version, 2);

    const onPhone = await phone.loadSave('main');
    assert.deepEqual(onPhone.data, { gold: 20, level: 2 });
    await phone.writeSave('main', { gold: 5, level: 3 });

    const error = await client.writeSave('main', { gold: 99, level: 2 }).catch((e) => e);
    assert.ok(error instanceof SaveConflictError, String(error));
    assert.deepEqual(error.stored.data, { gold: 5, level: 3 });
    const merged = await client.writeSave('main', { gold: 99, level: 2 }, {
      onConflict: ({ stored, mine }) => ({ gold: mine.gold, level: Math.max(stored.data.level, mine.level) }),
    });
    assert.equal(merged.version, 4);
    assert.deepEqual((await phone.loadSave('main')).data, { gold: 99, level: 3 });
    assert.deepEqual((await client.listSaves()).saves.map((s) => s.slot), ['main']);
    await client.deleteSave('main');
    assert.equal(await client.loadSave('main'), null);
    await phone.close();
    await client.close();
  });
});
