// The interface's score submission throttle (5 seconds per board and player) on a
// hand-driven clock: first score at once, improvements within the window held back with only
// the best kept by the board's order, sent when the window ends.
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { memoryStorage } from '../../dist/index.js';
import { client, FakeClock, fakeService, offline, settle } from './fakes.mjs';

/** A fake service that keeps the best score per board and player, as the real one does. */
function boards(clock, order = 'higher', fail = () => false) {
  const best = new Map();
  return fakeService(clock, (request) => {
    if (request.path !== '/v1/leaderboards') return;
    if (fail(request)) return offline();
    const { board_name, player_id, score } = request.body;
    const key = `${board_name}/${player_id}`;
    const stored = best.get(key);
    const updated = stored === undefined || (order === 'lower' ? score < stored : score > stored);
    if (updated) best.set(key, score);
    return {
      status: 200,
      body: { board_name, player_id, score: best.get(key), metadata: {}, rank: 1, updated_at: new Date(clock.now()).toISOString(), updated, status: 'ok', order },
    };
  });
}

const sentScores = (service) => service.requests.filter((r) => r.path === '/v1/leaderboards').map((r) => [r.body.score, r.at - Date.UTC(2026, 10, 23, 12)]);

describe('the 5-second score throttle', () => {
  it('sends the first score at once and holds improvements for the window, keeping the best', async () => {
    const clock = new FakeClock();
    const service = boards(clock);
    const game = client(clock, service);
    const first = await game.submitScore('arena', 100);
    assert.equal(first.score, 100);
    assert.deepEqual(sentScores(service), [[100, 0]], 'the first goes at once');

    await clock.advance(1_000);
    const better = game.submitScore('arena', 150);
    await clock.advance(1_000);
    const best = game.submitScore('arena', 180);
    const worse = game.submitScore('arena', 120);
    await clock.advance(2_999);
    assert.equal(sentScores(service).length, 1, 'nothing more before the window ends');
    assert.equal(game.stats().scoresWaiting, 1);
    await clock.advance(1);
    assert.deepEqual(sentScores(service), [[100, 0], [180, 5_000]], 'one request, with the best of the window');
    for (const answer of await Promise.all([better, best, worse])) {
      assert.equal(answer.score, 180, 'every caller learns the entry as it stands');
    }
  });

  it('answers a score no better than the best without a request', async () => {
    const clock = new FakeClock();
    const service = boards(clock);
    const game = client(clock, service);
    await game.submitScore('arena', 500);
    const answer = await game.submitScore('arena', 300);
    assert.deepEqual([answer.score, answer.updated], [500, false]);
    assert.equal(sentScores(service).length, 1);
  });

  it('sends at once again once the window has passed', async () => {
    const clock = new FakeClock();
    const service = boards(clock);
    const game = client(clock, service);
    await game.submitScore('arena', 1);
    await clock.advance(5_000);
    await game.submitScore('arena', 2);
    assert.deepEqual(sentScores(service), [[1, 0], [2, 5_000]]);
  });

  it('learns the board order from the first answer: on a lower-is-better board the lowest waits', async () => {
    const clock = new FakeClock();
    const service = boards(clock, 'lower');
    const game = client(clock, service);
    await game.submitScore('speedrun', 95.2);
    const slower = game.submitScore('speedrun', 99);
    const faster = game.submitScore('speedrun', 61.5);
    const between = game.submitScore('speedrun', 80);
    await clock.advance(5_000);
    assert.deepEqual(sentScores(service), [[95.2, 0], [61.5, 5_000]]);
    assert.deepEqual([(await slower).score, (await slower).updated], [95.2, false], 'no better than the best: answered at once');
    assert.equal((await faster).score, 61.5);
    assert.equal((await between).score, 61.5);
  });

  it('throttles each board and player on its own', async () => {
    const clock = new FakeClock();
    const service = boards(clock);
    const game = client(clock, service);
    await Promise.all([
      game.submitScore('arena', 10),
      game.submitScore('arena', 20, { playerId: 'bob' }),
      game.submitScore('daily', 30),
    ]);
    assert.equal(sentScores(service).length, 3, 'three firsts, all at once');
  });

  it('keeps a score through network failures and sends it when the network is back', async () => {
    const clock = new FakeClock();
    let down = true;
    const service = boards(clock, 'higher', () => down);
    const storage = memoryStorage();
    const game = client(clock, service, { storage, retry: { attempts: 2 } });
    const answer = game.submitScore('arena', 42);
    const failed = assert.rejects(answer, /could not reach/);
    await clock.advance(10_000);
    await failed;
    assert.equal(game.stats().scoresWaiting, 1, 'still waiting to be sent');
    down = false;
    await clock.advance(120_000);
    const stored = sentScores(service).at(-1);
    assert.equal(stored[0], 42);
    assert.equal(game.stats().scoresWaiting, 0);
  });

  it('sends scores the last run left waiting when the next one starts', async () => {
    const clock = new FakeClock();
    const storage = memoryStorage();
    const offlineRun = client(clock, boards(clock, 'higher', () => true), { storage, retry: { attempts: 1 } });
    await offlineRun.submitScore('arena', 500).catch(() => {});
    await offlineRun.close().catch(() => {});

    const service = boards(clock);
    const next = client(clock, service, { storage });
    await next.ready();
    await clock.advance(0);
    assert.deepEqual(sentScores(service).map(([score]) => score), [500]);
  });

  it('refuses a score that is not a finite number', async () => {
    const clock = new FakeClock();
    const game = client(clock, boards(clock));
    await assert.rejects(game.submitScore('arena', Number.NaN), TypeError);
  });
});

