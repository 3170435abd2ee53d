// Games and their settings: creating one, renaming it, event validation and web origins, API
// keys shown once and revoked, members invited, re-roled and removed, what a viewer sees, and
// deleting a game.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { call, newAccount, newGame, screenshot, setup, signedInPage } from './harness.mjs';

/** POST /v1/track with `key`; answers the HTTP status. */
async function track(server, key) {
  const response = await fetch(`${server.url}/v1/track`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-game-api-key': key },
    body: JSON.stringify({ event_name: 'session_start', session_id: 'e2e-session', player_id: 'p1' }),
  });
  return response.status;
}

describe('games and settings', () => {
  const env = setup({ before, after });

  // The first account on a server is its admin; the studios below are ordinary accounts.
  before(async () => {
    await newAccount(env.server, 'admin');
  });

  it('creates a game, opens it on its API keys, and lists it', async () => {
    const owner = await newAccount(env.server, 'owner');
    const page = await signedInPage(env.browser, env.server, owner);
    await page.goto('/games');
    await page.getByText('No games yet').waitFor();
    await page.getByLabel('Game name').fill('Comet Courier');
    await page.getByRole('button', { name: 'Create game' }).click();
    await page.waitForURL(/\/games\/[\w-]+\/settings\/keys$/);
    await page.getByText('Comet Courier is ready. Create its first API key below').waitFor();
    await page.getByRole('heading', { name: 'Create an API key' }).waitFor();
    await page.getByText('No API keys yet').waitFor();
    // The API keys tab is the current one.
    assert.equal(await page.getByRole('link', { name: 'API keys' }).getAttribute('aria-current'), 'page');

    await page.getByRole('link', { name: 'All games' }).click();
    const row = page.getByRole('row', { name: /Comet Courier/ });
    await row.waitFor();
    assert.match(await row.innerText(), /Owner\s+Free\s+100,000/);

    const phone = await signedInPage(env.browser, env.server, owner, { width: 390, height: 844 });
    await phone.goto('/games');
    await phone.getByRole('link', { name: 'Comet Courier' }).waitFor();
    await screenshot(phone, 'games-list-phone');
    await phone.context().close();
    await page.context().close();
  });

  it('renames a game, switches event validation and sets its web origins', async () => {
    const owner = await newAccount(env.server, 'owner');
    const { gameId } = await newGame(env.server, owner, 'Space Miners');
    const page = await signedInPage(env.browser, env.server, owner);
    await page.goto(`/games/${gameId}/settings`);
    await page.getByRole('heading', { name: 'Settings' }).waitFor();

    await page.getByLabel('Game name').fill('Space Miners 2');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByText('The game is now called Space Miners 2.').waitFor();
    const switcher = page.getByRole('combobox', { name: 'Game', exact: true });
    await switcher.locator('option', { hasText: 'Space Miners 2' }).waitFor({ state: 'attached' });
    assert.equal(await switcher.locator('option:checked').innerText(), 'Space Miners 2');

    await page.getByRole('radio', { name: /Enforce/ }).check();
    await page.getByRole('button', { name: 'Save validation' }).click();
    await page.getByText('Event validation is now enforce.').waitFor();

    const origins = page.getByLabel('Allowed origins');
    await origins.fill('https://mygame.example.com/play');
    await page.getByRole('button', { name: 'Save origins' }).click();
    await page.getByRole('alert').filter({ hasText: 'is not an origin' }).waitFor();
    await origins.fill('https://mygame.example.com\nhttp://localhost:5173');
    await page.getByRole('button', { name: 'Save origins' }).click();
    await page.getByText('Saved: 2 allowed origins.').waitFor();

    await page.reload();
    await page.getByLabel('Game name').waitFor();
    assert.equal(await page.getByLabel('Game name').inputValue(), 'Space Miners 2');
    assert.ok(await page.getByRole('radio', { name: /Enforce/ }).isChecked());
    assert.equal(await page.getByLabel('Allowed origins').inputValue(), 'https://mygame.example.com\nhttp://localhost:5173');
    const game = await call(env.server, 'GET', `/v1/games/${gameId}`, { token: owner.token });
    assert.equal(game.event_validation, 'enforce');
    assert.deepEqual(game.allowed_origins, ['https://mygame.example.com', 'http://localhost:5173']);
    // A studio cannot change its own tier: the plan card says who can.
    await page.getByText('The tier is set by the admin of this playtrace server.', { exact: false }).waitFor();
    assert.equal(await page.getByRole('combobox', { name: 'Tier' }).count(), 0);
    await screenshot(page, 'settings-general');
    await page.context().close();
  });

  it('creates a production key shown once, which works until it is revoked', async () => {
    const owner = await newAccount(env.server, 'owner');
    const { gameId } = await newGame(env.server, owner, 'Key Keeper');
    const page = await signedInPage(env.browser, env.server, owner);
    await page.goto(`/games/${gameId}/settings/keys`);
    await page.getByRole('row', { name: /client/ }).waitFor();

    await page.getByLabel('Key name').fill('Release build');
    await page.getByLabel('Environment').selectOption('production');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByText('Your new production key “Release build” is ready.').waitFor();
    await page.getByText('it will not be shown again').waitFor();
    const raw = await page.locator('.secret code').innerText();
    assert.match(raw, /^pt_[0-9a-f]{64}$/);
    assert.ok(await page.locator('.secret').getByRole('button', { name: 'Copy key' }).isVisible());
    assert.equal(await track(env.server, raw), 202);

    const row = page.getByRole('row', { name: /Release build/ });
    await row.waitFor();
    const rowText = await row.innerText();
    assert.ok(rowText.includes(raw.slice(0, 11)), rowText);
    assert.match(rowText, /production/);
    assert.ok(!rowText.includes(raw), 'the list shows only the prefix');
    await screenshot(page, 'settings-keys');

    // Once dismissed (or after a reload) the raw key is gone for good.
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await page.locator('.secret').waitFor({ state: 'detached' });
    await page.reload();
    await row.waitFor();
    assert.equal(await page.getByText(raw).count(), 0);

    await row.getByRole('button', { name: 'Revoke' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke Release build?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await row.waitFor({ state: 'detached' });
    await page.getByRole('row', { name: /client/ }).waitFor();
    assert.equal(await track(env.server, raw), 401);
    await page.context().close();
  });

  it('invites a teammate by e-mail, changes their role and removes them', async () => {
    const owner = await newAccount(env.server, 'owner');
    const { gameId } = await newGame(env.server, owner, 'Team Tactics');
    const page = await signedInPage(env.browser, env.server, owner);
    await page.goto(`/games/${gameId}/settings/members`);
    const ownerRow = page.getByRole('row', { name: new RegExp(owner.email) });
    await ownerRow.waitFor();
    assert.match(await ownerRow.innerText(), /you/);

    const email = `artist-${Date.now()}@studio.test`;
    await page.getByLabel('E-mail').fill(email);
    await page.getByRole('region', { name: 'Invite a teammate' }).getByLabel('Role').selectOption('viewer');
    await page.getByRole('button', { name: 'Send invitation', exact: true }).click();
    await page.getByText(`Invitation e-mail sent to ${email}. They join as viewer once they set a password.`).waitFor();
    // With a mail server the link goes only by e-mail.
    assert.equal(await page.getByRole('button', { name: 'Copy link' }).count(), 0);
    const mail = await env.server.mail.waitFor(email, /activate\?token=/);
    assert.match(mail, /Team Tactics/);

    const row = page.getByRole('row', { name: new RegExp(email) });
    await row.waitFor();
    assert.match(await row.innerText(), /Invited/);
    await screenshot(page, 'settings-members');

    // Inviting the same address again is refused with the API's words.
    await page.getByLabel('E-mail').fill(email);
    await page.getByRole('button', { name: 'Send invitation', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'already a member' }).waitFor();

    // A role works like every setting: choose, Save, and a note says what was saved.
    assert.ok(await row.getByRole('button', { name: `Save role of ${email}` }).isDisabled(), 'nothing to save before a change');
    await page.getByRole('combobox', { name: `Role of ${email}` }).selectOption('editor');
    const before = await call(env.server, 'GET', `/v1/games/${gameId}/members`, { token: owner.token });
    assert.equal(before.members.find((m) => m.email === email)?.role, 'viewer', 'choosing alone saves nothing');
    await row.getByRole('button', { name: `Save role of ${email}` }).click();
    await row.getByRole('status').filter({ hasText: 'Saved: editor' }).waitFor();
    const { members: saved } = await call(env.server, 'GET', `/v1/games/${gameId}/members`, { token: owner.token });
    assert.equal(saved.find((m) => m.email === email)?.role, 'editor');
    await screenshot(page, 'settings-members-role-saved');
    await page.reload();
    assert.equal(await page.getByRole('combobox', { name: `Role of ${email}` }).inputValue(), 'editor');

    await row.getByRole('button', { name: 'Remove' }).click();
    const dialog = page.getByRole('dialog', { name: `Remove ${email}?` });
    await dialog.getByRole('button', { name: 'Remove member' }).click();
    await row.waitFor({ state: 'detached' });
    const { members } = await call(env.server, 'GET', `/v1/games/${gameId}/members`, { token: owner.token });
    assert.deepEqual(
      members.map((m) => m.email),
      [owner.email],
    );
    await page.context().close();
  });

  it('shows a viewer the settings without any edit control', async () => {
    const owner = await newAccount(env.server, 'owner');
    const viewer = await newAccount(env.server, 'viewer');
    const { gameId } = await newGame(env.server, owner, 'Read Only Realm');
    await call(env.server, 'POST', `/v1/games/${gameId}/members`, { token: owner.token, body: { email: viewer.email, role: 'viewer' } });
    const page = await signedInPage(env.browser, env.server, viewer);

    await page.goto(`/games/${gameId}/settings`);
    await page.getByText('only its owners can change these settings').waitFor();
    await page.getByRole('region', { name: 'Game', exact: true }).getByText('Read Only Realm').waitFor();
    for (const name of ['Save name', 'Save validation', 'Save origins', 'Delete game…']) {
      assert.equal(await page.getByRole('button', { name }).count(), 0, name);
    }
    assert.equal(await page.getByRole('textbox').count(), 0);
    assert.equal(await page.getByText('Danger zone').count(), 0);

    await page.getByRole('link', { name: 'Members' }).click();
    await page.getByRole('row', { name: new RegExp(owner.email) }).waitFor();
    await page.getByText('Only the owners of Read Only Realm can invite people').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Send invitation', exact: true }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Remove' }).count(), 0);
    assert.equal(await page.getByRole('combobox', { name: /^Role of/ }).count(), 0);

    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('row', { name: /client/ }).waitFor();
    await page.getByText('Only the owners of Read Only Realm can create or revoke API keys.').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Create key' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Revoke' }).count(), 0);
    await page.context().close();
  });

  it('deletes a game once its name is typed in the confirmation dialog', async () => {
    const owner = await newAccount(env.server, 'owner');
    const { gameId, key } = await newGame(env.server, owner, 'Doomed Dungeon');
    await newGame(env.server, owner, 'Survivor');
    const page = await signedInPage(env.browser, env.server, owner);
    await page.goto(`/games/${gameId}/settings`);
    await page.getByRole('region', { name: 'Danger zone' }).waitFor();
    await page.getByRole('button', { name: 'Delete game…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete Doomed Dungeon?' });
    await dialog.waitFor();
    const confirm = dialog.getByRole('button', { name: 'Delete game' });
    assert.ok(await confirm.isDisabled());
    // Cancel keeps everything.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });

    await page.getByRole('button', { name: 'Delete game…' }).click();
    await dialog.getByLabel('Type Doomed Dungeon to confirm').fill('Doomed');
    assert.ok(await confirm.isDisabled());
    await dialog.getByLabel('Type Doomed Dungeon to confirm').fill('Doomed Dungeon');
    await screenshot(page, 'settings-delete-dialog');
    await confirm.click();
    await page.waitForURL(/\/games$/);
    await page.getByText('Doomed Dungeon was deleted, with everything stored for it.').waitFor();
    await page.getByRole('link', { name: 'Survivor' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'Doomed Dungeon' }).count(), 0);
    await assert.rejects(call(env.server, 'GET', `/v1/games/${gameId}`, { token: owner.token }), /403/);
    assert.equal(await track(env.server, key), 401);
    await page.context().close();
  });
});
