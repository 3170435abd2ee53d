// Cloud saves for support staff: find a player, read a slot, delete a slot after confirming;
// a player without saves and an id the API refuses.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { call, newAccount, newGame, screenshot, setup, signedInPage } from './harness.mjs';

describe('cloud saves', () => {
  const env = setup({ before, after });

  it('finds a player, shows a slot’s data and deletes a slot after confirming', async () => {
    const account = await newAccount(env.server);
    const { gameId, key } = await newGame(env.server, account, 'Save Quest');
    const player = 'steam:76561198000000042';
    const path = (slot) => `/v1/saves/${encodeURIComponent(player)}/${slot}`;
    const progress = { level: 12, hero: { name: 'Ana', hp: 87, class: 'ranger' }, inventory: ['bow', 'potion', 'map'] };
    await call(env.server, 'PUT', path('main'), { key, body: { data: { level: 11 }, version: 0 } });
    await call(env.server, 'PUT', path('main'), { key, body: { data: progress, version: 1 } });
    await call(env.server, 'PUT', path('settings'), { key, body: { data: { music: 0.4, language: 'pt-BR' }, version: 0 } });

    const page = await signedInPage(env.browser, env.server, account);
    await page.goto(`/games/${gameId}/saves`);
    await page.getByRole('heading', { name: 'Cloud saves' }).waitFor();
    await page.getByText('Look up a player').waitFor();
    await page.getByLabel('Player id').fill(player);
    await page.getByRole('button', { name: 'Find saves' }).click();
    await page.getByRole('heading', { name: `Slots of ${player}` }).waitFor();
    const rows = page.locator('table tbody tr');
    assert.equal(await rows.count(), 2);
    const main = rows.filter({ hasText: 'main' });
    const [version, size, updated] = await main.locator('td').allInnerTexts();
    assert.equal(version, '2');
    assert.match(size, /^\d+ B$/);
    assert.match(updated, /^\d{1,2} [A-Z][a-z]{2}(?: \d{4})?, \d{2}:\d{2}$/);
    await page.getByText('Choose a slot').waitFor();

    await page.getByRole('button', { name: 'main', exact: true }).click();
    await page.getByRole('heading', { name: 'Slot “main”' }).waitFor();
    const data = page.getByLabel('Data of slot main');
    await data.getByText('"name": "Ana"').waitFor();
    // Pretty-printed (the API answers keys sorted): the same value, two-space indented.
    assert.deepEqual(JSON.parse(await data.innerText()), progress);
    assert.match(await data.innerText(), /\n {2}"hero": \{\n {4}"class": "ranger",/);
    assert.match(page.url(), /\?player=steam%3A76561198000000042&slot=main$/);
    await screenshot(page, 'saves');

    // The address keeps player and slot: a reload (or a shared link) opens the same save.
    await page.reload();
    await page.getByLabel('Data of slot main').getByText('"name": "Ana"').waitFor();
    assert.equal(await page.getByLabel('Player id').inputValue(), player);

    // Deleting asks first; cancelling keeps the slot.
    await page.getByRole('button', { name: 'Delete slot' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('is removed for good').waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    assert.equal(await rows.count(), 2);
    await page.getByRole('button', { name: 'Delete slot' }).click();
    await dialog.getByRole('button', { name: 'Delete slot' }).click();
    await page.getByText(`Slot “main” of ${player} deleted.`).waitFor();
    await page.waitForFunction(() => document.querySelectorAll('table tbody tr').length === 1);
    assert.match(await rows.first().innerText(), /settings/);

    const gone = await fetch(`${env.server.url}${path('main')}`, { headers: { 'x-game-api-key': key } });
    assert.equal(gone.status, 404);
    const listed = await call(env.server, 'GET', `/v1/saves/${encodeURIComponent(player)}`, { key });
    assert.deepEqual(
      listed.saves.map((s) => s.slot),
      ['settings'],
    );

    // At phone width the slot list and the data stack.
    const phone = await signedInPage(env.browser, env.server, account, { width: 390, height: 844 });
    await phone.goto(`/games/${gameId}/saves?player=${encodeURIComponent(player)}&slot=settings`);
    await phone.getByLabel('Data of slot settings').getByText('"language": "pt-BR"').waitFor();
    await screenshot(phone, 'saves-phone');
  });

  it('says when a player has no saves, and shows the API’s words for an id it refuses', async () => {
    const account = await newAccount(env.server);
    const { gameId } = await newGame(env.server, account, 'Empty Saves');
    const page = await signedInPage(env.browser, env.server, account);
    await page.goto(`/games/${gameId}/saves`);
    await page.getByLabel('Player id').fill('nobody-here');
    await page.getByRole('button', { name: 'Find saves' }).click();
    await page.getByText('No saves for “nobody-here”').waitFor();
    await page.getByText('This player has no cloud saves in Empty Saves.', { exact: false }).waitFor();
    await screenshot(page, 'saves-empty');

    // What the API itself answers for an id over 128 characters.
    const bad = 'x'.repeat(129);
    const answer = await fetch(`${env.server.url}/v1/games/${gameId}/saves/${encodeURIComponent(bad)}`, {
      headers: { authorization: `Bearer ${account.token}` },
    });
    assert.equal(answer.status, 400);
    const { error } = await answer.json();
    await page.getByLabel('Player id').fill(bad);
    await page.getByRole('button', { name: 'Find saves' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.equal(await alert.innerText(), error);
    assert.equal(await page.getByLabel('Player id').getAttribute('aria-invalid'), 'true');
    // Nothing of the previous player is left on screen.
    assert.equal(await page.getByText('No saves for').count(), 0);

    // Any other text is a player id (issue 27): spaces, slashes, accents.
    await page.getByLabel('Player id').fill('Zoë the 2nd/EU');
    await page.getByRole('button', { name: 'Find saves' }).click();
    await page.getByText('No saves for “Zoë the 2nd/EU”').waitFor();
    assert.equal(await page.getByLabel('Player id').getAttribute('aria-invalid'), 'false');
  });
  it('lets a viewer read a save but not delete it', async () => {
    const owner = await newAccount(env.server);
    const viewer = await newAccount(env.server, 'viewer');
    const { gameId, key } = await newGame(env.server, owner, 'Viewer Saves');
    await call(env.server, 'POST', `/v1/games/${gameId}/members`, { token: owner.token, body: { email: viewer.email, role: 'viewer' } });
    await call(env.server, 'PUT', '/v1/saves/auth0|abc/slot-1', { key, body: { data: { coins: 120 }, version: 0 } });
    const page = await signedInPage(env.browser, env.server, viewer);
    await page.goto(`/games/${gameId}/saves?player=${encodeURIComponent('auth0|abc')}&slot=slot-1`);
    await page.getByLabel('Data of slot slot-1').getByText('"coins": 120').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Delete slot' }).count(), 0);
  });
});