describe('score edge cases', () => {
  it('answers a no-better score that came while a better one was on its way', async () => {
    const clock = new FakeClock();
    const service = boards(clock);
    const game = client(clock, service);
    await game.submitScore('arena', 100);
    await clock.advance(6_000);
    const sending = game.submitScore('arena', 200);
    const worse = game.submitScore('arena', 50);
    await clock.advance(0);
    assert.equal((await sending).score, 200);
    assert.deepEqual([(await worse).score], [200], 'settled with the answer of the send');
  });

  it('fails the promises of scores not sent when the client closes, and keeps the scores', async () => {
    const clock = new FakeClock();
    const storage = memoryStorage();
    const game = client(clock, boards(clock, 'higher', () => true), { storage });
    const answer = game.submitScore('arena', 1).catch((error) => error);
    await settle();
    await game.close();
    assert.match(String(await answer), /closed before the score was sent/);
    const service = boards(clock);
    const next = client(clock, service, { storage });
    await next.ready();
    await clock.advance(0);
    assert.deepEqual(sentScores(service).map(([score]) => score), [1]);
  });

  it('keeps the lower extreme too while the board order is unknown', async () => {
    const clock = new FakeClock();
    const service = boards(clock, 'lower');
    let release;
    const gate = new Promise((done) => (release = done));
    const slow = { ...service, fetch: async (url, init) => (await gate, service.fetch(url, init)) };
    const game = client(clock, slow);
    const first = game.submitScore('speedrun', 90);
    game.submitScore('speedrun', 120);
    const faster = game.submitScore('speedrun', 60);
    release();
    await first;
    await clock.advance(5_000);
    assert.equal((await faster).score, 60, 'the first answer said lower: 60 was kept and sent');
    assert.deepEqual(sentScores(service).map(([score]) => score), [90, 60]);
  });

  it('keeps the lowest score through a network failure while the order is unknown', async () => {
    const clock = new FakeClock();
    let down = true;
    const service = boards(clock, 'lower', () => down);
    const game = client(clock, service);
    const first = game.submitScore('speedrun', 90);
    await settle();
    down = false;
    const slower = game.submitScore('speedrun', 120);
    const fastest = game.submitScore('speedrun', 60);
    await clock.advance(20_000);
    assert.deepEqual(sentScores(service).map(([score]) => score), [90, 120, 60], 'the highest goes first, the lowest after its answer');
    assert.deepEqual(sentScores(service).slice(1).map(([, at]) => at - sentScores(service)[1][1]), [0, 5_000], 'each in its own window');
    for (const answer of await Promise.all([first, slower, fastest])) {
      assert.equal(answer.score, 60, 'the best time is stored and every caller learns it');
    }
    assert.equal(game.stats().scoresWaiting, 0);
  });

  it('keeps the lowest score of the last run too: the order is not stored with the scores', async () => {
    const clock = new FakeClock();
    const storage = memoryStorage();
    const offlineRun = client(clock, boards(clock, 'lower', () => true), { storage, retry: { attempts: 1 } });
    const tries = [90, 60, 120].map((score) => offlineRun.submitScore('speedrun', score).catch(() => {}));
    await settle();
    await offlineRun.close();
    await Promise.all(tries);

    const service = boards(clock, 'lower');
    const next = client(clock, service, { storage });
    await next.ready();
    await clock.advance(5_000);
    assert.deepEqual(sentScores(service).map(([score]) => score), [120, 60], 'the lowest is sent once the answer says lower');
    assert.equal(next.stats().scoresWaiting, 0);
  });

  it('drops the held lowest score once the answer says higher', async () => {
    const clock = new FakeClock();
    let down = true;
    const service = boards(clock, 'higher', () => down);
    const game = client(clock, service);
    const first = game.submitScore('arena', 90);
    await settle();
    down = false;
    const low = game.submitScore('arena', 60);
    const high = game.submitScore('arena', 120);
    await clock.advance(20_000);
    assert.deepEqual(sentScores(service).map(([score]) => score), [90, 120], 'no request for the lowest');
    for (const answer of await Promise.all([first, low, high])) assert.equal(answer.score, 120);
  });

  it('flush waits for a score on its way on the client clock, not the real timers', { timeout: 5_000 }, async () => {
    const clock = new FakeClock();
    const service = boards(clock);
    let release;
    const gate = new Promise((done) => (release = done));
    const slow = { ...service, fetch: async (url, init) => (await gate, service.fetch(url, init)) };
    const game = client(clock, slow);
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const answer = game.submitScore('arena', 7);
      await settle();
      const flushed = game.flush();
      await settle();
      release();
      await flushed;
      assert.equal((await answer).score, 7);
    } finally {
      mock.timers.reset();
    }
  });

  it('holds a Node process only on the timers a caller waits on', async () => {
    // Node's timers answer a handle with ref(): this clock's say which timers were held.
    const clock = new FakeClock();
    const held = new Set();
    const setTimer = clock.setTimeout.bind(clock);
    clock.setTimeout = (run, ms) => {
      const id = setTimer(run, ms);
      return { id, ref: () => held.add(id) };
    };
    const clearTimer = clock.clearTimeout.bind(clock);
    clock.clearTimeout = (handle) => clearTimer(handle.id);
    const holding = () => clock.timers.some((timer) => held.has(timer.id));
    let down = false;
    const game = client(clock, boards(clock, 'higher', () => down), { retry: { attempts: 2 } });

    game.track('level_start');
    await game.submitScore('arena', 100);
    assert.equal(holding(), false, 'the batch timer runs in the background');
    const better = game.submitScore('arena', 150);
    await clock.advance(0);
    assert.equal(holding(), true, 'the window of a score a caller waits on');
    await clock.advance(5_000);
    assert.equal((await better).score, 150);
    assert.equal(holding(), false);

    down = true;
    const failing = game.submitScore('arena', 200);
    const failed = assert.rejects(failing, /could not reach/);
    await clock.advance(0);
    assert.equal(holding(), true, 'the retry of a score a caller waits on');
    await clock.advance(10_000);
    await failed;
    assert.equal(game.stats().scoresWaiting, 1);
    assert.equal(holding(), false, 'retries after its promise failed run in the background');
  });
});

