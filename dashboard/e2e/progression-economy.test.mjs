// Progression and economy: the steps table (starts, completes, fails, fail rate, attempts) and
// its chart, the currencies with their sources, sinks and net flow per day, reached from the
// game's navigation; empty states; at desktop and phone width.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { call, newAccount, newGame, screenshot, setup, signedInPage } from './harness.mjs';

const daysAgo = (days) => new Date(Date.now() - days * 86_400_000).toISOString();

/** The visible text of each body row of a table, cells joined by " | ". */
async function rows(page, name) {
  return page
    .getByRole('table', { name })
    .locator('tbody tr')
    .evaluateAll((rows) => rows.map((row) => Array.from(row.cells, (cell) => cell.innerText.trim().replace(/\s+/g, ' ')).join(' | ')));
}

async function trackPlay(server, key) {
  const events = [];
  const progression = (player, status, levels, extra = {}, days = 1) => {
    const properties = { status, ...extra };
    levels.forEach((level, index) => (properties[`level${index + 1}`] = level));
    events.push({ event_name: 'progression', player_id: player, session_id: `s-${player}`, client_timestamp: daysAgo(days), properties });
  };
  const resource = (player, flow, currency, amount, item_type, days) =>
    events.push({ event_name: 'resource', player_id: player, session_id: `s-${player}`, client_timestamp: daysAgo(days), properties: { flow, currency, amount, item_type } });
  for (const p of ['ana', 'bo', 'cy', 'dee']) {
    progression(p, 'start', ['Forest', 'Level 1']);
    progression(p, 'complete', ['Forest', 'Level 1'], { attempt: 1 });
    progression(p, 'start', ['Forest', 'Level 2']);
  }
  progression('ana', 'fail', ['Forest', 'Level 2'], { attempt: 1 });
  progression('ana', 'complete', ['Forest', 'Level 2'], { attempt: 2 });
  progression('bo', 'fail', ['Forest', 'Level 2'], { attempt: 1 });
  progression('bo', 'fail', ['Forest', 'Level 2'], { attempt: 2 });
  progression('cy', 'complete', ['Forest', 'Level 2'], { attempt: 1 });
  progression('ana', 'start', ['Forest', 'Level 10', 'Boss']);
  progression('ana', 'fail', ['Forest', 'Level 10', 'Boss']);
  progression('ana', 'start', ['Forest']);
  resource('ana', 'source', 'gold', 100, 'reward', 2);
  resource('bo', 'source', 'gold', 40, 'quest', 1);
  resource('ana', 'sink', 'gold', 150, 'shop', 1);
  resource('cy', 'source', 'gems', 5, 'purchase', 1);
  const answer = await call(server, 'POST', '/v1/track', { key, body: events });
  assert.equal(answer.received, events.length);
}

describe('progression and economy', () => {
  const env = setup({ before, after });

  it('shows each step with its fail rate and each currency with its flows, at desktop and phone width', async () => {
    const owner = await newAccount(env.server);
    const { gameId, key } = await newGame(env.server, owner, 'Forest Run');
    const page = await signedInPage(env.browser, env.server, owner);
    await page.goto(`/games/${gameId}/progression`);
    await page.getByText('No progression events in this range').waitFor();
    await page.getByText("playtrace.trackProgression('start'", { exact: false }).waitFor();
    await page.getByRole('link', { name: 'Economy' }).click();
    await page.getByText('No resource events in this range').waitFor();

    await trackPlay(env.server, key);
    await page.getByRole('link', { name: 'Progression' }).click();
    await page.getByRole('table', { name: 'Progression steps' }).waitFor();
    assert.deepEqual(await rows(page, 'Progression steps'), [
      'Forest | 1 | 0 | 0 | — | —',
      'Forest / Level 1 | 4 | 4 | 0 | 0% | 1.00',
      'Forest / Level 2 | 4 | 2 | 3 | 60% | 1.50',
      'Forest / Level 10 / Boss | 1 | 0 | 1 | 100% | —',
    ]);
    const stats = await page.locator('.stat').allInnerTexts();
    assert.deepEqual(stats.map((s) => s.replace(/\s+/g, ' ')), ['STEPS 4', 'STARTS 10', 'COMPLETES 6', 'FAIL RATE 40%']);
    await page.getByRole('img', { name: 'Completes and fails by step' }).waitFor();
    await screenshot(page, 'progression');

    await page.getByRole('link', { name: 'Economy' }).click();
    const gold = page.getByRole('region', { name: 'Currency gold' });
    await gold.waitFor();
    assert.deepEqual(
      (await gold.locator('.stat').allInnerTexts()).map((s) => s.replace(/\s+/g, ' ')),
      ['SOURCES 140', 'SINKS 150', 'NET FLOW -10'],
    );
    assert.deepEqual(await rows(page, 'gold: Sources by item type'), ['reward | 100 | 1 | 71.4%', 'quest | 40 | 1 | 28.6%']);
    assert.deepEqual(await rows(page, 'gold: Sinks by item type'), ['shop | 150 | 1 | 100.0%']);
    const gems = page.getByRole('region', { name: 'Currency gems' });
    assert.deepEqual(
      (await gems.locator('.stat').allInnerTexts()).map((s) => s.replace(/\s+/g, ' ')),
      ['SOURCES 5', 'SINKS 0', 'NET FLOW +5'],
      'a currency never spent shows 0 sinks',
    );
    assert.equal(await gold.locator('.net-negative').count(), 1, 'a negative net flow reads as a loss');
    await screenshot(page, 'economy');

    const phone = await signedInPage(env.browser, env.server, owner, { width: 390, height: 844 });
    await phone.goto(`/games/${gameId}/progression`);
    await phone.getByRole('table', { name: 'Progression steps' }).waitFor();
    const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the page fits the phone's width (${overflow}px over)`);
    await screenshot(phone, 'progression-phone');
    await phone.goto(`/games/${gameId}/economy`);
    await phone.getByRole('table', { name: 'gold: Sinks by item type' }).waitFor();
    await screenshot(phone, 'economy-phone');
  });
});
