// What a studio needs for its players' data requests and its own records: a player's data
// downloaded and erased (after a confirm) under Settings, the audit log of both, the game's
// event retention, and the raw events downloaded as NDJSON and CSV under Events.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { call, newAccount, newGame, screenshot, setup, signedInPage, sleep } from './harness.mjs';

/** Clicks `button` and answers the download it starts: its file name and text. */
async function downloadOf(page, button) {
  const [download] = await Promise.all([page.waitForEvent('download'), button.click()]);
  const path = await download.path();
  return { name: download.suggestedFilename(), text: await readFile(path, 'utf8'), bytes: await readFile(path) };
}

/** Waits until the game's stored events number `count` (events are written in batches). */
async function eventsStored(server, account, gameId, count) {
  for (let i = 0; i < 100; i++) {
    const response = await fetch(`${server.url}/v1/games/${gameId}/events/export`, { headers: { authorization: `Bearer ${account.token}` } });
    const lines = (await response.text()).split('\n').filter(Boolean);
    if (lines.length >= count) return;
    await sleep(100);
  }
  throw new Error(`fewer than ${count} events were stored`);
}

const minutesAgo = (minutes) => new Date(Date.now() - minutes * 60_000).toISOString();

describe('player data, retention and event export', () => {
  const env = setup({ before, after });

  it("downloads a player's data, erases it after a confirm and lists both in the audit log", async () => {
    const owner = await newAccount(env.server, 'owner');
    const { gameId, key } = await newGame(env.server, owner, 'Privacy Quest');
    // Zoë's events were accepted, so her data must be reachable too (any text is a player id).
    const events = [];
    for (let i = 0; i < 3; i++) {
      events.push({ event_name: 'level_complete', session_id: 's-zoe', player_id: 'Zoë', properties: { level: i + 1 }, client_timestamp: minutesAgo(10 - i) });
    }
    events.push({ event_name: 'level_complete', session_id: 's-ann', player_id: 'ann', properties: { level: 1 }, client_timestamp: minutesAgo(5) });
    await call(env.server, 'POST', '/v1/track', { key, body: events });
    await call(env.server, 'POST', '/v1/leaderboards/arena/entries', { key, body: { player_id: 'Zoë', score: 420 } });
    // ... and she joined a tournament: her place there is her data as well.
    await call(env.server, 'POST', `/v1/games/${gameId}/leaderboards`, { token: owner.token, body: { board_name: 'cup', join_required: true } });
    await call(env.server, 'POST', '/v1/leaderboards/cup/join', { key, body: { player_id: 'Zoë' } });
    await eventsStored(env.server, owner, gameId, 4);

    const page = await signedInPage(env.browser, env.server, owner);
    await page.goto(`/games/${gameId}/settings`);
    await page.getByRole('link', { name: 'Player data' }).click();
    const card = page.getByRole('region', { name: "A player's data" });
    await card.waitFor();
    await page.getByText('No player data has been downloaded or erased yet').waitFor();
    // Nothing to act on before a player ID is entered.
    assert.ok(await card.getByRole('button', { name: 'Download data' }).isDisabled());
    assert.ok(await card.getByRole('button', { name: 'Erase data…' }).isDisabled());

    // Download: the file the API answers, saved under its own name, and what it held in words.
    await card.getByLabel('Player ID').fill('Zoë');
    const file = await downloadOf(page, card.getByRole('button', { name: 'Download data' }));
    assert.equal(file.name, 'player-Zoë.json');
    const exported = JSON.parse(file.text);
    assert.equal(exported.player_id, 'Zoë');
    assert.equal(exported.events.length, 3);
    assert.equal(exported.counts.leaderboard_entries, 1);
    assert.deepEqual(exported.tournaments.map((t) => t.board_name), ['cup']);
    await card.getByRole('status').filter({ hasText: /^Downloaded player-Zoë\.json \(.+\): 3 events, 1 leaderboard entry, 1 tournament place\.$/ }).waitFor();

    // A player nobody sent: the download works, and the page says nothing is stored.
    await card.getByLabel('Player ID').fill('nobody');
    await downloadOf(page, card.getByRole('button', { name: 'Download data' }));
    await card.getByText('nothing is stored about nobody', { exact: false }).waitFor();

    // Erase asks first; Cancel keeps everything.
    await card.getByLabel('Player ID').fill('Zoë');
    await card.getByRole('button', { name: 'Erase data…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Erase everything about Zoë?' });
    await dialog.waitFor();
    assert.match(await dialog.innerText(), /cannot be undone/);
    await screenshot(page, 'player-data-erase-confirm');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.equal((await call(env.server, 'GET', '/v1/leaderboards/arena', { key })).entries.length, 1);

    await card.getByRole('button', { name: 'Erase data…' }).click();
    await dialog.getByRole('button', { name: 'Erase for good' }).click();
    await card.getByRole('status').filter({ hasText: 'Erased Zoë: 3 events, 1 leaderboard entry, 1 tournament place deleted.' }).waitFor();
    assert.equal((await call(env.server, 'GET', '/v1/leaderboards/arena', { key })).entries.length, 0);
    // Other players are untouched.
    const left = await (await fetch(`${env.server.url}/v1/games/${gameId}/events/export`, { headers: { authorization: `Bearer ${owner.token}` } })).text();
    assert.deepEqual(left.split('\n').filter(Boolean).map((line) => JSON.parse(line).player_id), ['ann']);

    // The audit log: newest first, who did what to whom and how much.
    const audit = page.getByRole('table', { name: 'Audit log' });
    await audit.waitFor();
    const rows = await audit.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((td) => td.innerText.trim())));
    assert.deepEqual(
      rows.map((r) => r.slice(1)),
      [
        ['Erased', 'Zoë', owner.email, '3 events, 1 leaderboard entry, 1 tournament place'],
        ['Downloaded', 'nobody', owner.email, 'Nothing stored'],
        ['Downloaded', 'Zoë', owner.email, '3 events, 1 leaderboard entry, 1 tournament place'],
      ],
    );
    assert.match(rows[0][0], /^\d{2}\/\d{2}\/\d{4}, \d{2}:\d{2}:\d{2}$/);
    await screenshot(page, 'settings-player-data');

    const phone = await signedInPage(env.browser, env.server, owner, { width: 390, height: 844 });
    await phone.goto(`/games/${gameId}/settings/player-data`);
    await phone.getByRole('table', { name: 'Audit log' }).getByText('Nothing stored').waitFor();
    await screenshot(phone, 'settings-player-data-phone');
    await phone.context().close();
  });

  it('tells members who are not owners that player data is for owners', async () => {
    const owner = await newAccount(env.server, 'owner');
    const editor = await newAccount(env.server, 'editor');
    const { gameId } = await newGame(env.server, owner, 'Shared Quest');
    await call(env.server, 'POST', `/v1/games/${gameId}/members`, { token: owner.token, body: { email: editor.email, role: 'editor' } });
    const page = await signedInPage(env.browser, env.server, editor);
    await page.goto(`/games/${gameId}/settings/player-data`);
    await page.getByText("Only the owners of Shared Quest can download or erase a player's data", { exact: false }).waitFor();
    assert.equal(await page.getByLabel('Player ID').count(), 0);
    // Retention reads as a sentence for them.
    await page.getByRole('link', { name: 'General' }).click();
    await page.getByRole('region', { name: 'Event retention' }).getByText('Events are kept for good.').waitFor();
  });

  it("sets the game's event retention, and back to keeping events for good", async () => {
    const owner = await newAccount(env.server, 'owner');
    const { gameId } = await newGame(env.server, owner, 'Retention Quest');
    const page = await signedInPage(env.browser, env.server, owner);
    await page.goto(`/games/${gameId}/settings`);
    const card = page.getByRole('region', { name: 'Event retention' });
    await card.waitFor();
    assert.ok(await card.getByRole('radio', { name: /For good/ }).isChecked());

    await card.getByRole('radio', { name: /For a number of days/ }).check();
    await card.getByLabel('Days to keep events').fill('4000');
    await card.getByRole('button', { name: 'Save retention' }).click();
    await card.getByRole('alert').filter({ hasText: 'Enter a whole number of days from 1 to 3,650.' }).waitFor();
    await card.getByLabel('Days to keep events').fill('30');
    await card.getByRole('button', { name: 'Save retention' }).click();
    await card.getByText('Saved. Events older than 30 days are deleted.').waitFor();
    assert.equal((await call(env.server, 'GET', `/v1/games/${gameId}`, { token: owner.token })).retention_days, 30);
    await screenshot(page, 'settings-retention');

    // The export page says what is no longer there.
    await page.goto(`/games/${gameId}/events/export`);
    await page.getByText('This game keeps events for 30 days', { exact: false }).waitFor();

    const phone = await signedInPage(env.browser, env.server, owner, { width: 390, height: 844 });
    await phone.goto(`/games/${gameId}/settings`);
    const phoneCard = phone.getByRole('region', { name: 'Event retention' });
    await phoneCard.getByLabel('Days to keep events').waitFor();
    await phoneCard.scrollIntoViewIfNeeded();
    await screenshot(phone, 'settings-retention-phone');
    await phoneCard.getByRole('radio', { name: /For good/ }).check();
    await phoneCard.getByRole('button', { name: 'Save retention' }).click();
    await phoneCard.getByText('Saved. Events are kept for good.').waitFor();
    assert.equal((await call(env.server, 'GET', `/v1/games/${gameId}`, { token: owner.token })).retention_days ?? null, null);
    await phone.context().close();
  });

  it('downloads raw events as NDJSON and CSV, by day and name', async () => {
    const owner = await newAccount(env.server, 'owner');
    const viewer = await newAccount(env.server, 'viewer');
    const { gameId, key } = await newGame(env.server, owner, 'Export Quest');
    await call(env.server, 'POST', `/v1/games/${gameId}/members`, { token: owner.token, body: { email: viewer.email, role: 'viewer' } });
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000).toISOString();
    await call(env.server, 'POST', '/v1/track', {
      key,
      body: [
        { event_name: 'purchase', session_id: 's1', player_id: 'p1', properties: { amount: 4.99, sku: '=gems' }, client_timestamp: minutesAgo(30) },
        { event_name: 'level_complete', session_id: 's1', player_id: 'p1', properties: { level: 3 }, client_timestamp: minutesAgo(20) },
        { event_name: 'level_complete', session_id: 's2', player_id: 'p2', properties: { level: 1 }, client_timestamp: twoDaysAgo },
      ],
    });
    await eventsStored(env.server, owner, gameId, 3);

    // Any member may export: here a viewer.
    const page = await signedInPage(env.browser, env.server, viewer);
    await page.goto(`/games/${gameId}/events`);
    await page.getByRole('link', { name: 'Export' }).click();
    const card = page.getByRole('region', { name: 'Download raw events' });
    await card.waitFor();

    // Every event, NDJSON, oldest first.
    const all = await downloadOf(page, card.getByRole('button', { name: 'Download NDJSON' }));
    assert.equal(all.name, `events-${gameId}.ndjson`);
    const lines = all.text.split('\n').filter(Boolean).map((line) => JSON.parse(line));
    assert.deepEqual(lines.map((e) => e.event_name), ['level_complete', 'purchase', 'level_complete']);
    await card.getByRole('status').filter({ hasText: new RegExp(`^Downloaded events-${gameId}\\.ndjson \\(\\d+ bytes\\)\\.$`) }).waitFor();

    // Today only, one name, CSV: a header and one row; a formula-like cell is neutralised.
    const today = new Date().toISOString().slice(0, 10);
    await card.getByLabel('First day (optional)').fill(today);
    await card.getByLabel('Event names (optional)').fill('purchase');
    await card.getByRole('radio', { name: /CSV/ }).check();
    const csv = await downloadOf(page, card.getByRole('button', { name: 'Download CSV' }));
    assert.equal(csv.name, `events-${gameId}.csv`);
    const rows = csv.text.trim().split(/\r?\n/);
    assert.equal(rows.length, 2, csv.text);
    assert.match(rows[0], /event_name/);
    assert.match(rows[1], /purchase/);
    assert.doesNotMatch(rows[1], /level_complete/);

    // gzip: a .gz file.
    await card.getByLabel('Compress the file (gzip, .gz)').check();
    const gz = await downloadOf(page, card.getByRole('button', { name: 'Download CSV' }));
    assert.equal(gz.name, `events-${gameId}.csv.gz`);
    assert.deepEqual([...gz.bytes.subarray(0, 2)], [0x1f, 0x8b]);

    // The same request as a command, for very large exports.
    const command = await page.locator('.export-command').innerText();
    assert.match(command, new RegExp(`/v1/games/${gameId}/events/export\\?from=${today}&event_name=purchase&format=csv&gzip=true`));
    assert.doesNotMatch(command, new RegExp(viewer.token.slice(0, 20)), 'the command never shows the token');

    // A last day before the first is refused before asking.
    await card.getByLabel('Last day (optional)').fill('2020-01-01');
    await card.getByRole('button', { name: 'Download CSV' }).click();
    await card.getByRole('alert').filter({ hasText: 'The first day must not be after the last day.' }).waitFor();
    await card.getByLabel('Last day (optional)').fill('');
    await card.getByLabel('Compress the file (gzip, .gz)').uncheck();
    await screenshot(page, 'events-export');

    const phone = await signedInPage(env.browser, env.server, viewer, { width: 390, height: 844 });
    await phone.goto(`/games/${gameId}/events/export`);
    await phone.getByRole('region', { name: 'Download raw events' }).waitFor();
    await screenshot(phone, 'events-export-phone');
    await phone.context().close();
  });
});
