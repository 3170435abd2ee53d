// The event queue's timing rules on a hand-driven clock: batching, backoff, Retry-After, the
// quota pause, refused events, the bound on the queue, and the queue across restarts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { memoryStorage } from '../../dist/index.js';
import { client, FakeClock, fakeService, offline, settle } from './fakes.mjs';

describe('batching', () => {
  it('sends a full batch at once and the rest after the flush interval, each event stamped', async () => {
    const clock = new FakeClock();
    const service = fakeService(clock);
    const game = client(clock, service);
    await game.ready();
    for (let i = 0; i < 250; i++) game.track('coin', { i });
    await settle();
    const sizes = () => service.tracked().map((r) => r.body.length);
    assert.deepEqual(sizes(), [100, 100], 'two full batches go without waiting');
    await clock.advance(2_999);
    assert.deepEqual(sizes(), [100, 100], 'the last 50 wait for the interval');
    await clock.advance(1);
    assert.deepEqual(sizes(), [100, 100, 50]);

    const events = service.tracked().flatMap((r) => r.body);
    assert.equal(new Set(events.map((e) => e.event_id)).size, 250, 'every event has its own id');
    assert.deepEqual(events.map((e) => e.properties.i), [...Array(250).keys()], 'in the order tracked');
    const first = events[0];
    assert.equal(first.event_name, 'coin');
    assert.equal(first.player_id, 'ann');
    assert.equal(first.client_timestamp, new Date(Date.UTC(2026, 10, 23, 12)).toISOString(), 'stamped when tracked');
    assert.match(first.session_id, /^[0-9a-f-]{36}$/);
    assert.deepEqual(game.stats(), { queued: 0, dropped: 0, sent: 250, pausedUntil: undefined, scoresWaiting: 0 });
  });

  it('gives events time-ordered ids, so the service stores them at the end of its index', async () => {
    const clock = new FakeClock();
    const service = fakeService(clock);
    const game = client(clock, service);
    const ids = [];
    for (let i = 0; i < 5; i++) {
      game.track('tick');
      await clock.advance(2);
    }
    await game.flush();
    for (const request of service.tracked()) ids.push(...request.body.map((e) => e.event_id));
    assert.equal(ids.length, 5);
    assert.deepEqual([...ids].sort(), ids, 'later events have larger ids');
    assert.ok(ids.every((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id)), ids.join());
  });

  it('flush sends what is queued now, without waiting for the interval', async () => {
    const clock = new FakeClock();
    const service = fakeService(clock);
    const game = client(clock, service);
    game.track('a');
    game.track('b');
    const stats = await game.flush();
    assert.equal(stats.queued, 0);
    assert.deepEqual(service.tracked().map((r) => r.body.map((e) => e.event_name)), [['a', 'b']]);
  });

  it('starts a new session after 30 minutes without a call, not before', async () => {
    const clock = new FakeClock();
    const game = client(clock, fakeService(clock));
    const first = game.sessionId;
    await clock.advance(29 * 60_000);
    assert.equal(game.sessionId, first, 'a call within 30 minutes keeps the session');
    await clock.advance(29 * 60_000);
    assert.equal(game.sessionId, first, 'the idle time counts from the last call');
    await clock.advance(30 * 60_000 + 1);
    assert.notEqual(game.sessionId, first);
  });
});

