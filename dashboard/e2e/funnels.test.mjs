// Funnels: building one step by step (mouse and keyboard), reading its report (bars, counts,
// dropoffs, overall conversion), editing, deleting, and what a viewer sees.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { call, newAccount, newGame, screenshot, setup, signedInPage } from './harness.mjs';

const hoursAgo = (h) => new Date(Date.now() - h * 3_600_000).toISOString();

/** 4 players start the tutorial, 3 finish it, 1 buys; plus noise that must not count. */
async function trackOnboarding(server, key) {
  const events = [];
  const add = (player, event_name, h) => events.push({ event_name, player_id: player, session_id: `s-${player}`, client_timestamp: hoursAgo(h) });
  for (const p of ['ana', 'bo', 'cy', 'dee']) add(p, 'tutorial_start', 5);
  add('dee', 'tutorial_start', 4.5); // a repeat counts once
  for (const p of ['ana', 'bo', 'cy']) add(p, 'tutorial_complete', 3);
  add('ana', 'first_purchase', 1);
  add('eve', 'tutorial_complete', 2); // never started: not in the funnel
  add('eve', 'first_purchase', 1);
  const answer = await call(server, 'POST', '/v1/track', { key, body: events });
  assert.equal(answer.received, events.length);
}

/** The visible text of each body row of the steps table, cells joined by " | ". */
async function stepRows(page) {
  return page
    .getByRole('table', { name: 'Funnel steps' })
    .locator('tbody tr')
    .evaluateAll((rows) => rows.map((row) => Array.from(row.cells, (cell) => cell.innerText.trim()).join(' | ')));
}

