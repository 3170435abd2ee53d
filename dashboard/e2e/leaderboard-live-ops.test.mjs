// A board's live-ops settings in the dashboard: defined with "Add up", daily; the facts name
// the operator, when the period began and the next reset; "Reset now" archives the standings
// and starts an empty period, which the game's own read shows too. A tournament defined in the
// form: its state, window, players and joining, and the limit lifted by an edit. A results
// webhook: a reset sends the final standings to a real local receiver, and the Results tab
// shows the delivery. A board on a cron reset schedule: the form shows the next resets as the
// expression is typed (or why it is refused), the facts show the schedule.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { call, newAccount, newGame, screenshot, setup, signedInPage, sleep } from './harness.mjs';

/** A game server's results endpoint on a free port: each POST's headers and JSON body. */
async function startReceiver() {
  const received = [];
  const server = createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk) => (raw += chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: JSON.parse(raw) });
      response.writeHead(204).end();
    });
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${server.address().port}/hooks/results`,
    received,
    close: () => new Promise((ok) => server.close(ok)),
  };
}

/** The definition's facts as { term: description }. */
function facts(page) {
  return page
    .getByRole('definition')
    .locator('xpath=ancestor::dl[1]')
    .first()
    .evaluate((dl) => Object.fromEntries([...dl.querySelectorAll('div')].map((d) => [d.querySelector('dt').textContent, d.querySelector('dd').textContent])));
}

describe('leaderboard operators, resets and tournaments', () => {
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

  it('defines a tournament, shows its state and players, and lifts its limit', async () => {
    const owner = await newAccount(env.server);
    const { gameId, key } = await newGame(env.server, owner, 'Cup Night');
    const page = await signedInPage(env.browser, env.server, owner);
    await page.goto(`/games/${gameId}/leaderboards`);
    await page.getByRole('button', { name: 'New leaderboard' }).click();
    const form = page.getByRole('region', { name: 'New leaderboard' });
    await form.getByLabel('Board name').fill('cup');
    // datetime-local fields read as UTC, to the minute: started an hour ago, ends in two days.
    const utc = (ms) => new Date(ms).toISOString().slice(0, 16);
    const startsAt = utc(Date.now() - 3_600_000);
    const endsAt = utc(Date.now() + 2 * 86_400_000);
    await form.getByLabel('Player limit').fill('0');
    await form.getByLabel('Starts (UTC)').fill(startsAt);
    await form.getByLabel('Ends (UTC)').fill(endsAt);
    await form.getByRole('button', { name: 'Create leaderboard' }).click();
    await form.getByText('The player limit must be a whole number from 1 to 1,000,000.').waitFor();
    await form.getByLabel('Player limit').fill('2');
    await form.getByLabel('Players must join before they can submit scores').check();
    await form.getByRole('button', { name: 'Create leaderboard' }).click();
    await page.getByText('Leaderboard created.').waitFor();

    const defined = await call(env.server, 'GET', `/v1/games/${gameId}/leaderboards/cup`, { token: owner.token });
    assert.equal(defined.tournament.state, 'live');
    assert.equal(defined.tournament.starts_at, `${startsAt}:00Z`);
    assert.equal(defined.tournament.ends_at, `${endsAt}:00Z`);
    assert.equal(defined.tournament.max_players, 2);
    assert.equal(defined.tournament.join_required, true);
    let shown = await facts(page);
    assert.match(shown.Tournament, /^Live 1 d 23 h left$/);
    assert.equal(shown.Players, '0 of 2 · must join');

    // The game: a score before joining is refused; two players join, the third finds it full.
    const early = await fetch(`${env.server.url}/v1/leaderboards/cup/entries`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-game-api-key': key },
      body: JSON.stringify({ player_id: 'ann', score: 10 }),
    });
    assert.equal(early.status, 403);
    for (const player of ['ann', 'ben']) {
      await call(env.server, 'POST', '/v1/leaderboards/cup/join', { key, body: { player_id: player } });
    }
    const full = await fetch(`${env.server.url}/v1/leaderboards/cup/join`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-game-api-key': key },
      body: JSON.stringify({ player_id: 'cy' }),
    });
    assert.equal(full.status, 409);
    await call(env.server, 'POST', '/v1/leaderboards/cup/entries', { key, body: { player_id: 'ann', score: 10 } });
    await page.reload();
    await page.getByRole('table', { name: 'Standings of cup' }).getByRole('cell', { name: 'ann', exact: true }).waitFor();
    shown = await facts(page);
    assert.equal(shown.Players, '2 of 2 · must join');
    await screenshot(page, 'leaderboards-tournament');

    // An edit lifts the limit: the third player gets in.
    await page.getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('region', { name: 'Edit leaderboard' });
    assert.equal(await edit.getByLabel('Player limit').inputValue(), '2');
    assert.equal(await edit.getByLabel('Starts (UTC)').inputValue(), startsAt);
    await edit.getByLabel('Player limit').fill('');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Changes saved.').waitFor();
    shown = await facts(page);
    assert.equal(shown.Players, '2 (no limit) · must join');
    const joined = await call(env.server, 'POST', '/v1/leaderboards/cup/join', { key, body: { player_id: 'cy' } });
    assert.equal(joined.players, 3);
    await page.context().close();
  });

  it("sends a reset board's final standings to its results webhook and lists the delivery", async () => {
    const receiver = await startReceiver();
    const owner = await newAccount(env.server);
    const { gameId, key } = await newGame(env.server, owner, 'Reward Run');
    const page = await signedInPage(env.browser, env.server, owner);
    await page.goto(`/games/${gameId}/leaderboards`);
    await page.getByRole('button', { name: 'New leaderboard' }).click();
    const form = page.getByRole('region', { name: 'New leaderboard' });
    await form.getByLabel('Board name').fill('weekly-cup');
    await form.getByRole('combobox', { name: /^Period/ }).selectOption('weekly');
    await form.getByLabel('Results webhook (optional)').fill(receiver.url);
    await form.getByRole('button', { name: 'Create leaderboard' }).click();
    await page.getByText('Leaderboard created.').waitFor();
    await page.getByRole('link', { name: 'Results' }).click();
    await page.getByText('No deliveries yet').waitFor();

    for (const [player, score] of [['ann', 40], ['ben', 55]]) {
      await call(env.server, 'POST', '/v1/leaderboards/weekly-cup/entries', { key, body: { player_id: player, score } });
    }
    await page.getByRole('button', { name: 'Reset now' }).click();
    await page.getByRole('dialog', { name: 'Reset the leaderboard weekly-cup now?' }).getByRole('button', { name: 'Reset leaderboard' }).click();
    await page.getByText(/Leaderboard reset/).waitFor();

    // The worker's pass (every 10 s) sends it.
    for (let i = 0; i < 300 && receiver.received.length === 0; i++) await sleep(100);
    assert.equal(receiver.received.length, 1, 'one delivery');
    const [{ headers, body }] = receiver.received;
    assert.equal(body.board_name, 'weekly-cup');
    assert.equal(body.reason, 'manual_reset');
    assert.deepEqual(
      body.entries.map((e) => [e.rank, e.player_id, e.score]),
      [
        [1, 'ben', 55],
        [2, 'ann', 40],
      ],
    );
    await page.reload();
    const table = page.getByRole('table', { name: 'Results deliveries' });
    await table.getByText('Delivered', { exact: true }).waitFor();
    const row = await table.locator('tbody tr').first().innerText();
    assert.match(row, /Reset by hand/);
    const [delivery] = (await call(env.server, 'GET', `/v1/games/${gameId}/leaderboards/weekly-cup/deliveries`, { token: owner.token })).deliveries;
    assert.equal(headers['idempotency-key'], delivery.id);
    await screenshot(page, 'leaderboards-results');
    await page.context().close();
    await receiver.close();
  });

  it('defines a board on a cron reset schedule and shows its next resets while typing', async () => {
    const owner = await newAccount(env.server);
    const { gameId } = await newGame(env.server, owner, 'Friday Arena');
    const page = await signedInPage(env.browser, env.server, owner);
    await page.goto(`/games/${gameId}/leaderboards`);
    await page.getByRole('button', { name: 'New leaderboard' }).click();
    const form = page.getByRole('region', { name: 'New leaderboard' });
    await form.getByLabel('Board name').fill('friday');
    await form.getByRole('combobox', { name: /^Period/ }).selectOption({ label: 'Reset schedule (cron, UTC)' });
    const expression = form.getByRole('textbox', { name: /^Reset schedule \(cron, UTC\)/ });
    await expression.fill('*/10 * * * *');
    await form.getByText('reset_schedule must fire at most once an hour: "*/10 * * * *" fires 10 minutes apart').waitFor();
    await expression.fill('0 18 * * FRI');
    const preview = form.getByText(/^Next reset: /);
    await preview.waitFor();
    assert.match(await preview.textContent(), /^Next reset: .* 18:00:00 UTC, then .* 18:00:00 UTC, .* 18:00:00 UTC$/);
    await form.getByRole('button', { name: 'Create leaderboard' }).click();
    await page.getByText('Leaderboard created.').waitFor();

    const defined = await call(env.server, 'GET', `/v1/games/${gameId}/leaderboards/friday`, { token: owner.token });
    assert.equal(defined.reset_schedule, '0 18 * * FRI');
    assert.equal(defined.period, 'all_time');
    const resetsAt = new Date(defined.resets_at);
    assert.equal(resetsAt.getUTCDay(), 5, 'a Friday');
    assert.equal(resetsAt.getUTCHours(), 18);
    const shown = await facts(page);
    assert.equal(shown.Period, 'Reset schedule 0 18 * * FRI (cron, UTC)');
    assert.match(shown['Next reset'], /18:00:00 UTC$/);
    assert.equal(shown['One-time reset'], undefined, 'no one-time reset beside a schedule');
    await screenshot(page, 'leaderboards-reset-schedule');

    // An edit back to a daily period clears the schedule.
    await page.getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('region', { name: 'Edit leaderboard' });
    assert.equal(await edit.getByRole('textbox', { name: /^Reset schedule \(cron, UTC\)/ }).inputValue(), '0 18 * * FRI');
    await edit.getByRole('combobox', { name: /^Period/ }).selectOption('daily');
    await edit.getByRole('button', { name: /^Save/ }).click();
    await page.getByRole('region', { name: 'Edit leaderboard' }).waitFor({ state: 'detached' });
    const daily = await call(env.server, 'GET', `/v1/games/${gameId}/leaderboards/friday`, { token: owner.token });
    assert.equal(daily.period, 'daily');
    assert.equal(daily.reset_schedule, null);
    assert.equal((await facts(page)).Period, 'Daily');
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