describe('the throttle on boards that do not keep the best', () => {
  /** A fake service of an `increment` board. */
  function totals(clock) {
    const sums = new Map();
    return fakeService(clock, (request) => {
      if (request.path !== '/v1/leaderboards') return;
      const { board_name, player_id, score } = request.body;
      const key = `${board_name}/${player_id}`;
      sums.set(key, (sums.get(key) ?? 0) + score);
      return {
        status: 200,
        body: { board_name, player_id, score: sums.get(key), metadata: {}, rank: 1, updated_at: new Date(clock.now()).toISOString(), updated: true, status: 'ok', order: 'higher', operator: 'increment' },
      };
    });
  }

  it('sends every score of the window, in order, none merged or dropped', async () => {
    const clock = new FakeClock();
    const service = totals(clock);
    const game = client(clock, service);
    const first = await game.submitScore('kills', 5, { operator: 'increment' });
    assert.equal(first.score, 5);
    assert.equal(service.requests[0].body.operator, 'increment', 'a board this score creates gets the operator');
    await clock.advance(1_000);
    const later = [game.submitScore('kills', 1), game.submitScore('kills', 1), game.submitScore('kills', 3)];
    await clock.advance(3_999);
    assert.equal(sentScores(service).length, 1, 'held for the window');
    await clock.advance(1);
    await settle();
    assert.deepEqual(sentScores(service).map(([score]) => score), [5, 1, 1, 3], 'each one sent, in order');
    for (const answer of await Promise.all(later)) assert.equal(answer.score, 10, 'the total as it stands');
  });

  it('learns the operator from the first answer and stops merging', async () => {
    const clock = new FakeClock();
    const service = totals(clock);
    const game = client(clock, service);
    await game.submitScore('coins', 2);
    await clock.advance(1_000);
    const held = [game.submitScore('coins', 2), game.submitScore('coins', 2)];
    await clock.advance(4_000);
    await settle();
    assert.deepEqual(sentScores(service).map(([score]) => score), [2, 2, 2], 'equal scores are not "no better" here');
    assert.equal((await Promise.all(held))[1].score, 6);
  });
});