describe('failures', () => {
  it('retries network errors and 5xx with growing waits, and stores each event once', async () => {
    const clock = new FakeClock();
    let failures = 4;
    const service = fakeService(clock, (request) => {
      if (failures-- > 0) return failures % 2 ? offline() : { status: 503, body: { error: 'Service Unavailable' } };
    });
    const game = client(clock, service, { backoff: { baseMs: 1_000, maxMs: 4_000 } });
    game.track('a');
    await clock.advance(3_000);
    await clock.advance(60_000);
    const times = service.tracked().map((r) => r.at - service.tracked()[0].at);
    // random() is 1, so each wait is the whole step: 1 s, 2 s, 4 s, then the 4 s cap.
    assert.deepEqual(times, [0, 1_000, 3_000, 7_000, 11_000]);
    const ids = new Set(service.tracked().map((r) => r.body[0].event_id));
    assert.equal(ids.size, 1, 'every retry carries the same event_id, so the service stores it once');
    assert.equal(game.stats().queued, 0);
  });

  it('puts jitter on the wait: between half and all of each step', async () => {
    const clock = new FakeClock();
    let failures = 3;
    const service = fakeService(clock, () => (failures-- > 0 ? offline() : undefined));
    const game = client(clock, service, { random: () => 0, backoff: { baseMs: 1_000, maxMs: 60_000 } });
    game.track('a');
    await clock.advance(3_000 + 10_000);
    const times = service.tracked().map((r) => r.at - service.tracked()[0].at);
    assert.deepEqual(times, [0, 500, 1_500, 3_500], 'random() = 0 gives the half-step waits');
  });

  it("waits as long as a 429's Retry-After asks", async () => {
    const clock = new FakeClock();
    let limited = true;
    const service = fakeService(clock, () => {
      if (limited) {
        limited = false;
        return { status: 429, headers: { 'retry-after': '42' }, body: { statusCode: 429, error: 'Too Many Requests', message: 'retry in 60 seconds' } };
      }
    });
    const game = client(clock, service);
    game.track('a');
    await clock.advance(3_000);
    await clock.advance(41_999);
    assert.equal(service.tracked().length, 1, 'nothing sent before Retry-After');
    await clock.advance(1);
    assert.equal(service.tracked().length, 2);
    assert.equal(game.stats().queued, 0);
  });

  it('never retries a 400: splits the batch until the bad event is alone, drops and reports it', async () => {
    const clock = new FakeClock();
    const service = fakeService(clock, (request) => {
      if (request.path === '/v1/track' && request.body.some((e) => e.event_name === 'bad')) {
        return { status: 400, body: { error: 'Invalid event schema', violations: [] } };
      }
    });
    const problems = [];
    const game = client(clock, service, { onError: (p) => problems.push(p) });
    for (let i = 0; i < 10; i++) game.track(i === 6 ? 'bad' : 'good', { i });
    await game.flush();
    await clock.advance(120_000);
    const stored = service.tracked().filter((r) => !r.body.some((e) => e.event_name === 'bad')).flatMap((r) => r.body);
    assert.deepEqual(stored.map((e) => e.properties.i).sort((a, b) => a - b), [0, 1, 2, 3, 4, 5, 7, 8, 9], 'the good events all arrive');
    assert.equal(problems.length, 1);
    assert.equal(problems[0].kind, 'rejected');
    assert.equal(problems[0].error.status, 400);
    assert.deepEqual(problems[0].events.map((e) => e.properties.i), [6]);
    const badSends = service.tracked().filter((r) => r.body.length === 1 && r.body[0].event_name === 'bad');
    assert.equal(badSends.length, 1, 'the bad event is sent alone once, never again');
    assert.equal(game.stats().queued, 0);
  });

  it('drops an event the service finds too large (413) without retrying it', async () => {
    const clock = new FakeClock();
    const service = fakeService(clock, (request) =>
      request.path === '/v1/track' ? { status: 413, body: { error: 'Payload too large', limit: 100, received: 101 } } : undefined,
    );
    const problems = [];
    const game = client(clock, service, { onError: (p) => problems.push(p) });
    game.track('huge');
    await game.flush();
    await clock.advance(600_000);
    assert.equal(service.tracked().length, 1);
    assert.deepEqual(problems.map((p) => [p.kind, p.error.status]), [['rejected', 413]]);
  });

  it('pauses sending until the next UTC month when the quota is used up, and says so once', async () => {
    const clock = new FakeClock(Date.UTC(2026, 10, 28, 9));
    let quotaLeft = false;
    const service = fakeService(clock, (request) => {
      if (request.path === '/v1/track' && !quotaLeft) {
        return { status: 429, body: { error: 'Monthly event quota exceeded', quota: { current: 100000, limit: 100000, remaining: 0 } } };
      }
    });
    const problems = [];
    const game = client(clock, service, { onError: (p) => problems.push(p) });
    game.track('a');
    await clock.advance(3_000);
    const december = new Date(Date.UTC(2026, 11, 1));
    assert.deepEqual(game.stats().pausedUntil, december);
    for (let i = 0; i < 5; i++) game.track('b');
    await game.flush();
    await clock.advance(24 * 3_600_000);
    assert.equal(service.tracked().length, 1, 'nothing is sent while the quota is out');
    assert.equal(problems.filter((p) => p.kind === 'quota').length, 1, 'reported once');
    assert.deepEqual(problems[0].pausedUntil, december);
    quotaLeft = true;
    await clock.advance(december - clock.now() + 1);
    assert.equal(service.tracked().length, 2, 'the new month sends the queue');
    assert.equal(service.tracked()[1].body.length, 6);
    assert.equal(game.stats().queued, 0);
  });

  it('keeps a refused key (401) queued and retries slowly, reporting it once', async () => {
    const clock = new FakeClock();
    let refuse = true;
    const service = fakeService(clock, () => (refuse ? { status: 401, body: { error: 'Invalid API key' } } : undefined));
    const problems = [];
    const game = client(clock, service, { onError: (p) => problems.push(p), backoff: { baseMs: 1_000, maxMs: 60_000 } });
    game.track('a');
    await clock.advance(3_000 + 59_999);
    assert.equal(service.tracked().length, 1);
    await clock.advance(1);
    assert.equal(service.tracked().length, 2);
    assert.deepEqual(problems.map((p) => p.kind), ['refused']);
    refuse = false;
    await clock.advance(60_000);
    assert.equal(game.stats().queued, 0);
  });

  it('drops and reports the events of another player (403), and sends the rest without stalling', async () => {
    const clock = new FakeClock();
    const service = fakeService(clock, (request) => {
      // The real service with a player token for ann: a batch naming anyone else is refused whole.
      if (request.path === '/v1/track' && request.body.some((e) => e.player_id !== undefined && e.player_id !== 'ann')) {
        return { status: 403, body: { error: 'This player token is for another player' } };
      }
    });
    const problems = [];
    const game = client(clock, service, { onError: (p) => problems.push(p) });
    for (let i = 0; i < 10; i++) game.track('e', { i }, i === 3 || i === 8 ? { playerId: 'bob' } : {});
    await clock.advance(3_000);
    const stored = service.tracked().filter((r) => r.body.every((e) => e.player_id === 'ann')).flatMap((r) => r.body);
    assert.deepEqual(stored.map((e) => e.properties.i).sort((a, b) => a - b), [0, 1, 2, 4, 5, 6, 7, 9], "ann's events all arrive, at once");
    assert.equal(game.stats().queued, 0, 'nothing is left to block the queue');
    assert.deepEqual(problems.map((p) => [p.kind, p.error.status]), [['rejected', 403], ['rejected', 403]]);
    assert.deepEqual(problems.flatMap((p) => p.events.map((e) => e.properties.i)), [3, 8]);
    game.track('later');
    await clock.advance(3_000);
    assert.equal(service.tracked().at(-1).body[0].event_name, 'later', 'later events go at the next interval');
  });

  it('keeps events refused by another 403 (an origin not allowed) and retries slowly', async () => {
    const clock = new FakeClock();
    let refuse = true;
    const service = fakeService(clock, () =>
      refuse ? { status: 403, body: { error: 'This origin is not allowed for this game (allowed_origins)' } } : undefined,
    );
    const problems = [];
    const game = client(clock, service, { onError: (p) => problems.push(p), backoff: { baseMs: 1_000, maxMs: 60_000 } });
    game.track('a');
    game.track('b', {}, { playerId: 'bob' });
    await clock.advance(3_000);
    assert.equal(service.tracked().length, 1, 'not split: the batch is not at fault');
    assert.deepEqual(problems.map((p) => p.kind), ['refused']);
    refuse = false;
    await clock.advance(60_000);
    assert.equal(game.stats().queued, 0);
    assert.equal(game.stats().sent, 2);
  });
});

