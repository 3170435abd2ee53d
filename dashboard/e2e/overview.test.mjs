// The game overview: totals and charts of the tracked events, the month's quota, how fast the
// first view paints, and what a game with no events shows.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { call, newAccount, newGame, screenshot, setup, signedInPage } from './harness.mjs';

/** A day's mix of events: 4 players start a session, 2 buy, 2 crashes, 3 logs (2 count as errors). */
function sampleEvents() {
  const events = [];
  for (const player of ['ana', 'ben', 'cy', 'dee']) {
    events.push({ event_name: 'session_start', session_id: `s-${player}`, player_id: player });
  }
  events.push({ event_name: 'purchase', session_id: 's-ana', player_id: 'ana', properties: { amount: 4.99, sku: 'gems_small' } });
  events.push({ event_name: 'purchase', session_id: 's-ben', player_id: 'ben', properties: { amount: 10.41, sku: 'gems_large' } });
  events.push({ event_name: 'crash', session_id: 's-cy', player_id: 'cy', properties: { reason: 'NullReference' } });
  events.push({ event_name: 'crash', session_id: 's-dee', player_id: 'dee', properties: { reason: 'OutOfMemory' } });
  events.push({ event_name: 'log', session_id: 's-ana', player_id: 'ana', properties: { level: 'error', message: 'save failed' } });
  events.push({ event_name: 'log', session_id: 's-ben', player_id: 'ben', properties: { level: 'warning', message: 'slow frame' } });
  events.push({ event_name: 'log', session_id: 's-cy', player_id: 'cy', properties: { level: 'info', message: 'level loaded' } });
  return events;
}

