// Remote config: the JSON editor validates as you type, saves an object that games then read
// with their API key, shows it again after a reload, and shows the API's words when it refuses.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { call, newAccount, newGame, screenshot, setup, signedInPage } from './harness.mjs';

describe('remote config', () => {
  const env = setup({ before, after });

  it('keeps Save disabled while the JSON is invalid, saves an object games read, and shows it after a reload', async () => {
    const account = await newAccount(env.server);
    const { gameId, key } = await newGame(env.server, account, 'Config Quest');
    const page = await signedInPage(env.browser, env.server, account);
    await page.goto(`/games/${gameId}/config`);
    await page.getByRole('heading', { name: 'Remote config' }).waitFor();
    const editor = page.getByLabel('Config values (JSON)');
    await editor.waitFor();
    assert.equal(await editor.inputValue(), '{}');
    await page.getByText('Never saved: games receive an empty object until you save.').waitFor();
    const save = page.getByRole('button', { name: 'Save', exact: true });
    assert.ok(await save.isDisabled(), 'nothing to save yet');

    // A trailing comma: the error names the line and column, and Save stays off.
    await editor.fill('{\n  "difficulty": "hard",\n  "spawn_rate": 1.5,\n}');
    await page.getByText("Line 4, column 1: trailing comma: remove the ',' before '}'.").waitFor();
    await page.getByText('Unsaved changes').waitFor();
    assert.ok(await save.isDisabled());
    assert.ok(await page.getByRole('button', { name: 'Format' }).isDisabled());
    await screenshot(page, 'config-editor-invalid');

    // Valid JSON that is not an object is refused too, as the API would.
    await editor.fill('["hard", 1.5]');
    await page.getByText('The config must be a JSON object ({ … }), not a list.').waitFor();
    assert.ok(await save.isDisabled());

    const values = { motd: 'Welcome back, miner!', spawn_rate: 1.5, features: { pvp: true, events: ['halloween', 'double-xp'] }, max_party: 4 };
    await editor.fill(JSON.stringify(values));
    await page.getByText('Valid JSON', { exact: true }).waitFor();
    await page.getByText(/^4 keys · \d+ bytes of 256 KB/).waitFor();
    await page.getByRole('button', { name: 'Format' }).click();
    assert.equal(await editor.inputValue(), JSON.stringify(values, null, 2));
    assert.ok(await save.isEnabled());
    await save.click();
    await page.getByText('Saved', { exact: true }).waitFor();
    await page.getByText(/^Last updated \d/).waitFor();
    assert.ok(await save.isDisabled(), 'nothing left to save');

    // The game reads the new values with its API key.
    const read = await call(env.server, 'GET', '/v1/config', { key });
    assert.deepEqual(read.config, values);
    assert.ok(read.updated_at);

    await page.reload();
    await editor.waitFor();
    assert.deepEqual(JSON.parse(await editor.inputValue()), values);
    await page.getByText('No unsaved changes').waitFor();
    await page.getByText(/^Last updated \d/).waitFor();
    await screenshot(page, 'config-editor');

    // Discarding asks first, then goes back to the saved values.
    await editor.fill('{"motd": "draft"}');
    await page.getByText('Unsaved changes').waitFor();
    await page.getByRole('button', { name: 'Discard changes' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Discard changes' }).click();
    await page.getByText('No unsaved changes').waitFor();
    assert.deepEqual(JSON.parse(await editor.inputValue()), values);
  });

  it('shows the API error when the save is refused', async () => {
    const account = await newAccount(env.server);
    const { gameId, key } = await newGame(env.server, account, 'Doomed Config');
    const page = await signedInPage(env.browser, env.server, account, { width: 390, height: 844 });
    await page.goto(`/games/${gameId}/config`);
    const editor = page.getByLabel('Config values (JSON)');
    await editor.waitFor();
    await editor.fill('{"season": 3}');
    await page.getByText('Valid JSON', { exact: true }).waitFor();
    await screenshot(page, 'config-editor-phone');

    // The game is deleted meanwhile (in another tab, say): the API refuses and says why.
    await call(env.server, 'DELETE', `/v1/games/${gameId}`, { token: account.token });
    const refusal = await fetch(`${env.server.url}/v1/games/${gameId}/config`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${account.token}` },
      body: JSON.stringify({ values: { season: 3 } }),
    });
    const { error } = await refusal.json();
    assert.ok(error, 'the API answers an error text');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: error }).waitFor();
    await page.getByText('Unsaved changes').waitFor();
    await assert.rejects(call(env.server, 'GET', '/v1/config', { key }));
  });
  it('shows a viewer the values, read-only', async () => {
    const owner = await newAccount(env.server);
    const viewer = await newAccount(env.server, 'viewer');
    const { gameId } = await newGame(env.server, owner, 'Viewer Config');
    await call(env.server, 'POST', `/v1/games/${gameId}/members`, { token: owner.token, body: { email: viewer.email, role: 'viewer' } });
    await call(env.server, 'PUT', `/v1/games/${gameId}/config`, { token: owner.token, body: { values: { season: 4 } } });
    const page = await signedInPage(env.browser, env.server, viewer);
    await page.goto(`/games/${gameId}/config`);
    const editor = page.getByLabel('Config values (JSON)');
    await editor.waitFor();
    assert.deepEqual(JSON.parse(await editor.inputValue()), { season: 4 });
    assert.equal(await editor.getAttribute('readonly'), '');
    await page.getByText('You have view access: editors and owners can change the config.').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Save', exact: true }).count(), 0);
  });
});