describe('funnels', () => {
  const env = setup({ before, after });

  it('builds a funnel, reads its report, edits and deletes it', async () => {
    const owner = await newAccount(env.server);
    const { gameId, key } = await newGame(env.server, owner, 'Tutorial Tales');
    await trackOnboarding(env.server, key);

    const page = await signedInPage(env.browser, env.server, owner);
    await page.goto(`/games/${gameId}/funnels`);
    await page.getByText('No funnels yet').waitFor();
    await page.getByRole('link', { name: 'New funnel' }).click();
    await page.getByRole('heading', { name: 'New funnel' }).waitFor();

    await page.getByLabel('Name').fill('Onboarding');
    assert.ok(await page.getByRole('radio', { name: /Loose/ }).isChecked());
    await page.getByLabel('Step 1 event').fill('tutorial_start');
    await page.getByLabel('Step 2 event').fill('first_purchase');
    assert.ok(await page.getByRole('button', { name: 'Move step 1 up' }).isDisabled());
    assert.ok(await page.getByRole('button', { name: 'Remove step 1' }).isDisabled());
    // Keyboard: Enter on the last step adds one and moves there; Alt+Up moves it up.
    await page.getByLabel('Step 2 event').press('Enter');
    await page.getByLabel('Step 3 event').waitFor();
    assert.ok(await page.getByLabel('Step 3 event').evaluate((el) => el === document.activeElement), 'the new step has the focus');
    await page.keyboard.type('tutorial_complete');
    await page.keyboard.press('Alt+ArrowUp');
    assert.equal(await page.getByLabel('Step 2 event').inputValue(), 'tutorial_complete');
    assert.equal(await page.getByLabel('Step 3 event').inputValue(), 'first_purchase');
    // The mouse: add a step, move it, remove it.
    await page.getByRole('button', { name: '+ Add step' }).click();
    await page.getByLabel('Step 4 event').fill('oops');
    await page.getByRole('button', { name: 'Move step 4 up' }).click();
    assert.equal(await page.getByLabel('Step 3 event').inputValue(), 'oops');
    await page.getByRole('button', { name: 'Move step 3 down' }).click();
    await page.getByRole('button', { name: 'Remove step 4' }).click();
    assert.equal(await page.getByLabel('Step 4 event').count(), 0);
    await page.getByText('Reads as:').waitFor();
    // The game's event names are offered as suggestions.
    assert.equal(await page.locator('datalist option[value="tutorial_complete"]').count(), 1);
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, 'funnel-builder');

    await page.getByRole('button', { name: 'Create funnel' }).click();
    await page.getByRole('heading', { name: 'Onboarding' }).waitFor();
    await page.getByRole('table', { name: 'Funnel steps' }).waitFor();
    assert.deepEqual(await stepRows(page), [
      '1 tutorial_start | 4 | — | 100%',
      '2 tutorial_complete | 3 | 25% | 75%',
      '3 first_purchase | 1 | 66.67% | 25%',
    ]);
    assert.equal(await page.getByTestId('funnel-conversion').innerText(), '25%');
    assert.equal(await page.getByTestId('funnel-started').innerText(), '4');
    assert.equal(await page.getByTestId('funnel-completed').innerText(), '1');
    // The chart's figures.
    await page.getByText('Show figures').click();
    const figures = page.getByRole('table', { name: 'Onboarding: players per step figures' });
    assert.match(await figures.innerText(), /1\. tutorial_start\s+4\s+2\. tutorial_complete\s+3\s+3\. first_purchase\s+1/);
    assert.ok(await page.locator('canvas[aria-label="Onboarding: players per step"]').isVisible());
    await screenshot(page, 'funnel-report');

    // Only production events: these were sent with a development key.
    await page.getByLabel('Environment').selectOption('production');
    await page.getByText('Nobody started this funnel in this range').waitFor();
    await page.getByLabel('Environment').selectOption('');
    await page.getByTestId('funnel-conversion').filter({ hasText: '25%' }).waitFor();
    await page.getByLabel('Range').selectOption('7d');
    await page.getByTestId('funnel-started').filter({ hasText: '4' }).waitFor();

    // At phone width.
    const phone = await signedInPage(env.browser, env.server, owner, { width: 390, height: 844 });
    await phone.goto(page.url());
    await phone.getByRole('table', { name: 'Funnel steps' }).waitFor();
    await phone.getByTestId('funnel-conversion').filter({ hasText: '25%' }).waitFor();
    await screenshot(phone, 'funnel-report-phone');
    await phone.goto(`/games/${gameId}/funnels/new`);
    await phone.getByLabel('Step 1 event').fill('tutorial_start');
    await phone.getByLabel('Step 2 event').fill('tutorial_complete');
    await screenshot(phone, 'funnel-builder-phone');
    await phone.context().close();

    // Edit: rename, strict order, a 2-day window. The steps happened in order, so the counts stay.
    await page.getByRole('link', { name: 'Edit' }).click();
    await page.getByRole('heading', { name: 'Edit funnel' }).waitFor();
    assert.equal(await page.getByLabel('Name').inputValue(), 'Onboarding');
    assert.equal(await page.getByLabel('Step 3 event').inputValue(), 'first_purchase');
    await page.getByLabel('Name').fill('Onboarding v2');
    await page.getByRole('radio', { name: /Strict/ }).check();
    await page.getByLabel('Conversion window (hours)').fill('48');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { name: 'Onboarding v2' }).waitFor();
    await page.getByText('Strict order').waitFor();
    await page.getByText('Within 2 days').waitFor();
    await page.getByRole('table', { name: 'Funnel steps' }).waitFor();
    assert.deepEqual(await stepRows(page), [
      '1 tutorial_start | 4 | — | 100%',
      '2 tutorial_complete | 3 | 25% | 75%',
      '3 first_purchase | 1 | 66.67% | 25%',
    ]);

    // The list shows it.
    await page.getByRole('link', { name: 'Funnels' }).first().click();
    await page.getByRole('heading', { name: 'Funnels', exact: true }).waitFor();
    const row = page.getByRole('row').filter({ hasText: 'Onboarding v2' });
    assert.match(await row.innerText(), /3 steps/);
    assert.match(await row.innerText(), /Within 2 days/);
    await screenshot(page, 'funnel-list');

    // Delete, confirmed.
    await row.getByRole('link', { name: 'Onboarding v2' }).click();
    await page.getByRole('heading', { name: 'Onboarding v2' }).waitFor();
    await page.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete “Onboarding v2”?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('heading', { name: 'Onboarding v2' }).waitFor();
    await page.getByRole('button', { name: 'Delete' }).click();
    await dialog.getByRole('button', { name: 'Delete funnel' }).click();
    await page.getByText('No funnels yet').waitFor();
    const left = await call(env.server, 'GET', `/v1/games/${gameId}/funnels`, { token: owner.token });
    assert.equal(left.funnels.length, 0);
    await page.context().close();
  });

  it('shows a viewer the report without the edit controls, and API errors in words', async () => {
    const owner = await newAccount(env.server);
    const { gameId, key } = await newGame(env.server, owner, 'Viewer Valley');
    await trackOnboarding(env.server, key);
    const funnel = await call(env.server, 'POST', `/v1/games/${gameId}/funnels`, {
      token: owner.token,
      body: { name: 'Tutorial', steps: ['tutorial_start', 'tutorial_complete'] },
    });
    const viewer = await newAccount(env.server, 'viewer');
    await call(env.server, 'POST', `/v1/games/${gameId}/members`, { token: owner.token, body: { email: viewer.email, role: 'viewer' } });

    const page = await signedInPage(env.browser, env.server, viewer);
    await page.goto(`/games/${gameId}/funnels`);
    await page.getByRole('link', { name: 'Tutorial' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'New funnel' }).count(), 0);
    await page.getByRole('link', { name: 'Tutorial' }).click();
    await page.getByRole('table', { name: 'Funnel steps' }).waitFor();
    assert.deepEqual(await stepRows(page), ['1 tutorial_start | 4 | — | 100%', '2 tutorial_complete | 3 | 25% | 75%']);
    assert.equal(await page.getByTestId('funnel-conversion').innerText(), '75%');
    assert.equal(await page.getByRole('link', { name: 'Edit' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Delete' }).count(), 0);
    await page.goto(`/games/${gameId}/funnels/${funnel.funnel_id}/edit`);
    await page.getByText('Only editors and owners can change funnels.').waitFor();

    // An unknown funnel: the API's words, with a way to try again.
    await page.goto(`/games/${gameId}/funnels/00000000-0000-4000-8000-000000000000`);
    const alert = page.getByRole('alert').first();
    await alert.waitFor();
    assert.match(await alert.innerText(), /not found/i);
    assert.ok(await alert.getByRole('button', { name: 'Try again' }).isVisible());
    await page.context().close();
  });
});