/** The text of a figures table, as rows of cell texts. */
async function figures(page, chartTitle) {
  const table = page.getByRole('table', { name: `${chartTitle} figures`, includeHidden: true });
  return table.evaluate((t) => [...t.querySelectorAll('tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent.trim())));
}

/** A labelled select (its accessible name starts with the label, then the chosen option). */
function select(page, label) {
  return page.getByRole('combobox', { name: new RegExp(`^${label}`) });
}

/** Runs `check` until it passes (5 s at most): the page re-renders after a choice. */
async function eventually(check) {
  for (let i = 0; ; i++) {
    try {
      return await check();
    } catch (error) {
      if (i >= 50) throw error;
      await new Promise((ok) => setTimeout(ok, 100));
    }
  }
}

async function statValue(page, label) {
  const tile = page.locator('.stat').filter({ has: page.locator('.label', { hasText: new RegExp(`^${label}`) }) });
  await tile.waitFor();
  await tile.locator('.value .spinner').waitFor({ state: 'detached' });
  return (await tile.locator('.value').innerText()).trim();
}

describe('game overview', () => {
  const env = setup({ before, after });

  it("shows today's totals, charts and the month's quota, its reads fired together", async (t) => {
    const account = await newAccount(env.server);
    const { gameId, key } = await newGame(env.server, account, 'Star Forge');
    const tracked = await call(env.server, 'POST', '/v1/track', { key, body: sampleEvents() });
    assert.equal(tracked.received, 11);

    const page = await signedInPage(env.browser, env.server, account);
    // When the frame (title, quota card) and a card's loading indicator are first in the page.
    await page.context().addInitScript(() => {
      new MutationObserver((_, observer) => {
        if (document.querySelector('h1') && document.querySelector('section[aria-label="Event quota this month"]') && document.querySelector('.stat-loading, main .loading')) {
          window.__framePainted = performance.now();
          observer.disconnect();
        }
      }).observe(document, { childList: true, subtree: true });
    });
    // Note each API read of the overview: when it was sent and when its answer ended.
    const reads = new Map();
    page.on('request', (r) => {
      const url = new URL(r.url());
      if (url.pathname.startsWith(`/v1/games/${gameId}/`)) reads.set(r, { path: url.pathname + url.search, sent: Date.now(), done: null });
    });
    page.on('requestfinished', (r) => {
      const read = reads.get(r);
      if (read) read.done = Date.now();
    });

    await page.goto(`/games/${gameId}?range=1d`);
    await page.getByRole('heading', { name: 'Star Forge', level: 1 }).waitFor();
    await page.getByText('11 of 100,000 events this month').waitFor();
    // The frame and the cards' loading states are up before the first figure arrives.
    const firstFigure = await page.evaluate(() =>
      Math.min(...performance.getEntriesByType('resource').filter((e) => e.name.includes('/metrics?')).map((e) => e.responseEnd)),
    );
    const frame = await page.evaluate(() => window.__framePainted);
    assert.ok(frame !== undefined && frame <= firstFigure, `frame at ${frame} ms, first figure at ${firstFigure} ms`);

    // Every metric read and the quota were sent before the first of them answered.
    const metricReads = [...reads.values()].filter((r) => r.path.includes('/metrics') || r.path.includes('/usage'));
    // Eight charts (ARPDAU and ARPPU among them), and nine daily reads of the KPI tiles (this
    // period and the one before).
    assert.equal(metricReads.filter((r) => r.path.includes('/metrics')).length, 17, JSON.stringify(metricReads));
    const lastSent = Math.max(...metricReads.map((r) => r.sent));
    const firstDone = Math.min(...metricReads.map((r) => r.done ?? Infinity));
    assert.ok(lastSent <= firstDone, `reads were not in parallel: ${JSON.stringify(metricReads)}`);

    // Opening the game again paints its frame in under a second (the best of up to five tries:
    // other work on a shared test machine can stall any single run).
    const paints = [];
    for (let i = 0; i < 5 && !paints.some((t) => t < 1000); i++) {
      await page.goto(`/games/${gameId}?range=1d`);
      await page.waitForFunction(() => window.__framePainted !== undefined);
      paints.push(await page.evaluate(() => window.__framePainted));
    }
    if (!paints.some((t) => t < 1000)) {
      // Only a machine too busy to show even the games list (the simplest signed-in page) in half
      // a second excuses it.
      const baseline = [];
      for (let i = 0; i < 3; i++) {
        await page.goto('/games');
        await page.getByRole('link', { name: 'Star Forge' }).waitFor();
        baseline.push(await page.evaluate(() => performance.now()));
      }
      const fastest = Math.min(...baseline);
      assert.ok(fastest >= 500, `the overview's frame painted after ${paints.map(Math.round).join(', ')} ms (the games list took ${Math.round(fastest)} ms)`);
      t.diagnostic(`machine too busy to time the first paint: overview ${paints.map(Math.round).join(', ')} ms, games list ${Math.round(fastest)} ms`);
      // The baseline left the page on the games list: back to the overview for the rest.
      await page.goto(`/games/${gameId}?range=1d`);
      await page.getByRole('heading', { name: 'Star Forge', level: 1 }).waitFor();
    }

    // Today, hourly by default.
    assert.equal(await select(page, 'Range').inputValue(), '1d');
    assert.equal(await select(page, 'Interval').inputValue(), 'hour');
    assert.equal(await statValue(page, 'Events'), '11');
    // Money always shows its cents, in the game's currency (USD by default): $15.40, not 15.4.
    assert.equal(await statValue(page, 'Revenue'), '$15.40');
    assert.equal(await statValue(page, 'Crashes'), '2');
    assert.equal(await statValue(page, 'Log errors'), '2');
    assert.equal(await statValue(page, 'DAU'), '4');

    const quota = page.getByRole('progressbar', { name: 'Event quota used this month' });
    assert.equal(await quota.getAttribute('aria-valuenow'), '11');
    assert.equal(await quota.getAttribute('aria-valuemax'), '100000');
    await page.getByText('11 of 100,000 events this month').waitFor();
    assert.match(await page.getByRole('region', { name: 'Event quota this month' }).innerText(), /free tier/);

    // The figures of the charts: this hour holds every event.
    const hour = `${String(new Date().getUTCHours()).padStart(2, '0')}:00`;
    const events = await figures(page, 'Events');
    assert.equal(events.length, 24);
    assert.deepEqual(
      events.find((row) => row[0] === hour),
      [hour, '11'],
    );
    assert.equal(events.reduce((total, row) => total + Number(row[1]), 0), 11);
    assert.deepEqual((await figures(page, 'Revenue')).find((row) => row[0] === hour), [hour, '$15.40']);
    assert.deepEqual((await figures(page, 'Crashes and errors')).find((row) => row[0] === hour), [hour, '2', '2']);
    assert.deepEqual((await figures(page, 'Active users per hour')).find((row) => row[0] === hour), [hour, '4']);
    await page.getByRole('button', { name: 'Refresh' }).waitFor();
    await screenshot(page, 'overview');

    // By day over the last 7 days: today's row carries the day's totals.
    await select(page, 'Range').selectOption('7d');
    await eventually(async () => assert.equal(await select(page, 'Interval').inputValue(), 'day'));
    await eventually(async () => assert.equal((await figures(page, 'Events')).length, 7));
    await eventually(async () => assert.equal((await figures(page, 'Daily active users')).length, 7));
    const days = await figures(page, 'Events');
    assert.equal(days.at(-1)[1], '11');
    assert.deepEqual((await figures(page, 'Daily active users')).at(-1).slice(1), ['4']);
    // DAU over the 7 days is the average of the days: 4 today, none before.
    await eventually(async () => assert.equal(await statValue(page, 'DAU'), '0.6'));
    // Day-7 retention: today's cohort (4 new players) is not complete yet.
    await page.getByText('No complete cohort in this range yet').waitFor();
    const cohorts = await page.getByRole('table', { name: 'Day-7 retention cohorts', includeHidden: true }).evaluate((t) =>
      [...t.querySelectorAll('tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent.trim())),
    );
    assert.equal(cohorts.length, 7);
    assert.deepEqual(cohorts.at(-1).slice(1), ['4', '—']);
    await eventually(async () => assert.equal(await statValue(page, 'D7 retention'), '—'));

    // Only production events: the development key's events drop out.
    await select(page, 'Environment').selectOption('production');
    await page.waitForURL(/environment=production/);
    // Each figure has its own read: wait for each to come back with the filter applied.
    await eventually(async () => assert.equal(await statValue(page, 'Events'), '0'));
    await eventually(async () => assert.equal(await statValue(page, 'Revenue'), '$0.00'));
    // The quota counts both environments.
    await page.getByText('11 of 100,000 events this month').waitFor();
  });

  it('shows a new game how to send its first event, then its charts', async () => {
    const account = await newAccount(env.server);
    const { gameId, key } = await newGame(env.server, account, 'Fresh Start');
    const page = await signedInPage(env.browser, env.server, account);
    await page.goto(`/games/${gameId}`);
    await page.getByRole('heading', { name: 'No events yet' }).waitFor();
    await page.getByText('0 of 100,000 events this month').waitFor();
    const example = await page.getByLabel('Example request').innerText();
    assert.ok(example.includes(`curl -X POST ${env.server.url}/v1/track`), example);
    assert.ok(example.includes(`"session_id":"s1"`), example);
    const keys = page.getByRole('link', { name: 'API keys page' });
    assert.equal(await keys.getAttribute('href'), `/games/${gameId}/settings/keys`);
    // No chart of zeros for a game that never sent anything.
    assert.equal(await page.locator('.stats').count(), 0);
    await screenshot(page, 'overview-empty');

    // The example's body is one the API takes.
    const body = JSON.parse(/-d '(.*)'/.exec(example)[1]);
    await call(env.server, 'POST', '/v1/track', { key, body });
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.getByText('1 of 100,000 events this month').waitFor();
    await page.getByRole('heading', { name: 'No events yet' }).waitFor({ state: 'detached' });
    assert.equal(await statValue(page, 'Events'), '1');

    await keys.waitFor({ state: 'detached' });
  });

  it('reads well at phone width', async () => {
    const account = await newAccount(env.server);
    const { gameId, key } = await newGame(env.server, account, 'Pocket Quest');
    await call(env.server, 'POST', '/v1/track', { key, body: sampleEvents() });
    const page = await signedInPage(env.browser, env.server, account, { width: 390, height: 844 });
    await page.goto(`/games/${gameId}`);
    assert.equal(await statValue(page, 'Events'), '11');
    await page.getByText('11 of 100,000 events this month').waitFor();
    // Nothing sticks out sideways.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `the page is ${overflow} px too wide`);
    await page.getByRole('table', { name: 'Day-7 retention cohorts', includeHidden: true }).waitFor({ state: 'attached' });
    await page.waitForTimeout(300); // the charts draw
    await screenshot(page, 'overview-phone');
  });
});
