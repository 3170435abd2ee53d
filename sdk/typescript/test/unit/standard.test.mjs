// trackProgression and trackResource: the events they queue, and the mistakes they refuse
// where they are made (the service's ready schemas would store them uncounted, or refuse them).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { client, FakeClock, fakeService } from './fakes.mjs';

async function sent(track) {
  const clock = new FakeClock();
  const service = fakeService(clock);
  const game = client(clock, service);
  await game.ready();
  track(game);
  await game.flush();
  return service.tracked().flatMap((request) => request.body);
}

describe('trackProgression', () => {
  it('queues a progression event with its levels, attempt, score and extra properties', async () => {
    const events = await sent((game) => {
      game.trackProgression('start', ['world 1']);
      game.trackProgression('complete', ['world 1', 'level 3', 'boss'], { attempt: 2, score: 1200.5, properties: { hints: 1 } });
      game.trackProgression('fail', ['world 1', 'level 3'], { playerId: 'bo' });
    });
    assert.deepEqual(
      events.map((e) => [e.event_name, e.player_id, e.properties]),
      [
        ['progression', 'ann', { status: 'start', level1: 'world 1' }],
        ['progression', 'ann', { hints: 1, status: 'complete', level1: 'world 1', level2: 'level 3', level3: 'boss', attempt: 2, score: 1200.5 }],
        ['progression', 'bo', { status: 'fail', level1: 'world 1', level2: 'level 3' }],
      ],
    );
    assert.ok(events.every((e) => e.event_id && e.client_timestamp && e.session_id), 'stamped as any event');
  });

  it('refuses what the progression schema refuses, queueing nothing', async () => {
    const cases = [
      [['done', ['w']], /status must be start, complete or fail/],
      [['start', []], /one to three level names/],
      [['start', ['a', 'b', 'c', 'd']], /one to three level names/],
      [['start', ['']], /level 1 must be a string of 1 to 64 characters/],
      [['start', ['w', 'x'.repeat(65)]], /level 2 must be a string/],
      [['start', ['w'], { attempt: 0 }], /attempt must be a whole number from 1/],
      [['start', ['w'], { attempt: 1.5 }], /attempt must be a whole number/],
      [['start', ['w'], { score: Number.NaN }], /score must be a finite number/],
    ];
    const events = await sent((game) => {
      for (const [args, message] of cases) {
        assert.throws(() => game.trackProgression(...args), { name: 'TypeError', message }, JSON.stringify(args));
      }
    });
    assert.deepEqual(events, []);
  });
});

describe('trackResource', () => {
  it('queues a resource event with its flow, currency, amount and item', async () => {
    const events = await sent((game) => {
      game.trackResource('source', 'gold', 100, { itemType: 'reward', itemId: 'daily' });
      game.trackResource('sink', 'gems', 0);
    });
    assert.deepEqual(
      events.map((e) => [e.event_name, e.properties]),
      [
        ['resource', { flow: 'source', currency: 'gold', amount: 100, item_type: 'reward', item_id: 'daily' }],
        ['resource', { flow: 'sink', currency: 'gems', amount: 0 }],
      ],
    );
  });

  it('refuses an unknown flow, a negative or huge amount and bad names, queueing nothing', async () => {
    const cases = [
      [['gift', 'gold', 1], /flow must be source or sink/],
      [['sink', 'gold', -5], /amount must be a number from 0/],
      [['sink', 'gold', 2e9], /amount must be a number from 0/],
      [['sink', 'gold', Number.POSITIVE_INFINITY], /amount must be a number/],
      [['sink', '', 1], /currency must be a string of 1 to 64 characters/],
      [['sink', 'gold', 1, { itemType: '' }], /itemType must be a string/],
      [['sink', 'gold', 1, { itemId: 7 }], /itemId must be a string/],
    ];
    const events = await sent((game) => {
      for (const [args, message] of cases) {
        assert.throws(() => game.trackResource(...args), { name: 'TypeError', message }, JSON.stringify(args));
      }
    });
    assert.deepEqual(events, []);
  });
});
