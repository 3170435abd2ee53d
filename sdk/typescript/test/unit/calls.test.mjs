// The other calls' client-side rules: the presence heartbeat, the ETag-cached remote config,
// the save conflict callback, retries of one-shot calls, and calls that need a player.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { memoryStorage, PlaytraceError, SaveConflictError } from '../../dist/index.js';
import { client, FakeClock, fakeService, offline } from './fakes.mjs';

describe('presence', () => {
  it('keeps an activity fresh with a heartbeat before the 10-minute expiry, until cleared', async () => {
    const clock = new FakeClock();
    const service = fakeService(clock, (request) => (request.method === 'DELETE' ? { status: 204 } : undefined));
    const game = client(clock, service);
    await game.setActivity('In a match', { status: 'playing', details: { map: 'dunes' } });
    await clock.advance(9 * 60_000);
    const beats = () => service.requests.filter((r) => r.path === '/v1/activity' && r.method === 'POST');
    assert.deepEqual(beats().map((r) => r.at - beats()[0].at), [0, 240_000, 480_000], 'every 4 minutes');
    assert.deepEqual(beats()[2].body, { ...beats()[0].body, session_id: beats()[2].body.session_id });
    assert.deepEqual(beats()[0].body.details, { map: 'dunes' });
    await game.clearActivity();
    await clock.advance(30 * 60_000);
    assert.equal(beats().length, 3, 'no beat after clearActivity');
    assert.deepEqual(service.requests.at(-1), { ...service.requests.at(-1), method: 'DELETE', body: { player_id: 'ann' } });
  });
});

describe('remote config', () => {
  it('asks with the last ETag and reuses the config on 304, also after a restart', async () => {
    const clock = new FakeClock();
    let version = 1;
    const service = fakeService(clock, (request) => {
      const etag = `"v${version}"`;
      if (request.headers['if-none-match'] === etag) return { status: 304, headers: { etag } };
      return { status: 200, headers: { etag }, body: { config: { speed: version }, updated_at: null } };
    });
    const storage = memoryStorage();
    const game = client(clock, service, { storage });
    assert.deepEqual(await game.getConfig(), { speed: 1 });
    assert.deepEqual(await game.getConfig(), { speed: 1 });
    assert.deepEqual(service.requests.map((r) => r.headers['if-none-match']), [undefined, '"v1"']);
    await game.close();

    const restarted = client(clock, service, { storage });
    assert.deepEqual(await restarted.getConfig(), { speed: 1 });
    assert.equal(service.requests.at(-1).headers['if-none-match'], '"v1"', 'the ETag was kept');
    version = 2;
    assert.deepEqual(await restarted.getConfig(), { speed: 2 });
  });

  it('answers the last config seen while the service cannot be reached', async () => {
    const clock = new FakeClock();
    let down = false;
    const service = fakeService(clock, () => (down ? offline() : { status: 200, headers: { etag: '"a"' }, body: { config: { motd: 'hi' } } }));
    const game = client(clock, service, { retry: { attempts: 1 } });
    await game.getConfig();
    down = true;
    assert.deepEqual(await game.getConfig(), { motd: 'hi' });
  });
});

describe('cloud saves', () => {
  function saves(clock) {
    const slots = new Map();
    return fakeService(clock, (request) => {
      const stored = slots.get(request.path);
      if (request.method === 'GET') return stored ? { status: 200, body: stored } : { status: 404, body: { error: 'Save not found' } };
      if (request.method === 'PUT') {
        const version = stored?.version ?? 0;
        if (request.body.version !== version) return { status: 409, body: { error: 'Version conflict', version } };
        const saved = { slot: request.path.split('/').pop(), version: version + 1, data: request.body.data, updated_at: '2026-11-23T12:00:00Z' };
        slots.set(request.path, saved);
        return { status: 200, body: { slot: saved.slot, version: saved.version, updated_at: saved.updated_at } };
      }
    });
  }

  it('writes with the version it last saw, and hands a conflict to the callback with the stored copy', async () => {
    const clock = new FakeClock();
    const service = saves(clock);
    const laptop = client(clock, service);
    const phone = client(clock, service);
    assert.equal(await laptop.loadSave('slot1'), null);
    assert.equal((await laptop.writeSave('slot1', { gold: 10 })).version, 1);
    assert.equal((await laptop.writeSave('slot1', { gold: 20 })).version, 2, 'the version is tracked');

    await phone.loadSave('slot1');
    await phone.writeSave('slot1', { gold: 25 });
    const seen = [];
    const merged = await laptop.writeSave('slot1', { gold: 30 }, {
      onConflict: ({ stored, mine }) => {
        seen.push({ stored: stored.data, mine });
        return { gold: Math.max(stored.data.gold, mine.gold) + 1 };
      },
    });
    assert.deepEqual(seen, [{ stored: { gold: 25 }, mine: { gold: 30 } }]);
    assert.equal(merged.version, 4);
    assert.deepEqual((await phone.loadSave('slot1')).data, { gold: 31 });
  });

  it('fails with SaveConflictError holding the stored copy when nobody resolves the conflict', async () => {
    const clock = new FakeClock();
    const service = saves(clock);
    const one = client(clock, service);
    const two = client(clock, service);
    await one.writeSave('s', { a: 1 });
    const error = await two.writeSave('s', { b: 2 }).catch((e) => e);
    assert.ok(error instanceof SaveConflictError);
    assert.deepEqual(error.stored.data, { a: 1 });
  });
});

