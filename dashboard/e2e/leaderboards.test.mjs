// Leaderboards: defining boards, the standings (ranks, pages, the player search), the moderation
// queue (approve, ban, unban), the ban list, periods, and what a viewer may do.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { call, newAccount, newGame, screenshot, setup, signedInPage } from './harness.mjs';

const pad = (n) => String(n).padStart(2, '0');

/** A score submitted by the game (API key), answering the status and body even when refused. */
async function submit(server, key, board, body) {
  const response = await fetch(`${server.url}/v1/leaderboards/${encodeURIComponent(board)}/entries`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-game-api-key': key },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/** The cell texts of every body row of a table. */
function cells(table) {
  return table.locator('tbody tr').evaluateAll((rows) => rows.map((row) => [...row.cells].map((cell) => cell.innerText.trim())));
}

/** Fills and submits the New leaderboard form of the boards page. */
async function createBoard(page, { name, order, period, min, max, resetAt }) {
  await page.getByRole('button', { name: 'New leaderboard' }).click();
  const form = page.getByRole('region', { name: 'New leaderboard' });
  await form.getByLabel('Board name').fill(name);
  if (order) await form.getByLabel('Better score').selectOption(order);
  if (period) await form.getByRole('combobox', { name: /^Period/ }).selectOption(period);
  if (min !== undefined) await form.getByLabel('Minimum score (optional)').fill(String(min));
  if (max !== undefined) await form.getByLabel('Maximum score (optional)').fill(String(max));
  if (resetAt) await form.getByLabel('One-time reset (UTC, optional)').fill(resetAt);
  await form.getByRole('button', { name: 'Create leaderboard' }).click();
  await page.getByRole('heading', { level: 1, name }).waitFor();
  await page.getByText('Leaderboard created.').waitFor();
}

describe('leaderboards', () => {
  const env = setup({ before, after });

  it('creates a board, ranks 30 players, pages through them and finds a player', async () => {
    const owner = await newAccount(env.server);
    const { gameId, key } = await newGame(env.server, owner, 'Arena Clash');
    const page = await signedInPage(env.browser, env.server, owner);
    await page.goto(`/games/${gameId}/leaderboards`);
    await page.getByRole('heading', { name: 'Leaderboards' }).waitFor();
    await page.getByText('No leaderboards yet').waitFor();

    await createBoard(page, { name: 'arena' });
    await page.getByText('No scores in this period yet').waitFor();

    // 30 players at once: pNN scores NN * 100 + 7, so p30 leads and p01 is last.
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => i + 1).map((n) =>
        call(env.server, 'POST', '/v1/leaderboards/arena/entries', {
          key,
          body: { player_id: `p${pad(n)}`, score: n * 100 + 7, player_name: `Player ${n}` },
        }),
      ),
    );
    assert.ok(answers.every((answer) => answer.status === 'ok'));
    // A worse score changes nothing.
    const worse = await call(env.server, 'POST', '/v1/leaderboards/arena/entries', { key, body: { player_id: 'p30', score: 5 } });
    assert.equal(worse.updated, false);

    await page.reload();
    const table = page.getByRole('table', { name: 'Standings of arena' });
    await table.waitFor();
    await page.getByText('1–25 of 30 entries · page 1 of 2').waitFor();
    const first = await cells(table);
    assert.equal(first.length, 25);
    first.forEach((row, i) => {
      assert.equal(row[0], String(i + 1), `rank of row ${i + 1}`);
      assert.equal(row[1], `p${pad(30 - i)}`);
      assert.equal(row[2], `Player ${30 - i}`);
      assert.equal(row[3], (3007 - i * 100).toLocaleString('en-US'));
    });

    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByText('26–30 of 30 entries · page 2 of 2').waitFor();
    const second = await cells(table);
    assert.deepEqual(
      second.map((row) => [row[0], row[1], row[3]]),
      [
        ['26', 'p05', '507'],
        ['27', 'p04', '407'],
        ['28', 'p03', '307'],
        ['29', 'p02', '207'],
        ['30', 'p01', '107'],
      ],
    );
    assert.ok(await page.getByRole('button', { name: 'Next' }).isDisabled());

    // The player search: p07 is 24th of 30, on the first page.
    await page.getByLabel('Find a player').fill('p07');
    await page.getByRole('button', { name: 'Find', exact: true }).click();
    const found = page.locator('.lb-found');
    await found.waitFor();
    assert.match(await found.innerText(), /Player 7 \(p07\) is ranked #24 of 30 with a score of 707/);
    await page.getByRole('button', { name: 'Show on the board' }).click();
    await page.getByText('1–25 of 30 entries · page 1 of 2').waitFor();
    const highlighted = table.locator('tr.lb-highlight');
    assert.match(await highlighted.innerText(), /24\s+p07\s+Player 7\s+707/);
    await screenshot(page, 'leaderboards-standings');

    // A player without an entry is said so.
    await page.getByLabel('Find a player').fill('nobody');
    await page.getByRole('button', { name: 'Find', exact: true }).click();
    await page.getByText('has no entry on the board in All time').waitFor();

    // The standings at phone width.
    const phone = await signedInPage(env.browser, env.server, owner, { width: 390, height: 844 });
    await phone.goto(`/games/${gameId}/leaderboards/arena?page=2`);
    await phone.getByRole('table', { name: 'Standings of arena' }).waitFor();
    await phone.getByText('26–30 of 30 entries').waitFor();
    await screenshot(phone, 'leaderboards-standings-phone');
    await phone.context().close();

    // A second board with bounds and a daily period, then the list of both.
    await page.getByRole('link', { name: '← All leaderboards' }).click();
    await createBoard(page, { name: 'speedrun-level-1', order: 'lower', period: 'daily', min: 10, max: 3600 });
    await page.getByRole('link', { name: '← All leaderboards' }).click();
    const boards = page.getByRole('region', { name: 'Boards' }).getByRole('table');
    await boards.waitFor();
    const today = new Date().toISOString().slice(0, 10);
    assert.deepEqual(await cells(boards).then((rows) => rows.map((r) => r.slice(0, 5))), [
      ['arena', 'Higher is better', 'All time', 'All time', 'None'],
      ['speedrun-level-1', 'Lower is better', 'Daily', today, '10 to 3,600'],
    ]);
    await screenshot(page, 'leaderboards-list');
    await page.context().close();
  });

  it('holds out-of-bounds scores for review: approve one, ban another, lift the ban', async () => {
    const owner = await newAccount(env.server);
    const { gameId, key } = await newGame(env.server, owner, 'Rocket Race');
    const page = await signedInPage(env.browser, env.server, owner);
    await page.goto(`/games/${gameId}/leaderboards`);
    await createBoard(page, { name: 'race', min: 0, max: 1000, resetAt: '2030-01-01T12:00' });
    const facts = await page.getByRole('definition').allInnerTexts();
    assert.ok(facts.includes('01/01/2030, 12:00:00 UTC'), facts.join(' | '));
    assert.ok(facts.includes('0 to 1,000'), facts.join(' | '));

    for (const [player, score] of [
      ['ann', 800],
      ['bob', 650],
      ['cara', 420],
    ]) {
      assert.equal((await submit(env.server, key, 'race', { player_id: player, score, player_name: player.toUpperCase() })).body.status, 'ok');
    }
    const lucky = await submit(env.server, key, 'race', { player_id: 'lucky', score: 1200, player_name: 'Lucky' });
    assert.equal(lucky.body.status, 'suspicious');
    assert.equal(lucky.body.rank ?? null, null);
    const cheat = await submit(env.server, key, 'race', { player_id: 'cheat', score: 999999, player_name: 'Cheater' });
    assert.equal(cheat.body.status, 'suspicious');

    // The held scores are off the public board.
    await page.reload();
    const standings = page.getByRole('table', { name: 'Standings of race' });
    await standings.waitFor();
    assert.deepEqual((await cells(standings)).map((r) => r[1]), ['ann', 'bob', 'cara']);

    await page.getByRole('link', { name: /Moderation/ }).click();
    const held = page.getByRole('table', { name: 'Entries held for review' });
    await held.waitFor();
    assert.deepEqual(
      (await cells(held)).map((r) => r.slice(0, 4)),
      [
        ['cheat', 'Cheater', '999,999', 'Above the maximum (1,000)'],
        ['lucky', 'Lucky', '1,200', 'Above the maximum (1,000)'],
      ],
    );
    assert.equal(await page.getByRole('navigation', { name: 'Leaderboard sections' }).getByLabel('2 held for review').innerText(), '2');
    await screenshot(page, 'leaderboards-moderation');

    // Approve: lucky joins the board at the top.
    await held.getByRole('row').filter({ hasText: 'lucky' }).getByRole('button', { name: 'Approve' }).click();
    await page.getByText('Approved: lucky is on the board at rank #1 with 1,200.').waitFor();
    await held.getByRole('row').filter({ hasText: 'lucky' }).waitFor({ state: 'detached' });

    // Ban asks first, saying what it does.
    await held.getByRole('row').filter({ hasText: 'cheat' }).getByRole('button', { name: 'Ban', exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    const warning = await dialog.innerText();
    assert.match(warning, /removes every entry/);
    assert.match(warning, /blocks their future submissions/);
    await dialog.getByRole('button', { name: 'Ban player' }).click();
    await page.getByText('cheat is banned from race: 1 entry removed.').waitFor();
    await page.getByText('Nothing to review').waitFor();

    await page.getByRole('link', { name: /Standings/ }).click();
    await standings.waitFor();
    assert.deepEqual(
      (await cells(standings)).map((r) => r.slice(0, 2)),
      [
        ['1', 'lucky'],
        ['2', 'ann'],
        ['3', 'bob'],
        ['4', 'cara'],
      ],
    );

    // The ban list, and the game is refused.
    await page.getByRole('link', { name: /Bans/ }).click();
    const bans = page.getByRole('table', { name: 'Banned players' });
    await bans.waitFor();
    assert.deepEqual((await cells(bans)).map((r) => r[0]), ['cheat']);
    await screenshot(page, 'leaderboards-bans');
    const refused = await submit(env.server, key, 'race', { player_id: 'cheat', score: 10 });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error, 'This player is banned from this leaderboard');

    // Lift the ban: the player may submit again.
    await bans.getByRole('row').filter({ hasText: 'cheat' }).getByRole('button', { name: 'Unban' }).click();
    await page.getByText('cheat may submit scores to race again.').waitFor();
    await page.getByText('No banned players').waitFor();
    const again = await submit(env.server, key, 'race', { player_id: 'cheat', score: 300 });
    assert.equal(again.status, 200);
    assert.equal(again.body.rank, 5);
    await page.context().close();
  });

  it('shows a score with every decimal it was sent with, alike in every view', async () => {
    const owner = await newAccount(env.server);
    const { gameId, key } = await newGame(env.server, owner, 'Split Seconds');
    await call(env.server, 'POST', `/v1/games/${gameId}/leaderboards`, { token: owner.token, body: { board_name: 'sprint', order: 'lower', max_score: 1000 } });
    assert.equal((await submit(env.server, key, 'sprint', { player_id: 'ada', score: 61.2345 })).body.status, 'ok');
    assert.equal((await submit(env.server, key, 'sprint', { player_id: 'bo', score: 1234.5678 })).body.status, 'suspicious');

    const page = await signedInPage(env.browser, env.server, owner);
    await page.goto(`/games/${gameId}/leaderboards/sprint`);
    const standings = page.getByRole('table', { name: 'Standings of sprint' });
    await standings.waitFor();
    assert.deepEqual((await cells(standings)).map((r) => r[r.length - 3]), ['61.2345']);
    await page.getByLabel('Find a player').fill('ada');
    await page.getByRole('button', { name: 'Find', exact: true }).click();
    assert.match(await page.locator('.lb-found').innerText(), /with a score of 61\.2345\./);

    await page.getByRole('link', { name: /Moderation/ }).click();
    const held = page.getByRole('table', { name: 'Entries held for review' });
    await held.waitFor();
    assert.deepEqual((await cells(held)).map((r) => r.slice(0, 4)), [['bo', '—', '1,234.5678', 'Above the maximum (1,000)']]);
    await held.getByRole('row').filter({ hasText: 'bo' }).getByRole('button', { name: 'Approve' }).click();
    await page.getByText('Approved: bo is on the board at rank #2 with 1,234.5678.').waitFor();
    await page.context().close();
  });

  it('edits a board: a new period archives the old one, which stays readable', async () => {
    const owner = await newAccount(env.server);
    const { gameId, key } = await newGame(env.server, owner, 'Tower Tactics');
    await call(env.server, 'POST', `/v1/games/${gameId}/leaderboards`, { token: owner.token, body: { board_name: 'season' } });
    for (const [player, score] of [
      ['zed', 90],
      ['amy', 120],
    ]) {
      await call(env.server, 'POST', '/v1/leaderboards/season/entries', { key, body: { player_id: player, score } });
    }
    const page = await signedInPage(env.browser, env.server, owner);
    await page.goto(`/games/${gameId}/leaderboards/season`);
    const standings = page.getByRole('table', { name: 'Standings of season' });
    await standings.waitFor();
    const picker = page.getByRole('region', { name: /Standings/ }).getByRole('combobox', { name: /^Period/ });
    assert.equal(await picker.locator('option:checked').innerText(), 'All time (current)');

    // Switch to a daily board: today's period starts empty, all-time is a finished period.
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    const form = page.getByRole('region', { name: 'Edit leaderboard' });
    await form.getByRole('combobox', { name: /^Period/ }).selectOption('daily');
    await form.getByText('Changing the period takes effect at once').waitFor();
    await form.getByLabel('Maximum score (optional)').fill('500');
    await screenshot(page, 'leaderboards-edit');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Changes saved.').waitFor();
    const today = new Date().toISOString().slice(0, 10);
    const facts = await page.getByRole('definition').allInnerTexts();
    assert.ok(facts.includes('Daily'), facts.join());
    assert.ok(facts.includes(today), facts.join());
    assert.ok(facts.includes('At most 500'), facts.join());
    await page.getByText('No scores in this period yet').waitFor();

    await picker.locator('option', { hasText: /^All time · / }).waitFor({ state: 'attached' });
    const options = await picker.locator('option').allInnerTexts();
    assert.equal(options[0], `${today} (current)`);
    assert.ok(options.some((o) => /^All time · (finished|archived)/.test(o)), options.join(' | '));
    await picker.selectOption({ label: options.find((o) => o.startsWith('All time')) });
    await page.waitForURL(/period=all_time/);
    await page.getByText('Archived', { exact: true }).waitFor();
    assert.deepEqual(
      (await cells(standings)).map((r) => r.slice(0, 2)),
      [
        ['1', 'amy'],
        ['2', 'zed'],
      ],
    );
    // The player search reads the selected period.
    await page.getByLabel('Find a player').fill('zed');
    await page.getByRole('button', { name: 'Find', exact: true }).click();
    await page.getByText(/is ranked #2 of 2/).waitFor();

    // Back to the current period; a new score lands there.
    await call(env.server, 'POST', '/v1/leaderboards/season/entries', { key, body: { player_id: 'amy', score: 40 } });
    await picker.selectOption('');
    await page.getByText('Live', { exact: true }).waitFor();
    assert.deepEqual((await cells(standings)).map((r) => r.slice(0, 2)), [['1', 'amy']]);

    // Delete asks first, then the board is gone from the list.
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    const dialog = page.getByRole('dialog');
    assert.match(await dialog.innerText(), /every entry in every period/);
    await dialog.getByRole('button', { name: 'Delete leaderboard' }).click();
    await page.getByRole('heading', { name: 'Leaderboards' }).waitFor();
    await page.getByText('No leaderboards yet').waitFor();
    await page.context().close();
  });

  it('shows a viewer the standings without the edit controls', async () => {
    const owner = await newAccount(env.server);
    const viewer = await newAccount(env.server, 'viewer');
    const { gameId, key } = await newGame(env.server, owner, 'Viewer Valley');
    await call(env.server, 'POST', `/v1/games/${gameId}/members`, { token: owner.token, body: { email: viewer.email, role: 'viewer' } });
    await call(env.server, 'POST', `/v1/games/${gameId}/leaderboards`, { token: owner.token, body: { board_name: 'duel', max_score: 100 } });
    await call(env.server, 'POST', '/v1/leaderboards/duel/entries', { key, body: { player_id: 'kim', score: 50 } });
    await call(env.server, 'POST', '/v1/leaderboards/duel/entries', { key, body: { player_id: 'max', score: 500 } });

    const page = await signedInPage(env.browser, env.server, viewer);
    await page.goto(`/games/${gameId}/leaderboards`);
    await page.getByRole('link', { name: 'duel' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'New leaderboard' }).count(), 0);
    await page.getByRole('link', { name: 'duel' }).click();
    await page.getByRole('table', { name: 'Standings of duel' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Edit', exact: true }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Delete', exact: true }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Ban', exact: true }).count(), 0);
    await page.getByRole('link', { name: /Moderation/ }).click();
    const held = page.getByRole('table', { name: 'Entries held for review' });
    await held.waitFor();
    assert.deepEqual((await cells(held)).map((r) => r[0]), ['max']);
    assert.equal(await page.getByRole('button', { name: 'Approve' }).count(), 0);
    await page.context().close();
  });
});
