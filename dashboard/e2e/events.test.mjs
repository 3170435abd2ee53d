// The events area: counts by name, the live tail (new events without reload, older pages,
// pause), and event schemas tried on recent events, saved, then enforced by /v1/track.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { call, newAccount, newGame, screenshot, setup, signedInPage, sleep } from './harness.mjs';

/** Runs `check` until it passes (`seconds` at most). */
async function eventually(check, seconds = 5) {
  for (let i = 0; ; i++) {
    try {
      return await check();
    } catch (error) {
      if (i >= seconds * 10) throw error;
      await sleep(100);
    }
  }
}

/** A table's body as rows of cell texts. */
function rows(page, name) {
  return page
    .getByRole('table', { name, exact: true })
    .evaluate((t) => [...t.querySelectorAll(':scope > tbody > tr')].map((tr) => [...tr.children].map((c) => c.textContent.trim())));
}

/** The event rows of the live table (the opened detail rows left out). */
async function liveRows(page) {
  return (await rows(page, 'Events')).filter((row) => row.length > 1);
}

async function track(server, key, body) {
  return call(server, 'POST', '/v1/track', { key, body });
}

describe('events', () => {
  const env = setup({ before, after });

  it('counts the events of each name', async () => {
    const account = await newAccount(env.server);
    const { gameId, key } = await newGame(env.server, account, 'Count Keeper');
    const batch = [];
    for (let i = 0; i < 5; i++) batch.push({ event_name: 'session_start', session_id: `s${i}`, player_id: `p${i}` });
    for (let i = 0; i < 3; i++) batch.push({ event_name: 'level_complete', session_id: `s${i}`, player_id: `p${i}`, properties: { level: i + 1 } });
    batch.push({ event_name: 'purchase', session_id: 's1', player_id: 'p1', properties: { amount: 2.5 } });
    batch.push({ event_name: 'crash', session_id: 's2', player_id: 'p2' });
    await track(env.server, key, batch);
    await call(env.server, 'PUT', `/v1/games/${gameId}/event-schemas/purchase`, { token: account.token, body: { type: 'object' } });

    const page = await signedInPage(env.browser, env.server, account);
    await page.goto(`/games/${gameId}/events`);
    await page.getByRole('heading', { name: 'Events', level: 1 }).waitFor();
    await page.getByRole('table', { name: 'Event counts' }).waitFor();
    assert.deepEqual(
      (await rows(page, 'Event counts')).map((row) => row.slice(0, 3)),
      [
        ['session_start', '5', '50.0%'],
        ['level_complete', '3', '30.0%'],
        ['crash', '1', '10.0%'],
        ['purchase', '1', '10.0%'],
      ],
    );
    const total = await page.getByRole('table', { name: 'Event counts' }).locator('tfoot').innerText();
    assert.match(total, /Total\s+10/);
    // The name with a schema links to it; the others offer one.
    const purchase = page.getByRole('row', { name: /purchase/ });
    assert.ok(await purchase.getByRole('link', { name: 'View schema' }).isVisible());
    assert.ok(await page.getByRole('row', { name: /crash/ }).getByRole('link', { name: 'Add schema' }).isVisible());
    // The chart's figures agree.
    const figures = await page.getByRole('table', { name: 'Events by name figures', includeHidden: true }).evaluate((t) =>
      [...t.querySelectorAll('tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent.trim())),
    );
    assert.deepEqual(figures[0], ['session_start', '5']);
    await screenshot(page, 'events-counts');

    // Production only: nothing was sent with a production key.
    await page.getByRole('combobox', { name: /^Environment/ }).selectOption('production');
    await page.getByText('No events in this range').waitFor();

    // A name leads to its live events.
    await page.goto(`/games/${gameId}/events`);
    await page.getByRole('link', { name: 'level_complete' }).click();
    await page.waitForURL(/\/events\/live\?event_name=level_complete/);
    await eventually(async () => assert.equal((await liveRows(page)).length, 3));
    assert.ok((await liveRows(page)).every((row) => row[1].endsWith('level_complete')));
  });

  it('tails new events live, pages back to older ones and pauses', async () => {
    const account = await newAccount(env.server);
    const { gameId, key } = await newGame(env.server, account, 'Live Wire');
    // 60 older events, a second apart, so that the first page (50) leaves 10 for "Load older".
    const start = Date.now() - 10 * 60_000;
    const older = [];
    for (let i = 0; i < 60; i++) {
      older.push({
        event_name: 'level_complete',
        session_id: 'old-session',
        player_id: `veteran-${i}`,
        properties: { level: i, stars: i % 3 },
        client_timestamp: new Date(start + i * 1000).toISOString(),
      });
    }
    await track(env.server, key, older);

    const page = await signedInPage(env.browser, env.server, account);
    await page.goto(`/games/${gameId}/events/live`);
    await eventually(async () => assert.equal((await liveRows(page)).length, 50));
    const first = await liveRows(page);
    assert.equal(first[0][2], 'veteran-59');
    assert.equal(first[49][2], 'veteran-10');
    await page.getByText('50 events shown').waitFor();

    await page.getByRole('button', { name: 'Load older' }).click();
    await page.getByText('60 events shown').waitFor();
    const all = await liveRows(page);
    assert.equal(all.at(-1)[2], 'veteran-0');
    await page.getByText('That is the oldest event.').waitFor();

    // A new event shows up on top without a reload.
    await track(env.server, key, { event_name: 'boss_defeated', session_id: 'hero-session', player_id: 'hero', properties: { boss: 'Hydra', seconds: 312 } });
    await eventually(async () => assert.equal((await liveRows(page))[0][2], 'hero'), 8);
    assert.equal((await liveRows(page)).length, 61);

    // Its row opens to its properties.
    await page.getByRole('button', { name: 'boss_defeated' }).click();
    const properties = page.getByLabel('Properties of boss_defeated');
    assert.deepEqual(JSON.parse(await properties.innerText()), { boss: 'Hydra', seconds: 312 });
    assert.equal(await page.getByRole('button', { name: 'boss_defeated' }).getAttribute('aria-expanded'), 'true');
    await screenshot(page, 'events-live');

    // Paused, new events wait; resumed, they arrive.
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByRole('button', { name: 'Resume' }).waitFor();
    assert.match(await page.locator('.live-status').innerText(), /^Paused/);
    await track(env.server, key, { event_name: 'quest_started', session_id: 'hero-session', player_id: 'sidekick' });
    await sleep(3500);
    assert.equal((await liveRows(page))[0][2], 'hero');
    await page.getByRole('button', { name: 'Resume' }).click();
    await eventually(async () => assert.equal((await liveRows(page))[0][2], 'sidekick'), 8);

    // Filtered by player.
    await page.getByLabel('Player ID').fill('hero');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.waitForURL(/player_id=hero/);
    await eventually(async () => assert.deepEqual((await liveRows(page)).map((row) => row[2]), ['hero']));
    await page.getByLabel('Player ID').fill('nobody-at-all');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.getByText('No events match these filters').waitFor();
  });

  it('reads the live tail at phone width', async () => {
    const account = await newAccount(env.server);
    const { gameId, key } = await newGame(env.server, account, 'Pocket Live');
    await track(env.server, key, [
      { event_name: 'session_start', session_id: 's1', player_id: 'mia' },
      { event_name: 'purchase', session_id: 's1', player_id: 'mia', properties: { amount: 1.99, sku: 'coins_100' } },
      { event_name: 'level_complete', session_id: 's1', player_id: 'mia', properties: { level: 4 } },
    ]);
    const page = await signedInPage(env.browser, env.server, account, { width: 390, height: 844 });
    await page.goto(`/games/${gameId}/events/live`);
    await eventually(async () => assert.equal((await liveRows(page)).length, 3));
    await page.getByRole('button', { name: 'purchase' }).click();
    await page.getByLabel('Properties of purchase').waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `the page is ${overflow} px too wide`);
    await screenshot(page, 'events-live-phone');
  });

  it('names every bar of the chart and wraps event names only between their words', async () => {
    const account = await newAccount(env.server);
    const { gameId, key } = await newGame(env.server, account, 'Many Names');
    const names = Array.from({ length: 12 }, (_, i) => `event_${String(i + 1).padStart(2, '0')}`);
    names[0] = 'tutorial_step_completed_after_the_first_boss_fight';
    // Counts 12, 11, ... 1, so the chart's order is the list's.
    const batch = names.flatMap((name, i) => Array.from({ length: 12 - i }, (_, n) => ({ event_name: name, session_id: `s${n}`, player_id: `p${n}` })));
    await track(env.server, key, batch);

    const page = await signedInPage(env.browser, env.server, account);
    await page.goto(`/games/${gameId}/events`);
    const canvas = page.locator('canvas[aria-label="Events by name"]');
    await canvas.waitFor();
    // Every bar has its label (the canvas says how many it drew), not every other one.
    await eventually(async () => assert.equal(await canvas.getAttribute('data-labels-drawn'), '12'));
    await screenshot(page, 'events-counts-many-names');

    // The live tail at phone width: the long name wraps only after its separators.
    const phone = await signedInPage(env.browser, env.server, account, { width: 390, height: 844 });
    await phone.goto(`/games/${gameId}/events/live?event_name=${names[0]}`);
    const name = phone.locator('.row-toggle .name-wrap').first();
    await name.waitFor();
    const split = await name.evaluate((element) => {
      const lines = new Set();
      const brokenWords = [];
      for (const node of element.childNodes) {
        if (node.nodeType !== Node.TEXT_NODE) continue;
        const range = document.createRange();
        range.selectNodeContents(node);
        const rects = [...range.getClientRects()];
        if (rects.length > 1) brokenWords.push(node.textContent);
        for (const rect of rects) lines.add(Math.round(rect.top));
      }
      return { brokenWords, lines: lines.size };
    });
    assert.deepEqual(split.brokenWords, [], 'no word of the name is split across lines');
    assert.ok(split.lines > 1, 'the long name does wrap at phone width');
    await screenshot(phone, 'events-live-long-name-phone');
    await phone.context().close();
  });

  it('tries a schema on recent events, saves it, and /v1/track then enforces it', async () => {
    const account = await newAccount(env.server);
    const { gameId, key } = await newGame(env.server, account, 'Schema Smith');
    await track(env.server, key, [
      { event_name: 'purchase', session_id: 's1', player_id: 'ana', properties: { amount: 5, sku: 'gems' } },
      { event_name: 'purchase', session_id: 's2', player_id: 'ben', properties: { amount: -1, sku: 'gems' } },
      { event_name: 'purchase', session_id: 's3', player_id: 'cy', properties: { amount: 'free', sku: 'gems' } },
      { event_name: 'purchase', session_id: 's4', player_id: 'dee', properties: { amount: 12.5, sku: 'gold' } },
      { event_name: 'session_start', session_id: 's1', player_id: 'ana' },
    ]);

    const page = await signedInPage(env.browser, env.server, account);
    await page.goto(`/games/${gameId}/events/schemas`);
    await page.getByText('No event schemas yet').waitFor();
    assert.match(await page.getByRole('note', { name: 'Event validation' }).innerText(), /Off/);
    // The standard kinds' ready schemas are listed as in use; "Adapt" starts one of the game's
    // own from a ready one.
    const ready = await rows(page, 'Ready schemas');
    assert.deepEqual(
      ready.map((row) => [row[0], row[2]]),
      [
        ['progression', 'Yes'],
        ['resource', 'Yes'],
      ],
    );
    assert.match(ready[1][1], /^amount, currency, flow, item_id, \+1 \(3 required\)/);
    await page.getByRole('row', { name: /resource/ }).getByText('Show the schema').click();
    await page.getByText('"source",').waitFor();
    await screenshot(page, 'events-schemas-ready');
    await page.getByRole('link', { name: 'Adapt the ready schema of resource' }).click();
    assert.equal(await page.getByLabel('Event name').inputValue(), 'resource');
    const adapted = JSON.parse(await page.getByLabel("JSON Schema of the event's properties").inputValue());
    assert.deepEqual(adapted.required, ['flow', 'currency', 'amount']);
    await page.goto(`/games/${gameId}/events/schemas`);
    await page.getByText('No event schemas yet').waitFor();
    await page.getByRole('link', { name: 'New schema' }).click();
    await page.getByLabel('Event name').fill('purchase');
    const editor = page.getByLabel("JSON Schema of the event's properties");

    // Broken JSON is named as such and cannot be saved.
    await editor.fill('{"type": "object", "properties": {');
    await page.getByText(/Not valid JSON/).waitFor();
    assert.ok(await page.getByRole('button', { name: 'Create schema' }).isDisabled());
    assert.ok(await page.getByRole('button', { name: 'Check against recent events' }).isDisabled());

    const schema = { type: 'object', properties: { amount: { type: 'number', minimum: 0 }, sku: { type: 'string' } }, required: ['amount', 'sku'] };
    await editor.fill(JSON.stringify(schema, null, 2));
    await page.getByText('Valid JSON').waitFor();
    await page.getByRole('button', { name: 'Check against recent events' }).click();
    await page.getByText('2 of 4 recent purchase events break this schema.').waitFor();
    const violations = await rows(page, 'Violations');
    assert.deepEqual(violations.map((row) => row[1]).sort(), ['ben', 'cy']);
    assert.ok(violations.some((row) => row[1] === 'ben' && row.at(-1).includes('/amount')), JSON.stringify(violations));
    await screenshot(page, 'events-schema-editor');

    // A looser schema passes them all.
    await editor.fill(JSON.stringify({ type: 'object', required: ['sku'] }));
    await page.getByText('The schema changed since this check.').waitFor();
    await page.getByRole('button', { name: 'Check against recent events' }).click();
    await page.getByText('All 4 recent purchase events match.').waitFor();

    // Save the strict one.
    await editor.fill(JSON.stringify(schema, null, 2));
    await page.getByRole('button', { name: 'Create schema' }).click();
    await page.waitForURL(`**/games/${gameId}/events/schemas/purchase`);
    await page.getByText('Schema created.').waitFor();
    const saved = await call(env.server, 'GET', `/v1/games/${gameId}/event-schemas/purchase`, { token: account.token });
    assert.deepEqual(saved.schema, schema);

    // With validation enforced, /v1/track refuses a purchase that breaks it (the mode reaches
    // ingestion within the API-key cache's 5 seconds).
    await call(env.server, 'PATCH', `/v1/games/${gameId}`, { token: account.token, body: { event_validation: 'enforce' } });
    const bad = { event_name: 'purchase', session_id: 's9', player_id: 'eve', properties: { amount: -20, sku: 'gems' } };
    const refused = await eventually(async () => {
      const response = await fetch(`${env.server.url}/v1/track`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-game-api-key': key },
        body: JSON.stringify(bad),
      });
      assert.equal(response.status, 400);
      return response.json();
    }, 10);
    assert.match(refused.violations[0].message, /amount/);
    await track(env.server, key, { event_name: 'purchase', session_id: 's9', player_id: 'eve', properties: { amount: 20, sku: 'gems' } });

    // The list shows it and the mode; deleting asks first.
    await page.goto(`/games/${gameId}/events/schemas`);
    assert.match(await page.getByRole('note', { name: 'Event validation' }).innerText(), /Enforce/);
    const listed = await rows(page, 'Event schemas');
    assert.equal(listed.length, 1);
    assert.equal(listed[0][0], 'purchase');
    assert.match(listed[0][1], /amount, sku \(2 required\)/);
    await page.getByRole('link', { name: 'purchase', exact: true }).click();
    await page.getByRole('button', { name: 'Delete schema' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete the schema of purchase?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    assert.ok(await editor.isVisible());
    await page.getByRole('button', { name: 'Delete schema' }).click();
    await dialog.getByRole('button', { name: 'Delete schema' }).click();
    await page.getByText('No event schemas yet').waitFor();
  });

  it('drafts a schema from recent events, and shows viewers no edit controls', async () => {
    const owner = await newAccount(env.server);
    const { gameId, key } = await newGame(env.server, owner, 'Draft Works');
    await track(env.server, key, [
      { event_name: 'level_complete', session_id: 's1', player_id: 'ana', properties: { level: 1, stars: 3, boss: true } },
      { event_name: 'level_complete', session_id: 's1', player_id: 'ana', properties: { level: 2, stars: 1.5 } },
    ]);
    const page = await signedInPage(env.browser, env.server, owner);
    await page.goto(`/games/${gameId}/events/schemas/new?event_name=level_complete`);
    assert.equal(await page.getByLabel('Event name').inputValue(), 'level_complete');
    await page.getByRole('button', { name: 'Draft from recent events' }).click();
    await page.getByText('Drafted from the 2 newest level_complete events.').waitFor();
    const drafted = JSON.parse(await page.getByLabel("JSON Schema of the event's properties").inputValue());
    assert.deepEqual(drafted, {
      type: 'object',
      properties: { boss: { type: 'boolean' }, level: { type: 'integer' }, stars: { type: 'number' } },
      required: ['level', 'stars'],
    });
    await page.getByRole('button', { name: 'Check against recent events' }).click();
    await page.getByText('All 2 recent level_complete events match.').waitFor();
    await page.getByRole('button', { name: 'Create schema' }).click();
    await page.getByText('Schema created.').waitFor();

    // A viewer reads the schema and may try it, but not change it.
    const viewer = await newAccount(env.server, 'viewer');
    await call(env.server, 'POST', `/v1/games/${gameId}/members`, { token: owner.token, body: { email: viewer.email, role: 'viewer' } });
    const seen = await signedInPage(env.browser, env.server, viewer);
    await seen.goto(`/games/${gameId}/events/schemas`);
    await seen.getByRole('table', { name: 'Event schemas' }).waitFor();
    assert.equal(await seen.getByRole('link', { name: 'New schema' }).count(), 0);
    await seen.getByRole('link', { name: 'level_complete', exact: true }).click();
    const editor = seen.getByLabel("JSON Schema of the event's properties");
    await editor.waitFor();
    assert.equal(await editor.getAttribute('readonly'), '');
    assert.equal(await seen.getByRole('button', { name: /Save schema|Delete schema/ }).count(), 0);
    await seen.getByRole('button', { name: 'Check against recent events' }).click();
    await seen.getByText('All 2 recent level_complete events match.').waitFor();
  });
});