describe('one-shot calls', () => {
  it('retry a 503 and fail with the status of a 404', async () => {
    const clock = new FakeClock();
    let first = true;
    const service = fakeService(clock, (request) => {
      if (request.path === '/v1/achievements/unlock') {
        if (first) {
          first = false;
          return { status: 503, body: { error: 'Service Unavailable' } };
        }
        return { status: 404, body: { error: 'Achievement not found' } };
      }
    });
    const game = client(clock, service);
    const answer = game.unlockAchievement('nope').catch((e) => e);
    await clock.advance(1_000);
    const error = await answer;
    assert.ok(error instanceof PlaytraceError);
    assert.equal(error.status, 404);
    assert.equal(error.body.error, 'Achievement not found');
    assert.equal(service.requests.length, 2);
  });

  it('need a player, from init, setPlayer or the call', async () => {
    const clock = new FakeClock();
    const game = client(clock, fakeService(clock), { playerId: undefined });
    await assert.rejects(game.submitScore('arena', 1), /needs a player/);
    game.setPlayer('zoe');
    game.track('hello');
    const stats = await game.flush();
    assert.equal(stats.sent, 1);
  });
});

describe('tournaments', () => {
  it('joins at once with the client player or another, and tells a full tournament apart', async () => {
    const clock = new FakeClock();
    const tournament = { state: 'live', starts_at: null, ends_at: null, seconds_left: null, max_players: 2, players: 1, join_required: true };
    let full = false;
    const service = fakeService(clock, (request) => {
      if (!request.path.endsWith('/join')) return undefined;
      if (full) return { status: 409, body: { error: 'the tournament is full: it takes at most 2 players', code: 'TOURNAMENT_FULL' } };
      return { status: 200, body: { board_name: 'cup 1', player_id: request.body.player_id, joined: true, players: 1, tournament } };
    });
    const game = client(clock, service);
    const joined = await game.joinTournament('cup 1');
    assert.deepEqual([joined.joined, joined.player_id, joined.tournament.state], [true, 'ann', 'live']);
    assert.deepEqual(service.requests.map((r) => [r.method, r.path, r.body]), [['POST', '/v1/leaderboards/cup%201/join', { player_id: 'ann' }]]);
    assert.equal(clock.now(), service.requests[0].at, 'sent at once, not queued');
    await game.joinTournament('cup 1', { playerId: 'bob' });
    assert.deepEqual(service.requests.at(-1).body, { player_id: 'bob' });

    full = true;
    const error = await game.joinTournament('cup 1', { playerId: 'cat' }).catch((e) => e);
    assert.ok(error instanceof PlaytraceError);
    assert.deepEqual([error.status, error.tournamentRefusal], [409, 'full']);
    assert.match(error.message, /tournament is full/);
    assert.equal(service.requests.length, 3, 'a 409 is not retried');
    await assert.rejects(client(clock, service, { playerId: undefined }).joinTournament('cup 1'), /joinTournament needs a player/);
  });

  it('reads why a tournament refused from the code the service sends', () => {
    const refusal = (status, code, error = 'worded differently') => new PlaytraceError(status, { error, code }).tournamentRefusal;
    assert.equal(refusal(403, 'TOURNAMENT_JOIN_REQUIRED'), 'join_required');
    assert.equal(refusal(409, 'TOURNAMENT_ENDED'), 'ended');
    assert.equal(refusal(409, 'TOURNAMENT_NOT_STARTED'), 'not_started');
    assert.equal(refusal(409, 'TOURNAMENT_FULL'), 'full');
    assert.equal(refusal(409, 'NOT_A_TOURNAMENT'), 'not_a_tournament');
    assert.equal(refusal(403, 'ACCOUNT_LOCKED'), undefined, 'another code is no refusal');
    assert.equal(refusal(409, 'toString'), undefined);
    assert.equal(refusal(409, 'SOMETHING_NEW', 'the tournament is full'), undefined, 'a code wins over the text');
  });

  it('tells a banned player\'s refused score from other 403s, by code or by the older text', () => {
    const banned = (status, body) => new PlaytraceError(status, body).isBanned;
    assert.equal(banned(403, { error: 'reworded', code: 'PLAYER_BANNED' }), true);
    assert.equal(banned(403, { error: 'This player is banned from this leaderboard' }), true);
    assert.equal(banned(403, { error: 'This player is banned from this leaderboard', code: 'TOURNAMENT_JOIN_REQUIRED' }), false);
    assert.equal(banned(403, { error: 'join the tournament first: ...', code: 'TOURNAMENT_JOIN_REQUIRED' }), false);
    assert.equal(banned(409, { error: 'x', code: 'PLAYER_BANNED' }), false);
    assert.equal(new PlaytraceError(403, { error: 'This player is banned from this leaderboard', code: 'PLAYER_BANNED' }).tournamentRefusal, undefined);
  });

  it('reads an answer without a code (a server from before the codes) from the status and the message', () => {
    const refusal = (status, error) => new PlaytraceError(status, { error }).tournamentRefusal;
    assert.equal(refusal(403, 'join the tournament first: this leaderboard takes scores only from players who joined it'), 'join_required');
    assert.equal(refusal(409, 'the tournament has ended: it ended at 2026-11-28T20:00:00Z'), 'ended');
    assert.equal(refusal(409, 'the tournament has not started: it starts at 2026-11-28T18:00:00Z'), 'not_started');
    assert.equal(refusal(409, 'this leaderboard is not a tournament: there is nothing to join'), 'not_a_tournament');
    assert.equal(refusal(403, 'This player is banned from this leaderboard'), undefined);
    assert.equal(refusal(409, "this leaderboard's order is lower, not higher"), undefined);
    assert.equal(refusal(500, 'the tournament is full'), undefined);
  });
});