describe('the queue in storage', () => {
  it('is bounded: the oldest events are dropped and counted, and reported once', async () => {
    const clock = new FakeClock();
    const service = fakeService(clock, offline);
    const problems = [];
    const game = client(clock, service, { maxQueueSize: 10, onError: (p) => problems.push(p) });
    await game.ready();
    for (let i = 0; i < 25; i++) game.track('e', { i });
    await clock.advance(3_000);
    assert.equal(game.stats().queued, 10);
    assert.equal(game.stats().dropped, 15);
    assert.deepEqual(problems.map((p) => p.kind), ['overflow']);
    const stats = await game.flush();
    assert.equal(stats.queued, 10);
    const tried = service.tracked().at(-1).body.map((e) => e.properties.i);
    assert.deepEqual(tried, [15, 16, 17, 18, 19, 20, 21, 22, 23, 24], 'the newest are kept');
  });

  it('survives a restart: what one run could not send, the next one sends', async () => {
    const clock = new FakeClock();
    const storage = memoryStorage();
    const down = fakeService(clock, offline);
    const first = client(clock, down, { storage });
    for (let i = 0; i < 7; i++) first.track('e', { i });
    const left = await first.close();
    assert.equal(left.queued, 7);

    const up = fakeService(clock);
    const second = client(clock, up, { storage });
    second.track('after', { i: 7 });
    await second.flush();
    const sent = up.tracked().flatMap((r) => r.body);
    assert.deepEqual(sent.map((e) => e.properties.i), [0, 1, 2, 3, 4, 5, 6, 7], 'the old run first, then the new');
    const tried = new Set(down.tracked().flatMap((r) => r.body.map((e) => e.event_id)));
    assert.ok(sent.slice(0, 7).every((e) => tried.has(e.event_id)), 'with their first event_ids, so nothing is stored twice');
    assert.equal(second.stats().queued, 0);
    const third = client(clock, fakeService(clock), { storage });
    await third.ready();
    assert.equal(third.stats().queued, 0, 'sent events are gone from storage');
  });

  it('writes the queue within a second of a change, once however many events came', async () => {
    const clock = new FakeClock();
    const inner = memoryStorage();
    let writes = 0;
    const storage = { getItem: (k) => inner.getItem(k), setItem: (k, v) => (writes++, inner.setItem(k, v)) };
    const game = client(clock, fakeService(clock, offline), { storage });
    await game.ready();
    await clock.advance(1_000);
    writes = 0;
    for (let i = 0; i < 50; i++) game.track('e', { i });
    await clock.advance(999);
    assert.equal(writes, 0, 'not on every track()');
    await clock.advance(1);
    assert.equal(writes, 1);
    // The game is killed here, without close(): the next start still finds all 50.
    const next = client(clock, fakeService(clock, offline), { storage });
    await next.ready();
    assert.equal(next.stats().queued, 50);
  });

  it('keeps the events of two games apart', async () => {
    const clock = new FakeClock();
    const storage = memoryStorage();
    const one = client(clock, fakeService(clock, offline), { storage, apiKey: 'key-one' });
    one.track('one');
    await one.close();
    const two = client(clock, fakeService(clock, offline), { storage, apiKey: 'key-two' });
    await two.ready();
    assert.equal(two.stats().queued, 0);
  });
});

