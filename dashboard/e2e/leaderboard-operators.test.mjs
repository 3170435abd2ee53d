// A board's operator and schedule in the dashboard: defined with "Add up", daily; the facts
// name the operator, when the period began and the next reset; "Reset now" archives the
// standings and starts an empty period, which the game's own read shows too.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { call, newAccount, newGame, screenshot, setup, signedInPage } from './harness.mjs';

/** The definition's facts as { term: description }. */
function facts(page) {
  return page
    .getByRole('definition')
    .locator('xpath=ancestor::dl[1]')
    .first()
    .evaluate((dl) => Object.fromEntries([...dl.querySelectorAll('div')].map((d) => [d.querySelector('dt').textContent, d.querySelector('dd').textContent])));
}

describe('leaderboard operators and resets', () => {
  const env = setup({ before, after });

  it('defines an adding daily board, shows its schedule, and resets it by hand', async () => {
    const owner = await newAccount(env.server);
    const { gameId, key } = await newGame(env.server, owner, 'Kill Count');
    const page = await signedInPage(env.browser, env.server, owner);
    await page.goto(`/games/${gameId}/leaderboards`);
    await page.getByRole('button', { name: 'New leaderboard' }).click();
    const form = page.getByRole('region', { name: 'New leaderboard' });
    await form.getByLabel('Board name').fill('kills');
    await form.getByRole('combobox', { name: /^Each score/ }).selectOption('increment');
    await form.getByText("Every score is added to the player's entry (points, kills).").waitFor();
    await form.getByRole('combobox', { name: /^Period/ }).selectOption('daily');
    await form.getByRole('button', { name: 'Create leaderboard' }).click();
    await page.getByText('Leaderboard created.').waitFor();

    const defined = await call(env.server, 'GET', `/v1/games/${gameId}/leaderboards/kills`, { token: owner.token });
    assert.equal(defined.operator, 'increment');
    assert.equal(defined.period, 'daily');
    const shown = await facts(page);
    assert.equal(shown['Each score'], 'Add up');
    assert.match(shown['Period began'], /00:00:00 UTC$/);
    const nextMidnight = new Date(Date.parse(defined.period_start) + 86_400_000);
    assert.equal(defined.resets_at, nextMidnight.toISOString().replace('.000Z', 'Z'));
    assert.match(shown['Next reset'], /00:00:00 UTC$/);

    // Scores add up: 5 + 7.
    for (const score of [5, 7]) {
      await call(env.server, 'POST', '/v1/leaderboards/kills/entries', { key, body: { player_id: 'ann', score } });
    }
    await page.reload();
    const table = page.getByRole('table', { name: 'Standings of kills' });
    await table.getByRole('cell', { name: '12', exact: true }).waitFor();
    await screenshot(page, 'leaderboards-operator-schedule');

    // Reset now asks first; cancelling changes nothing.
    await page.getByRole('button', { name: 'Reset now' }).click();
    const dialog = page.getByRole('dialog', { name: 'Reset the leaderboard kills now?' });
    await dialog.getByText(/stay readable as an archived period/).waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    assert.ok(await table.getByRole('cell', { name: '12', exact: true }).isVisible());

    await page.getByRole('button', { name: 'Reset now' }).click();
    await dialog.getByRole('button', { name: 'Reset leaderboard' }).click();
    await page.getByText(/Leaderboard reset: the previous standings are archived/).waitFor();
    await page.getByText('No scores in this period yet').waitFor();
    const after = await call(env.server, 'GET', `/v1/games/${gameId}/leaderboards/kills`, { token: owner.token });
    assert.ok(Date.parse(after.period_start) > Date.parse(defined.period_start), 'a new period began at the reset');
    assert.equal(after.resets_at, defined.resets_at, 'the schedule takes over again at midnight');
    assert.notEqual(after.current_period, defined.current_period);
    // The game's read shows the new, empty period; the next score starts from zero.
    const board = await call(env.server, 'GET', '/v1/leaderboards/kills', { key });
    assert.equal(board.entries.length, 0);
    assert.equal(board.period_start, after.period_start);
    const scored = await call(env.server, 'POST', '/v1/leaderboards/kills/entries', { key, body: { player_id: 'ann', score: 3 } });
    assert.equal(scored.score, 3);
    await screenshot(page, 'leaderboards-reset');
    await page.context().close();
  });

  it('shows a viewer the operator and schedule without the reset', async () => {
    const owner = await newAccount(env.server);
    const { gameId } = await newGame(env.server, owner, 'Speed Trials');
    await call(env.server, 'POST', `/v1/games/${gameId}/leaderboards`, {
      token: owner.token,
      body: { board_name: 'laps', order: 'lower', operator: 'latest', period: 'weekly' },
    });
    const viewer = await newAccount(env.server);
    await call(env.server, 'POST', `/v1/games/${gameId}/members`, { token: owner.token, body: { email: viewer.email, role: 'viewer' } });
    const page = await signedInPage(env.browser, env.server, viewer);
    await page.goto(`/games/${gameId}/leaderboards/laps`);
    await page.getByRole('heading', { level: 1, name: 'laps' }).waitFor();
    const shown = await facts(page);
    assert.equal(shown['Each score'], 'Keep the latest');
    assert.equal(shown['Better score'], 'Lower is better');
    assert.match(shown['Next reset'], /UTC$/);
    assert.equal(await page.getByRole('button', { name: 'Reset now' }).count(), 0);
    await page.context().close();
  });
});
