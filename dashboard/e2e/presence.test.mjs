// Presence: 10,000 live players in a virtualised list, counts per status, the WebSocket feed
// adding and removing players without a reload, the status filter and the search.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { call, newAccount, newGame, screenshot, setup, signedInPage, sleep } from './harness.mjs';

const TOTAL = 10_000;
const WAITING = 3;
const IDLE = 2;
const PLAYING = TOTAL - WAITING - IDLE;

const id = (n) => `player-${String(n).padStart(5, '0')}`;
const statusOf = (n) => (n > TOTAL - IDLE ? 'idle' : n > PLAYING ? 'waiting' : 'playing');

/** Runs `task` for 1..count with at most `width` requests in flight. */
async function pool(count, width, task) {
  let next = 1;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next <= count) await task(next++);
    }),
  );
}

/** Text of a count card, e.g. "10,000". */
const count = (page, name) => page.getByTestId(`count-${name}`).innerText();

async function waitForCount(page, name, expected) {
  await page.waitForFunction(
    ([testId, text]) => document.querySelector(`[data-testid="${testId}"]`)?.textContent === text,
    [`count-${name}`, expected],
    { timeout: 30_000 },
  );
}

describe('presence', () => {
  const env = setup({ before, after }, ['--rate-limit-per-minute', '1000000']);

  it('shows 10,000 live players smoothly and follows the feed', async () => {
    const owner = await newAccount(env.server);
    const { gameId, key } = await newGame(env.server, owner, 'Star Forge');
    const zones = ['Crystal Caves', 'Sky Harbor', 'Iron Wastes', 'Sunken Temple'];
    const started = Date.now();
    await pool(TOTAL, 50, (n) =>
      call(env.server, 'POST', '/v1/activity', {
        key,
        body: {
          player_id: id(n),
          status: statusOf(n),
          activity: statusOf(n) === 'playing' ? `Exploring ${zones[n % zones.length]}` : statusOf(n) === 'waiting' ? 'In matchmaking' : 'In the menu',
          details: { level: n % 60, party: n % 4 === 0 ? 'solo' : 'squad' },
        },
      }),
    );
    console.log(`seeded ${TOTAL} players in ${Date.now() - started} ms`);

    const page = await signedInPage(env.browser, env.server, owner);
    await page.goto(`/games/${gameId}/presence`);
    await page.getByRole('heading', { name: 'Presence' }).waitFor();
    await waitForCount(page, 'active', '10,000');
    assert.equal(await count(page, 'online'), '10,000');
    assert.equal(await count(page, 'playing'), '9,995');
    assert.equal(await count(page, 'waiting'), '3');
    assert.equal(await count(page, 'idle'), '2');
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    await page.getByText('Showing 10,000 of 10,000').waitFor();

    // Virtualised: only the rows in view (and a few around them) exist.
    const rows = await page.locator('[data-player]').count();
    assert.ok(rows > 5 && rows < 60, `${rows} rows in the DOM`);
    assert.equal(await page.getByRole('table', { name: 'Live players' }).getAttribute('aria-rowcount'), '10001');
    await screenshot(page, 'presence');

    // Sorted by player ID, scroll frame by frame (200 px, about 4.5 rows, per frame: a fast
    // flick) while Chromium traces its main thread. Wall-clock frame gaps depend on how busy
    // the machine is, so the assertion is on the page's own work: the CPU time of each task on
    // the renderer's main thread (at most one task may reach the 50 ms "long task" mark).
    await page.getByLabel('Sort').selectOption('player');
    await page.locator('[data-player="player-00001"]').waitFor();
    await env.browser.startTracing(page, { categories: ['devtools.timeline', 'toplevel'] });
    const frames = await page.evaluate(async () => {
      const scroller = document.querySelector('[data-testid="presence-scroll"]');
      const gaps = [];
      let most = 0;
      let last = performance.now();
      await new Promise((done) => {
        function frame(now) {
          gaps.push(now - last);
          last = now;
          most = Math.max(most, document.querySelectorAll('[data-player]').length);
          scroller.scrollTop += 200;
          if (gaps.length > 300) done();
          else requestAnimationFrame(frame);
        }
        requestAnimationFrame(frame);
      });
      gaps.shift();
      const total = gaps.reduce((a, b) => a + b, 0);
      gaps.sort((a, b) => a - b);
      return { count: gaps.length, total, median: gaps[gaps.length >> 1], p95: gaps[Math.floor(gaps.length * 0.95)], max: gaps.at(-1), most, scrolled: scroller.scrollTop };
    });
    const trace = JSON.parse((await env.browser.stopTracing()).toString());
    const events = trace.traceEvents ?? trace;
    const main = new Set(events.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
    const onMain = events.filter((e) => e.ph === 'X' && main.has(`${e.pid}:${e.tid}`));
    const tasks = onMain
      .filter((e) => /RunTask$/.test(e.name))
      .map((e) => ({ cpu: (e.tdur ?? 0) / 1000, wall: (e.dur ?? 0) / 1000, ts: e.ts, dur: e.dur ?? 0, thread: `${e.pid}:${e.tid}` }));
    const cpu = tasks.reduce((sum, t) => sum + t.cpu, 0);
    const longestCpu = Math.max(...tasks.map((t) => t.cpu));
    const longestWall = Math.max(...tasks.map((t) => t.wall));
    console.log(
      `scrolled ${frames.scrolled} px in ${frames.count} frames (${Math.round(frames.total)} ms): frame gap median ${frames.median.toFixed(1)} ms, ` +
        `p95 ${frames.p95.toFixed(1)} ms, max ${frames.max.toFixed(1)} ms; main thread ${tasks.length} tasks, CPU ${(cpu / frames.count).toFixed(2)} ms per frame, ` +
        `longest task ${longestCpu.toFixed(1)} ms CPU (${longestWall.toFixed(1)} ms wall); at most ${frames.most} rows in the DOM`,
    );
    assert.ok(tasks.length > frames.count, `${tasks.length} main-thread tasks traced`);
    // A long task (50 ms of CPU or more) named by what ran inside it, for the failure message.
    const inside = (task) =>
      onMain
        .filter((e) => `${e.pid}:${e.tid}` === task.thread && e.ts >= task.ts && e.ts + (e.dur ?? 0) <= task.ts + task.dur && !/RunTask$/.test(e.name))
        .sort((a, b) => (b.tdur ?? 0) - (a.tdur ?? 0))
        .slice(0, 4)
        .map((e) => `${e.name} ${((e.tdur ?? 0) / 1000).toFixed(1)} ms`)
        .join(', ');
    const long = tasks.filter((t) => t.cpu >= 50).map((t) => `${t.cpu.toFixed(1)} ms (${inside(t)})`);
    // One task in 300 frames may reach the mark on a loaded CI machine (one run saw a single
    // 68 ms task while the Rust lane shared the 2 cores); two, or one over 100 ms, is a hitch.
    assert.ok(long.length <= 1 && longestCpu < 100, `long main-thread tasks: ${long.join('; ')}`);
    assert.ok(cpu / frames.count < 16, `${cpu / frames.count} ms of main-thread CPU per frame`);
    assert.ok(frames.most < 60, `${frames.most} rows in the DOM while scrolling`);

    // The keyboard reaches the bottom (End in the focused list), which shows the last players.
    await page.getByTestId('presence-scroll').focus();
    await page.keyboard.press('End');
    // The bottom shows the last players.
    await page.locator('[data-player="player-10000"]').waitFor();
    assert.ok(await page.locator('[data-player="player-10000"]').isVisible());
    assert.ok(await page.locator('[data-player="player-09995"]').isVisible());
    assert.equal(await page.locator('[data-player="player-00001"]').count(), 0);

    // A new player appears over the WebSocket, without a reload, at the top of "most recent".
    await page.getByLabel('Sort').selectOption('recent');
    await page.getByTestId('presence-scroll').evaluate((el) => (el.scrollTop = 0));
    await call(env.server, 'POST', '/v1/activity', {
      key,
      body: { player_id: 'newcomer-1', activity: 'Fighting the Kraken', details: { boss: 'kraken', hp: 73 }, session_id: 's-1' },
    });
    const newcomer = page.locator('[data-player="newcomer-1"]');
    await newcomer.waitFor();
    assert.match(await newcomer.innerText(), /Fighting the Kraken/);
    assert.match(await newcomer.innerText(), /boss: kraken/);
    await waitForCount(page, 'active', '10,001');
    assert.equal(await count(page, 'playing'), '9,996');
    // Its details open in a dialog.
    await newcomer.getByRole('button', { name: 'newcomer-1' }).click();
    const dialog = page.getByRole('dialog', { name: 'newcomer-1' });
    await dialog.waitFor();
    assert.match(await dialog.innerText(), /"hp": 73/);
    assert.match(await dialog.innerText(), /s-1/);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });

    // Cleared: it leaves.
    await call(env.server, 'DELETE', '/v1/activity', { key, body: { player_id: 'newcomer-1' } });
    await newcomer.waitFor({ state: 'detached' });
    await waitForCount(page, 'active', '10,000');

    // Status changes arrive too.
    await call(env.server, 'POST', '/v1/activity', { key, body: { player_id: id(1), status: 'idle', activity: 'AFK in town' } });
    await waitForCount(page, 'idle', '3');
    assert.equal(await count(page, 'playing'), '9,994');

    // Filter by status.
    await page.getByLabel('Status').selectOption('waiting');
    await page.getByText('Showing 3 of 10,000').waitFor();
    assert.equal(await page.locator('[data-player]').count(), 3);
    for (const n of [9996, 9997, 9998]) assert.ok(await page.locator(`[data-player="${id(n)}"]`).isVisible());
    await page.getByLabel('Status').selectOption('idle');
    await page.getByText('Showing 3 of 10,000').waitFor();
    assert.ok(await page.locator(`[data-player="${id(1)}"]`).isVisible());
    await page.getByLabel('Status').selectOption('active');
    await page.getByText('Showing 10,000 of 10,000').waitFor();

    // Search by player ID.
    await page.getByLabel('Status').selectOption('all');
    await page.getByLabel('Search player ID').fill('player-0999');
    await page.getByText('Showing 10 of 10,000').waitFor();
    assert.equal(await page.locator('[data-player]').count(), 10);
    await page.getByLabel('Search player ID').fill('nobody-here');
    await page.getByText('No players match').waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByText('Showing 10,000 of 10,000').waitFor();

    // At phone width.
    const phone = await signedInPage(env.browser, env.server, owner, { width: 390, height: 844 });
    await phone.goto(`/games/${gameId}/presence`);
    await waitForCount(phone, 'active', '10,000');
    await phone.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    assert.ok((await phone.locator('[data-player]').count()) < 60);
    await screenshot(phone, 'presence-phone');
    await phone.context().close();
    await page.context().close();
  });

  it('shows a viewer an empty list, then players as they arrive, and stops when access is revoked', async () => {
    const owner = await newAccount(env.server);
    const { gameId, key } = await newGame(env.server, owner, 'Quiet Isle');
    const viewer = await newAccount(env.server, 'viewer');
    const member = await call(env.server, 'POST', `/v1/games/${gameId}/members`, { token: owner.token, body: { email: viewer.email, role: 'viewer' } });
    const page = await signedInPage(env.browser, env.server, viewer);
    await page.goto(`/games/${gameId}/presence`);
    await page.getByText('Nobody is online right now').waitFor();
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    assert.equal(await count(page, 'active'), '0');
    await screenshot(page, 'presence-empty');
    await call(env.server, 'POST', '/v1/activity', { key, body: { player_id: 'first-player', activity: 'Tutorial', status: 'waiting' } });
    await page.locator('[data-player="first-player"]').waitFor();
    await waitForCount(page, 'waiting', '1');
    await waitForCount(page, 'active', '1');

    // Removed from the game: the feed closes and says why, without reconnecting.
    await call(env.server, 'DELETE', `/v1/games/${gameId}/members/${member.user_id}`, { token: owner.token });
    await page.getByRole('alert').filter({ hasText: 'Access to this game was revoked' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Disconnected' }).waitFor();
    await page.context().close();
  });

  it('says when the feed drops, reconnects and catches up on what it missed', async () => {
    const owner = await newAccount(env.server);
    const { gameId, key } = await newGame(env.server, owner, 'Flaky Fjord');
    for (const player_id of ['ana', 'bo']) await call(env.server, 'POST', '/v1/activity', { key, body: { player_id, activity: 'Sailing' } });
    const page = await signedInPage(env.browser, env.server, owner);
    // The feed goes through the test, which can cut it and refuse reconnections.
    const sockets = [];
    let down = false;
    await page.routeWebSocket(/\/v1\/activity\/stream/, (ws) => {
      if (down) return ws.close({ code: 1011, reason: 'Server restarting' });
      ws.connectToServer();
      sockets.push(ws);
    });
    await page.goto(`/games/${gameId}/presence`);
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    await waitForCount(page, 'online', '2');

    down = true;
    await sockets.at(-1).close({ code: 1011, reason: 'Server restarting' });
    await page.getByRole('status').filter({ hasText: 'Reconnecting…' }).waitFor();
    await page.getByText('The live feed dropped; reconnecting.').waitFor();
    await screenshot(page, 'presence-reconnecting');
    // Missed while the feed is down: one arrives, one leaves.
    await call(env.server, 'POST', '/v1/activity', { key, body: { player_id: 'late-joiner', activity: 'Docking' } });
    await call(env.server, 'DELETE', '/v1/activity', { key, body: { player_id: 'bo' } });
    await sleep(1500);
    assert.equal(await page.locator('[data-player="late-joiner"]').count(), 0);

    down = false;
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor({ timeout: 20_000 });
    await page.locator('[data-player="late-joiner"]').waitFor();
    await page.locator('[data-player="bo"]').waitFor({ state: 'detached' });
    await waitForCount(page, 'online', '2');
    assert.equal(await page.getByText('The live feed dropped; reconnecting.').count(), 0);
    await page.context().close();
  });
});
