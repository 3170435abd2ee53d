// The KPI tiles of the overview (each against the previous period) and the retention grid,
// on players who joined, came back and paid on known days, worked out by hand.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { call, newAccount, newGame, screenshot, setup, signedInPage } from './harness.mjs';

const DAY = 86_400_000;
const today = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`);

/** `hh:mm` UTC on the day `days` before today. */
function at(days, clock = '12:00') {
  return new Date(today - days * DAY + Date.parse(`1970-01-01T${clock}:00Z`)).toISOString();
}

/** The dashboard's label of the day `days` before today ("24 Nov"). */
function dayLabel(days) {
  return new Date(today - days * DAY).toLocaleDateString('en-GB', { timeZone: 'UTC', day: 'numeric', month: 'short' });
}

function visit(player, days, extra = {}) {
  return { event_name: 'session_start', session_id: `${player}-${days}`, player_id: player, client_timestamp: at(days), ...extra };
}

/**
 * The previous 7 days (10 and 9 days ago): p1 and p2 join; p1 pays 5.00 and comes back the
 * next day; p1's first session reports 120 s; p1 is back on day 7 (3 days ago).
 * This week: n1 to n4 join 3 days ago (n3 pays 5.00, n1 plays 4 minutes); n1, n2 and n3 come
 * back 2 days ago, n1 paying 10.00.
 */
function events() {
  return [
    visit('p1', 10),
    { event_name: 'purchase', session_id: 'p1-10', player_id: 'p1', client_timestamp: at(10, '12:01'), properties: { amount: 5 } },
    { event_name: 'session_end', session_id: 'p1-10', player_id: 'p1', client_timestamp: at(10, '12:02'), properties: { length: 120 } },
    visit('p2', 10),
    visit('p1', 9),
    visit('p1', 3),
    ...['n1', 'n2', 'n3', 'n4'].map((p) => visit(p, 3)),
    { event_name: 'level_up', session_id: 'n1-3', player_id: 'n1', client_timestamp: at(3, '12:04') },
    { event_name: 'purchase', session_id: 'n3-3', player_id: 'n3', client_timestamp: at(3), properties: { amount: 5 } },
    ...['n1', 'n2', 'n3'].map((p) => visit(p, 2)),
    { event_name: 'purchase', session_id: 'n1-2', player_id: 'n1', client_timestamp: at(2), properties: { amount: 10 } },
  ];
}

/** Each KPI tile as [label, value, change line]. */
async function tiles(page) {
  const group = page.getByRole('group', { name: 'Key figures' });
  await group.waitFor();
  await page.waitForFunction(() => document.querySelectorAll('.kpi-tiles .spinner').length === 0);
  return group.evaluate((g) =>
    [...g.querySelectorAll('.stat')].map((s) => [
      s.querySelector('.label').textContent.trim(),
      s.querySelector('.value').textContent.trim(),
      s.querySelector('.kpi-change')?.textContent.replace(/\s+/g, ' ').trim() ?? '',
    ]),
  );
}

/** The grid's rows as [cohort, size, ...cells], a cell "incomplete" when hatched. */
async function grid(page) {
  const table = page.getByRole('table', { name: 'Retention by cohort' });
  await table.waitFor();
  return table.evaluate((t) =>
    [...t.querySelectorAll('tbody tr')].map((tr) =>
      [...tr.children].map((c) => (c.classList.contains('cell-incomplete') ? 'incomplete' : c.textContent.trim())),
    ),
  );
}

describe('KPI tiles and the retention grid', () => {
  const env = setup({ before, after });

  it('shows each KPI against the previous 7 days', async () => {
    const account = await newAccount(env.server);
    const { gameId, key } = await newGame(env.server, account, 'Cohort Quest');
    await call(env.server, 'POST', '/v1/track', { key, body: events() });
    const page = await signedInPage(env.browser, env.server, account);
    await page.goto(`/games/${gameId}`);
    const shown = Object.fromEntries((await tiles(page)).map(([label, value, change]) => [label, [value, change]]));
    // Days with active users this week: 5 three days ago, 3 two days ago (8 in 7 days); before:
    // 2 and 1 (3 in 7 days).
    assert.deepEqual(shown, {
      DAU: ['1.1', '▲up 166.7% was 0.4'],
      'New users': ['4', '▲up 100% was 2'],
      // n1..n3 of 4 back the next day; p1 of 2 before.
      'D1 retention': ['75%', '▲up 50% was 50%'],
      // No cohort of this week has reached day 7; p1 of 2 before.
      'D7 retention': ['—', '– was 50%'],
      'D30 retention': ['—', '– no data before'],
      Sessions: ['8', '▲up 166.7% was 3'],
      // 240 s over 8 sessions; 120 s over 3.
      'Avg session': ['30s', '▼down 25% was 40s'],
      Revenue: ['$15.00', '▲up 200% was $5.00'],
      // 15.00 / 8 user-days; 5.00 / 3.
      ARPDAU: ['$1.88', '▲up 12.5% was $1.67'],
      // 2 paying user-days in 7 days; 1.
      'Paying users': ['0.3', '▲up 100% was 0.1'],
      // 2 of 8 user-days; 1 of 3.
      Conversion: ['25%', '▼down 25% was 33.33%'],
    });
    await page.getByText(`Changes against the previous 7 days (${dayLabel(13)} to ${dayLabel(7)})`).waitFor();
    await screenshot(page, 'overview-kpis');
    const phone = await signedInPage(env.browser, env.server, account, { width: 390, height: 844 });
    await phone.goto(`/games/${gameId}`);
    await tiles(phone);
    const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `the page is ${overflow} px too wide`);
    await phone.waitForTimeout(300); // the charts draw
    await screenshot(phone, 'overview-kpis-phone');
  });

  it('shows the cohort table with heat shading and the days not ended hatched', async () => {
    const account = await newAccount(env.server);
    const { gameId, key } = await newGame(env.server, account, 'Cohort Grid');
    await call(env.server, 'POST', '/v1/track', { key, body: events() });
    const page = await signedInPage(env.browser, env.server, account);
    await page.goto(`/games/${gameId}`);
    await page.getByRole('link', { name: 'Retention', exact: true }).click();
    await page.getByRole('heading', { name: 'Retention', level: 1 }).waitFor();
    const rows = await grid(page);
    // An average row, then the last 30 days oldest first; 14 day columns by default.
    assert.equal(rows.length, 31);
    assert.equal(rows[1][0], dayLabel(29));
    assert.equal(rows[0].length, 2 + 14);
    const byDay = Object.fromEntries(rows.map((row) => [row[0], row.slice(1)]));
    // 10 days ago: p1 and p2; p1 back on days 1 and 7; day 10 is today.
    assert.deepEqual(byDay[dayLabel(10)].slice(0, 13), ['2', '50%', '0%', '0%', '0%', '0%', '0%', '50%', '0%', '0%', 'incomplete', 'incomplete', 'incomplete']);
    // 3 days ago: 4 players, 3 back the next day, none the day after; day 3 is today.
    assert.deepEqual(byDay[dayLabel(3)].slice(0, 5), ['4', '75%', '0%', 'incomplete', 'incomplete']);
    // A day without new players, and yesterday's cohort with nothing complete yet.
    assert.deepEqual(byDay[dayLabel(5)].slice(0, 3), ['0', '—', '—']);
    assert.deepEqual(byDay[dayLabel(1)].slice(0, 3), ['0', 'incomplete', 'incomplete']);
    // All cohorts: day 1 of 6 players (4 of them back), day 7 of the 2 of 10 days ago.
    assert.deepEqual(byDay['All cohorts'].slice(0, 2), ['6', '66.7%']);
    assert.equal(byDay['All cohorts'][7], '50%');
    const cell = page.getByRole('table', { name: 'Retention by cohort' }).locator('td[title^="3 of 4 players back on day 1"]');
    assert.equal(await cell.count(), 1);
    const hatched = page.locator('td.cell-incomplete[title^="Not complete: day 3 of this cohort"]');
    assert.ok((await hatched.count()) >= 1);
    await screenshot(page, 'retention-grid');

    // All 30 days.
    await page.getByRole('combobox', { name: /^Days shown/ }).selectOption('30');
    await page.waitForURL(/days=30/);
    await page.waitForFunction(() => document.querySelectorAll('table[aria-label="Retention by cohort"] thead th').length === 32);

    const phone = await signedInPage(env.browser, env.server, account, { width: 390, height: 844 });
    await phone.goto(`/games/${gameId}/retention?range=7d`);
    const phoneRows = await grid(phone);
    assert.equal(phoneRows.length, 8);
    const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `the page is ${overflow} px too wide`);
    await screenshot(phone, 'retention-grid-phone');
  });
});