describe('edge cases', () => {
  it('never writes over a stored queue it could not read', async () => {
    const clock = new FakeClock();
    const inner = memoryStorage();
    inner.setItem('kept', 'x');
    let failReads = true;
    let writes = 0;
    const storage = {
      getItem: (k) => {
        if (failReads) throw new Error('EBUSY');
        return inner.getItem(k);
      },
      setItem: (k, v) => (writes++, inner.setItem(k, v)),
    };
    const problems = [];
    const game = client(clock, fakeService(clock, offline), { storage, onError: (p) => problems.push(p.kind) });
    game.track('e');
    await clock.advance(5_000);
    await game.close();
    assert.equal(writes, 0, 'what storage holds is left alone');
    assert.ok(problems.includes('storage'));
    failReads = false;
  });

  it('keeps to Retry-After even when the game calls flush()', async () => {
    const clock = new FakeClock();
    let limited = true;
    const service = fakeService(clock, () => {
      if (limited) {
        limited = false;
        return { status: 429, headers: { 'retry-after': '30' }, body: { statusCode: 429, error: 'Too Many Requests', message: 'retry in 60 seconds' } };
      }
    });
    const game = client(clock, service);
    game.track('a');
    await game.flush();
    await game.flush();
    assert.equal(service.tracked().length, 1, 'the second flush waits for the 30 seconds');
    await clock.advance(30_000);
    assert.equal(game.stats().queued, 0);
  });

  it('sends what still fits in the quota before pausing', async () => {
    const clock = new FakeClock();
    let left = 3;
    const service = fakeService(clock, (request) => {
      if (request.path !== '/v1/track') return;
      if (request.body.length > left) {
        // As the service answers: remaining is 0 (nothing of this request was taken); what is
        // left of the month is limit - current.
        return { status: 429, body: { error: 'Monthly event quota exceeded', quota: { current: 100000 - left, limit: 100000, remaining: 0 } } };
      }
      left -= request.body.length;
    });
    const game = client(clock, service);
    for (let i = 0; i < 10; i++) game.track('e', { i });
    const stats = await game.flush();
    assert.equal(stats.sent, 3);
    assert.equal(stats.queued, 7);
    assert.ok(stats.pausedUntil);
  });

  it('keeps events tracked after close() for the next start', async () => {
    const clock = new FakeClock();
    const storage = memoryStorage();
    const first = client(clock, fakeService(clock, offline), { storage });
    await first.close();
    first.track('late');
    const next = client(clock, fakeService(clock), { storage });
    const stats = await next.flush();
    assert.equal(stats.sent, 1);
  });
});
