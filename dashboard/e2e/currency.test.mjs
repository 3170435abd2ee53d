// A game's currency (issue 27): set in Settings, General (a malformed code refused with the
// server's words), then revenue, ARPDAU and ARPPU read in it with two decimals.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { call, newAccount, newGame, screenshot, setup, signedInPage } from './harness.mjs';

describe('currency', () => {
  const env = setup({ before, after });

  it('sets the currency in Settings and shows revenue in it on the overview', async () => {
    await newAccount(env.server, 'admin');
    const owner = await newAccount(env.server, 'owner');
    const { gameId, key } = await newGame(env.server, owner, 'Coin Collectors');
    await call(env.server, 'POST', '/v1/track', {
      key,
      body: [
        { event_name: 'purchase', session_id: 's-1', player_id: 'p1', properties: { amount: 350 } },
        { event_name: 'purchase', session_id: 's-2', player_id: 'p2', properties: { amount: 2.4 } },
        { event_name: 'level_start', session_id: 's-3', player_id: 'p3' },
      ],
    });
    const page = await signedInPage(env.browser, env.server, owner);
    await page.goto(`/games/${gameId}/settings`);
    const card = page.getByRole('region', { name: 'Currency' });
    const code = card.getByLabel('Currency code (ISO 4217)');
    assert.equal(await code.inputValue(), 'USD');
    assert.match(await card.innerText(), /\$1,234\.50/);

    await code.fill('EU');
    await card.getByRole('button', { name: 'Save currency' }).click();
    await card.getByRole('alert').filter({ hasText: 'three capital letters' }).waitFor();
    assert.equal((await call(env.server, 'GET', `/v1/games/${gameId}`, { token: owner.token })).currency, 'USD');

    await code.fill('eur');
    assert.equal(await code.inputValue(), 'EUR');
    await card.getByRole('button', { name: 'Save currency' }).click();
    await card.getByRole('status').filter({ hasText: 'Saved: revenue is now shown in EUR.' }).waitFor();
    assert.match(await card.innerText(), /€1,234\.50/);
    assert.equal((await call(env.server, 'GET', `/v1/games/${gameId}`, { token: owner.token })).currency, 'EUR');
    await card.scrollIntoViewIfNeeded();
    await screenshot(page, 'settings-currency');

    await page.goto(`/games/${gameId}`);
    // The revenue tile of the key figures, in the game's currency.
    await page.getByRole('group', { name: 'Key figures' }).getByText('€352.40').waitFor();
    // ARPDAU today: 352.40 over 3 active users; ARPPU: over 2 paying users.
    await page.getByRole('region', { name: 'ARPDAU' }).waitFor();
    await page.getByRole('region', { name: 'ARPPU' }).waitFor();
    const arppu = await call(env.server, 'GET', `/v1/games/${gameId}/metrics?metric=arppu`, { token: owner.token });
    assert.equal(arppu.points.at(-1).value, 176.2);
    await page.getByRole('region', { name: 'Revenue' }).scrollIntoViewIfNeeded();
    await screenshot(page, 'overview-currency');
    await page.context().close();
  });
});