describe('lifecycle', () => {
  it('stops the heartbeat when the client closes, even while setActivity is on its way', async () => {
    const clock = new FakeClock();
    const service = fakeService(clock);
    const game = client(clock, service);
    const setting = game.setActivity('Lobby');
    await game.close();
    await setting;
    await clock.advance(30 * 60_000);
    assert.equal(service.requests.filter((r) => r.path === '/v1/activity').length, 1);
  });

  it('writes two saves of one slot one after the other, without a conflict', async () => {
    const clock = new FakeClock();
    let stored = 0;
    const service = fakeService(clock, (request) => {
      if (request.method !== 'PUT') return;
      if (request.body.version !== stored) return { status: 409, body: { error: 'Version conflict', version: stored } };
      stored += 1;
      return { status: 200, body: { slot: 's', version: stored, updated_at: 'now' } };
    });
    const game = client(clock, service);
    const [a, b] = await Promise.all([game.writeSave('s', { n: 1 }), game.writeSave('s', { n: 2 })]);
    assert.deepEqual([a.version, b.version], [1, 2]);
    assert.deepEqual(service.requests.at(-1).body.data, { n: 2 });
  });
});

describe('player identity', () => {
  it('signs in with a device id kept in storage, sends the token, and signs in again when it expired', async () => {
    const clock = new FakeClock();
    const storage = memoryStorage();
    let issued = 0;
    const valid = new Set();
    const service = fakeService(clock, (request) => {
      if (request.path === '/v1/players/auth') {
        const token = `token-${++issued}`;
        valid.add(token);
        return { status: 200, body: { token, player_id: `player-of-${request.body.device_id}`, expires_at: '', expires_in: 3600, created: issued === 1 } };
      }
      if (!valid.has(request.headers['x-player-token'])) return { status: 401, body: { error: 'Token expired' } };
    });
    const game = client(clock, service, { storage, playerId: undefined, playerAuth: 'device' });
    const player = await game.signIn();
    assert.match(player, /^player-of-[0-9a-f-]{36}$/);
    assert.equal(game.playerId, player);
    await game.unlockAchievement('first');
    const unlock = service.requests.at(-1);
    assert.deepEqual([unlock.headers['x-player-token'], unlock.body.player_id], ['token-1', player]);

    valid.clear(); // the service no longer takes token-1
    await game.unlockAchievement('second');
    const retried = service.requests.filter((r) => r.path === '/v1/achievements/unlock').at(-1);
    assert.equal(retried.headers['x-player-token'], 'token-2', 'signed in again and sent once more');

    // The next run of the game on this device is the same player.
    const next = client(clock, service, { storage, playerId: undefined, playerAuth: 'device' });
    assert.equal(await next.signIn(), player);
  });
});
