// Achievements: defining them, unlock counts and rarity, hiding, editing, deleting, and what a
// viewer may do.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { call, newAccount, newGame, screenshot, setup, signedInPage } from './harness.mjs';

/** The cell texts of every body row of a table. */
function cells(table) {
  return table.locator('tbody tr').evaluateAll((rows) => rows.map((row) => [...row.cells].map((cell) => cell.innerText.trim())));
}

async function define(page, { key, name, description, points, hidden }) {
  await page.getByRole('button', { name: 'New achievement' }).click();
  const form = page.getByRole('region', { name: 'New achievement' });
  await form.getByRole('textbox', { name: /^Key/ }).fill(key);
  await form.getByRole('textbox', { name: /^Name/ }).fill(name);
  await form.getByRole('textbox', { name: /^Description/ }).fill(description);
  await form.getByRole('spinbutton', { name: /^Points/ }).fill(String(points));
  if (hidden) await form.getByRole('checkbox', { name: /Hidden until unlocked/ }).check();
  await form.getByRole('button', { name: 'Create achievement' }).click();
  await page.getByText(`Achievement “${name}” created.`).waitFor();
}

describe('achievements', () => {
  const env = setup({ before, after });

  it('defines achievements and shows unlock counts and rarity; hides, edits and deletes them', async () => {
    const owner = await newAccount(env.server);
    const { gameId, key } = await newGame(env.server, owner, 'Quest Makers');
    // Four players known to the game (rarity counts every player that sent an event). They are
    // told before the first list, since a node keeps a game's player count for a minute.
    await call(env.server, 'POST', '/v1/track', {
      key,
      body: ['p1', 'p2', 'p3', 'p4'].map((player) => ({ event_name: 'session_start', session_id: `s-${player}`, player_id: player })),
    });

    const page = await signedInPage(env.browser, env.server, owner);
    await page.goto(`/games/${gameId}/achievements`);
    await page.getByRole('heading', { level: 1, name: 'Achievements' }).waitFor();
    await page.getByText('No achievements yet').waitFor();

    // Two definitions; then a taken key, which the API refuses in words.
    await define(page, { key: 'first_win', name: 'First victory', description: 'Win your first match.', points: 10 });
    await define(page, { key: 'secret_ending', name: 'Secret ending', description: 'Find the hidden ending.', points: 50 });
    await page.getByRole('button', { name: 'New achievement' }).click();
    const form = page.getByRole('region', { name: 'New achievement' });
    await form.getByRole('textbox', { name: /^Key/ }).fill('first_win');
    await form.getByRole('textbox', { name: /^Name/ }).fill('Again');
    await form.getByRole('button', { name: 'Create achievement' }).click();
    await form.getByRole('alert').filter({ hasText: 'An achievement with this key already exists' }).waitFor();
    await screenshot(page, 'achievement-new');
    await form.getByRole('button', { name: 'Cancel' }).click();

    for (const player of ['p1', 'p2', 'p3']) {
      const answer = await call(env.server, 'POST', '/v1/achievements/unlock', { key, body: { achievement_key: 'first_win', player_id: player } });
      assert.equal(answer.already_unlocked, false);
    }
    await page.reload();
    const table = page.getByRole('table', { name: 'Achievements' });
    await table.waitFor();
    const rows = await cells(table);
    assert.equal(rows.length, 2);
    assert.match(rows[0][0], /First victory\s+first_win\s+Win your first match\./);
    assert.equal(rows[0][1], '10');
    assert.equal(rows[0][2], '3 players');
    assert.match(rows[0][3], /^75%/);
    assert.match(rows[1][0], /Secret ending\s+secret_ending/);
    assert.equal(rows[1][2], '0 players');
    assert.match(rows[1][3], /^0%/);
    assert.deepEqual(await page.locator('.stat').allInnerTexts().then((s) => s.map((t) => t.replace(/\s+/g, ' '))), [
      'ACHIEVEMENTS 2',
      'TOTAL POINTS 60',
      'HIDDEN 0',
      'UNLOCKS 3',
    ]);
    await screenshot(page, 'achievements');

    // Hide: the badge shows, and the game reads ??? for it.
    const secretRow = table.getByRole('row').filter({ hasText: 'secret_ending' });
    await secretRow.getByRole('button', { name: 'Hide Secret ending' }).click();
    await page.getByText('“Secret ending” is hidden: players see ??? until they unlock it.').waitFor();
    await secretRow.getByText('Hidden', { exact: true }).waitFor();
    assert.equal(await table.getByText('Hidden', { exact: true }).count(), 1);
    const seen = await call(env.server, 'GET', '/v1/achievements?player_id=p1', { key });
    assert.equal(seen.achievements.find((a) => a.key === 'secret_ending').name, '???');
    await secretRow.getByRole('button', { name: 'Show Secret ending' }).click();
    await page.getByText('“Secret ending” is visible to every player.').waitFor();
    assert.equal(await secretRow.getByText('Hidden', { exact: true }).count(), 0);
    await secretRow.getByRole('button', { name: 'Hide Secret ending' }).click();
    await secretRow.getByText('Hidden', { exact: true }).waitFor();

    // Edit on its own page.
    await table.getByRole('link', { name: 'Edit First victory' }).click();
    await page.getByRole('heading', { name: 'First victory' }).waitFor();
    await page.getByText('3 players', { exact: true }).waitFor();
    const edit = page.getByRole('region', { name: 'Edit achievement' });
    assert.equal(await edit.getByRole('textbox', { name: /^Key/ }).count(), 0);
    await edit.getByRole('textbox', { name: /^Name/ }).fill('First blood');
    await edit.getByRole('spinbutton', { name: /^Points/ }).fill('25');
    await screenshot(page, 'achievement-edit');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('“First blood” saved.').waitFor();
    await table.getByText('First blood', { exact: true }).waitFor();
    const edited = await cells(table);
    assert.match(edited[0][0], /First blood\s+first_win/);
    assert.equal(edited[0][1], '25');
    assert.equal(edited[0][2], '3 players');

    // Delete asks first and says what goes with it.
    await table.getByRole('row').filter({ hasText: 'first_win' }).getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog');
    assert.match(await dialog.innerText(), /every player's unlock of it \(3 players lose it and its 25 points\)/);
    await dialog.getByRole('button', { name: 'Delete achievement' }).click();
    await page.getByText('“First blood” deleted.').waitFor();
    assert.equal((await cells(table)).length, 1);
    assert.match((await cells(table))[0][0], /Secret ending\s+Hidden\s+secret_ending/);
    const left = await call(env.server, 'GET', '/v1/achievements', { key });
    assert.deepEqual(left.achievements.map((a) => a.key), ['secret_ending']);

    const phone = await signedInPage(env.browser, env.server, owner, { width: 390, height: 844 });
    await phone.goto(`/games/${gameId}/achievements`);
    await phone.getByRole('table', { name: 'Achievements' }).waitFor();
    await screenshot(phone, 'achievements-phone');
    await phone.context().close();
    await page.context().close();
  });

  it('shows a viewer the achievements without the edit controls', async () => {
    const owner = await newAccount(env.server);
    const viewer = await newAccount(env.server, 'viewer');
    const { gameId } = await newGame(env.server, owner, 'Viewer Quest');
    await call(env.server, 'POST', `/v1/games/${gameId}/members`, { token: owner.token, body: { email: viewer.email, role: 'viewer' } });
    await call(env.server, 'POST', `/v1/games/${gameId}/achievements`, {
      token: owner.token,
      body: { key: 'explorer', name: 'Explorer', description: 'Visit every zone', points: 25, hidden: true },
    });
    const page = await signedInPage(env.browser, env.server, viewer);
    await page.goto(`/games/${gameId}/achievements`);
    const table = page.getByRole('table', { name: 'Achievements' });
    await table.waitFor();
    assert.match((await cells(table))[0][0], /Explorer\s+Hidden/);
    assert.equal(await page.getByRole('button', { name: 'New achievement' }).count(), 0);
    assert.equal(await table.getByRole('button').count(), 0);
    assert.equal(await table.getByRole('link').count(), 0);
  });
});
