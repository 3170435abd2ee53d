// The instance admin's page: every game on the server with its tier, rate limit and quota,
// changed in place; everyone else is told the page is the admin's.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { call, newAccount, newGame, screenshot, setup, signedInPage } from './harness.mjs';

describe('admin', () => {
  const env = setup({ before, after });
  let admin;

  // The first account registered on a server is its admin.
  before(async () => {
    admin = await newAccount(env.server, 'admin');
  });

  it('shows the admin every game, whose tier and rate limit it changes', async () => {
    const studio = await newAccount(env.server, 'studio');
    const { gameId } = await newGame(env.server, studio, 'Nebula Racers');
    await newGame(env.server, admin, 'House Game');
    const page = await signedInPage(env.browser, env.server, admin);
    await page.goto('/games');
    await page.getByRole('link', { name: 'Admin', exact: true }).click();
    await page.getByRole('heading', { name: 'Admin' }).waitFor();

    const row = page.locator('table.admin-games').getByRole('row', { name: /Nebula Racers/ });
    await row.waitFor();
    await page.locator('table.admin-games').getByRole('row', { name: /House Game/ }).waitFor();
    assert.match(await row.innerText(), /100,000/);
    assert.match(await page.locator('.stat').first().innerText(), /Games\s+2/i);

    // The tier and the rate limit work alike: choose, Save, and a note says what was saved.
    assert.ok(await row.getByRole('button', { name: 'Save tier' }).isDisabled(), 'nothing to save before a change');
    await page.getByRole('combobox', { name: 'Tier of Nebula Racers' }).selectOption('studio');
    assert.equal((await call(env.server, 'GET', `/v1/games/${gameId}`, { token: studio.token })).tier, 'free', 'choosing alone saves nothing');
    await row.getByRole('button', { name: 'Save tier' }).click();
    await row.getByRole('status').filter({ hasText: 'Saved: Studio tier' }).waitFor();
    await row.getByText('10,000,000').waitFor();
    await page.getByLabel('Rate limit per minute of Nebula Racers').fill('5000');
    await row.getByRole('button', { name: 'Save rate limit' }).click();
    await row.getByRole('status').filter({ hasText: 'Saved: 5,000 a minute' }).waitFor();
    await screenshot(page, 'admin');

    // The owner sees what the admin set; it holds after a reload.
    const game = await call(env.server, 'GET', `/v1/games/${gameId}`, { token: studio.token });
    assert.equal(game.tier, 'studio');
    assert.equal(game.monthly_event_quota, 10_000_000);
    assert.equal(game.rate_limit_per_minute, 5000);
    await page.reload();
    await row.waitFor();
    assert.match(await row.innerText(), /10,000,000/);
    assert.equal(await page.getByRole('combobox', { name: 'Tier of Nebula Racers' }).inputValue(), 'studio');
    assert.equal(await page.getByLabel('Rate limit per minute of Nebula Racers').inputValue(), '5000');

    // A big game gets a quota of its own, then unlimited, then its tier's again.
    await page.getByLabel('Monthly event quota of Nebula Racers').fill('lots');
    await row.getByRole('button', { name: 'Set' }).click();
    await row.getByText('Enter a whole number of events a month, or “unlimited”.').waitFor();
    await page.getByLabel('Monthly event quota of Nebula Racers').fill('50,000,000');
    await row.getByRole('button', { name: 'Set' }).click();
    await row.getByText('50,000,000').waitFor();
    await row.getByText('set by the admin').waitFor();
    assert.equal((await call(env.server, 'GET', `/v1/games/${gameId}/usage`, { token: studio.token })).limit, 50_000_000);
    await page.getByLabel('Monthly event quota of Nebula Racers').fill('unlimited');
    await row.getByRole('button', { name: 'Set' }).click();
    await row.getByText('Unlimited', { exact: true }).waitFor();
    await screenshot(page, 'admin-quota');
    await row.getByRole('button', { name: "Use the tier's" }).click();
    await row.getByText("Back to the tier's quota").waitFor();
    assert.match(await row.innerText(), /10,000,000/);
    assert.equal((await call(env.server, 'GET', `/v1/games/${gameId}`, { token: studio.token })).event_quota_set, false);

    // The search narrows the table.
    await page.getByLabel('Find a game').fill('house');
    await row.waitFor({ state: 'detached' });
    await page.locator('table.admin-games').getByRole('row', { name: /House Game/ }).waitFor();
    await page.getByLabel('Find a game').fill('no such game');
    await page.getByText('No game matches “no such game”').waitFor();

    // In the game's own settings the admin changes the plan too; the owner does not.
    await page.goto(`/games/${gameId}/settings`);
    await page.getByRole('region', { name: 'Plan and limits' }).getByText('10,000,000', { exact: true }).waitFor();
    await page.getByRole('region', { name: 'Plan and limits' }).getByLabel('Tier').selectOption('indie');
    await page.getByRole('button', { name: 'Save plan' }).click();
    await page.getByRole('region', { name: 'Plan and limits' }).getByText('1,000,000', { exact: true }).waitFor();
    await page.getByRole('region', { name: 'Plan and limits' }).getByText('Saved: Indie tier, 5,000 requests a minute per API key.').waitFor();
    assert.equal((await call(env.server, 'GET', `/v1/games/${gameId}`, { token: studio.token })).tier, 'indie');
    // An empty rate limit goes back to the server default.
    await page.getByRole('region', { name: 'Plan and limits' }).getByLabel('Rate limit per minute').fill('');
    await page.getByRole('button', { name: 'Save plan' }).click();
    await page.getByRole('region', { name: 'Plan and limits' }).getByText('Saved: Indie tier, the server default rate limit.').waitFor();
    assert.equal((await call(env.server, 'GET', `/v1/games/${gameId}`, { token: studio.token })).rate_limit_per_minute ?? null, null);
    await screenshot(page, 'settings-plan-saved');
    await page.context().close();
  });

  it('tells anyone else that only the instance admin can see the page', async () => {
    const studio = await newAccount(env.server, 'studio');
    await newGame(env.server, studio, 'Private Planet');
    const page = await signedInPage(env.browser, env.server, studio);
    await page.goto('/games');
    await page.getByRole('link', { name: 'Private Planet' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'Admin', exact: true }).count(), 0);
    // A studio sees only its own games.
    assert.equal(await page.getByRole('link', { name: 'Nebula Racers' }).count(), 0);

    await page.goto('/admin');
    await page.getByText('Only the instance admin can see this page.').waitFor();
    assert.equal(await page.getByRole('table').count(), 0);
    assert.equal(await page.getByRole('combobox', { name: /^Tier of/ }).count(), 0);
    await screenshot(page, 'admin-refused');
    await page.context().close();
  });

  it("lists every account with its games, and each game's events this month against its quota", async () => {
    const studio = await newAccount(env.server, 'usage');
    const { gameId, key } = await newGame(env.server, studio, 'Busy Bees');
    await call(env.server, 'POST', '/v1/track', {
      key,
      body: Array.from({ length: 12 }, (_, i) => ({ event_name: 'level_start', session_id: `s-${i}` })),
    });
    await call(env.server, 'POST', `/v1/games/${gameId}/members`, { token: studio.token, body: { email: `pending-${Date.now()}@studio.test`, role: 'viewer' } });
    const page = await signedInPage(env.browser, env.server, admin);
    await page.goto('/admin');

    const usage = page.getByRole('region', { name: 'Usage this month' });
    const busy = usage.getByRole('row', { name: /Busy Bees/ });
    await busy.waitFor();
    assert.match(await busy.innerText(), /12/);
    assert.match(await busy.innerText(), /100,000/);
    // The busiest game leads.
    assert.match(await usage.getByRole('row').nth(1).innerText(), /Busy Bees/);

    const accounts = page.getByRole('region', { name: 'Accounts' });
    const adminRow = accounts.getByRole('row', { name: new RegExp(admin.email) });
    await adminRow.waitFor();
    assert.match(await adminRow.innerText(), /admin/);
    const studioRow = accounts.getByRole('row', { name: new RegExp(studio.email) });
    assert.match(await studioRow.innerText(), /Active/);
    assert.match(await studioRow.innerText(), /1\s*\(1 owned\)/);
    assert.match(await accounts.getByRole('row', { name: /pending-/ }).innerText(), /Invited/);
    await usage.scrollIntoViewIfNeeded();
    await screenshot(page, 'admin-usage-accounts');
    await page.context().close();
  });
});
