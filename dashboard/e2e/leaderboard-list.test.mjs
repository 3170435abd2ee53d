// The list of a game's leaderboards with many boards: a page at a time, searchable by name,
// and long names cut with the full name on hover.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { call, newAccount, newGame, screenshot, setup, signedInPage } from './harness.mjs';

describe('the leaderboard list', () => {
  const env = setup({ before, after });

  it('pages through 55 boards, finds one by name and cuts a long name', async () => {
    const owner = await newAccount(env.server);
    const { gameId, key } = await newGame(env.server, owner, 'Board Hoarder');
    const long = `season-${'x'.repeat(240)}-end`;
    const names = [...Array.from({ length: 54 }, (_, i) => `level-${String(i + 1).padStart(2, '0')}`), long];
    for (const name of names) {
      await call(env.server, 'POST', '/v1/leaderboards', { key, body: { board_name: name, player_id: 'ann', score: 1 } });
    }
    const page = await signedInPage(env.browser, env.server, owner);
    await page.goto(`/games/${gameId}/leaderboards`);
    const boards = page.getByRole('region', { name: 'Boards' });
    await boards.getByText('1–50 of 55 boards').waitFor();
    assert.equal(await boards.locator('tbody tr').count(), 50);
    await boards.getByRole('button', { name: 'Next' }).click();
    await boards.getByText('51–55 of 55 boards').waitFor();

    await boards.getByLabel('Find a board').fill('SEASON');
    await boards.getByRole('button', { name: 'Find' }).click();
    await boards.getByText('1–1 of 1 boards').waitFor();
    const link = boards.locator('tbody tr a');
    assert.equal(await link.getAttribute('title'), long, 'the full name on hover');
    const box = await link.boundingBox();
    assert.ok(box.width < 500, `the name is cut (${box.width}px wide)`);
    await screenshot(page, 'leaderboards-list-search');

    await boards.getByLabel('Find a board').fill('nothing-like-it');
    await boards.getByRole('button', { name: 'Find' }).click();
    await boards.getByText('No board matches').waitFor();
    await page.context().close();
  });
});
