// Hand-driven time and a scripted service, for tests of the client's timing rules without
// waiting: the clock moves only when a test advances it, and the fake service answers each
// request with what the test's handler says, keeping every request it saw.
import { memoryStorage, Playtrace } from '../../dist/index.js';

export class FakeClock {
  constructor(start = Date.UTC(2026, 10, 23, 12, 0, 0)) {
    this.time = start;
    this.timers = [];
    this.next = 0;
  }

  now() {
    return this.time;
  }

  setTimeout(run, ms) {
    const id = ++this.next;
    this.timers.push({ id, at: this.time + Math.max(0, ms), run });
    return id;
  }

  clearTimeout(id) {
    this.timers = this.timers.filter((timer) => timer.id !== id);
  }

  /** Moves time on by `ms`, running each timer that falls due, in order, with its promises. */
  async advance(ms) {
    const end = this.time + ms;
    for (;;) {
      await settle();
      const due = this.timers.filter((timer) => timer.at <= end).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.timers = this.timers.filter((timer) => timer !== due);
      this.time = Math.max(this.time, due.at);
      due.run();
    }
    this.time = end;
    await settle();
  }
}

/** Lets every pending promise and I/O callback run. */
export async function settle() {
  for (let i = 0; i < 10; i++) await new Promise((done) => setImmediate(done));
}

/**
 * A fake playtrace: `handler(request)` answers { status, body, headers } or throws (a network
 * error); by default every call succeeds as the real service would answer it.
 */
export function fakeService(clock, handler = () => undefined) {
  const requests = [];
  const fetch = async (url, init) => {
    const parsed = new URL(url);
    const request = {
      method: init.method,
      path: parsed.pathname,
      query: Object.fromEntries(parsed.searchParams),
      headers: init.headers,
      body: init.body ? JSON.parse(init.body) : undefined,
      keepalive: init.keepalive,
      at: clock.now(),
    };
    requests.push(request);
    const answer = (await handler(request)) ?? defaultAnswer(request);
    return new Response(answer.body === undefined ? null : JSON.stringify(answer.body), {
      status: answer.status,
      headers: { 'content-type': 'application/json', ...answer.headers },
    });
  };
  return { fetch, requests, tracked: () => requests.filter((r) => r.path === '/v1/track') };
}

function defaultAnswer(request) {
  if (request.path === '/v1/track') {
    const count = Array.isArray(request.body) ? request.body.length : 1;
    return { status: 202, body: { received: count, quota: { remaining: 1000, limit: 100000 } } };
  }
  return { status: 200, body: { success: true } };
}

/** A network failure, as fetch reports one. */
export function offline() {
  throw new TypeError('fetch failed');
}

/** A client on the fake clock and service; `random` fixed so that backoff waits are exact. */
export function client(clock, service, options = {}) {
  return new Playtrace({
    baseUrl: 'http://playtrace.test',
    apiKey: 'pt_test_key',
    playerId: 'ann',
    storage: memoryStorage(),
    fetch: service.fetch,
    clock,
    random: () => 1,
    flushOnHide: false,
    ...options,
  });
}
