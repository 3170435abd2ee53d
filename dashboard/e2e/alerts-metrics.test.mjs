// Metric alert kinds in the dashboard: a "Metric drop" rule on sessions made in the form, named
// by its metric in the list, evaluated on real sessions sent with past timestamps, its figures
// shown in the metric's unit; editing switches the metric.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { call, newAccount, newGame, screenshot, setup, signedInPage } from './harness.mjs';

/** Noon UTC of the day `days` before today. */
const noon = (days) => {
  const d = new Date();
  d.setUTCHours(12, 0, 0, 0);
  return new Date(d.getTime() - days * 86_400_000).toISOString();
};

const row = (page, name) => page.getByRole('row', { name: new RegExp(`^${name}`) });
const rowGroup = (page, name) => page.locator('tbody', { has: row(page, name) });

describe('metric alert kinds', () => {
  const env = setup({ before, after }, ['--alert-interval-secs', '86400']);

  it('watches sessions per day with a metric drop rule and evaluates it', async () => {
    const account = await newAccount(env.server);
    const { gameId, key } = await newGame(env.server, account, 'Session Quest');
    // Four sessions on each of the two days before yesterday, one yesterday.
    const events = [];
    for (const [days, count] of [[3, 4], [2, 4], [1, 1]]) {
      for (let i = 0; i < count; i++) {
        events.push({ event_name: 'start', session_id: `s-${days}-${i}`, player_id: `p-${days}-${i}`, client_timestamp: noon(days) });
      }
    }
    const tracked = await call(env.server, 'POST', '/v1/track', { key, body: events });
    assert.equal(tracked.received, 9);

    const page = await signedInPage(env.browser, env.server, account);
    await page.goto(`/games/${gameId}/alerts/new`);
    await page.getByRole('heading', { name: 'New alert rule' }).waitFor();
    await page.getByLabel('Name').fill('Fewer sessions');
    assert.equal(await page.getByLabel('Metric', { exact: true }).count(), 0, 'a fixed kind has no metric');
    await page.getByLabel('Kind', { exact: true }).selectOption({ label: 'Metric drop' });
    await page.getByLabel('Metric', { exact: true }).selectOption({ label: 'Sessions' });
    await page.getByText('Reads the chosen metric for the last complete UTC day', { exact: false }).waitFor();
    assert.equal(await page.getByLabel('Threshold').inputValue(), '0.7');
    await page.getByLabel('Comparison window (hours)').fill('48');
    await page.getByText('Metric kinds use whole UTC days: the baseline is the daily average over the 2 days before the last complete one.').waitFor();
    await screenshot(page, 'alert-rule-form-metric');
    await page.getByRole('button', { name: 'Create rule' }).click();
    await page.getByText('Rule “Fewer sessions” created.').waitFor();

    await row(page, 'Fewer sessions').waitFor();
    const kindCell = await row(page, 'Fewer sessions').locator('td').first().innerText();
    assert.equal(kindCell.trim(), 'Sessions drop');
    const stored = await call(env.server, 'GET', `/v1/alerts?game_id=${gameId}`, { token: account.token });
    assert.deepEqual(
      stored.rules.map((r) => [r.type, r.metric, r.comparison_window_hours]),
      [['metric_drop', 'sessions', 48]],
    );

    await rowGroup(page, 'Fewer sessions').getByRole('button', { name: 'Evaluate now' }).click();
    const result = page.getByRole('status').filter({ hasText: 'Fired' });
    await result.waitFor();
    const text = await result.innerText();
    assert.match(text, /Current\s*1 \/day/i);
    assert.match(text, /Baseline\s*4 \/day/i);
    assert.match(text, /Change\s*−75%/i);
    await screenshot(page, 'alert-rules-metric-fired');

    await page.getByRole('link', { name: 'History', exact: true }).click();
    await page.getByRole('row', { name: /^Fewer sessions/ }).getByText('Sessions drop').waitFor();

    // Editing keeps the kind and switches the metric; its values read in seconds.
    await page.getByRole('link', { name: 'Rules', exact: true }).click();
    await rowGroup(page, 'Fewer sessions').getByRole('link', { name: 'Edit' }).click();
    assert.equal(await page.getByLabel('Metric', { exact: true }).inputValue(), 'sessions');
    await page.getByLabel('Metric', { exact: true }).selectOption({ label: 'Session length' });
    await page.getByRole('button', { name: 'Save rule' }).click();
    await page.getByText('Rule “Fewer sessions” saved.').waitFor();
    const kindAfter = await row(page, 'Fewer sessions').locator('td').first().innerText();
    assert.equal(kindAfter.trim(), 'Session length drop');
    const after = await call(env.server, 'GET', `/v1/alerts?game_id=${gameId}`, { token: account.token });
    assert.equal(after.rules[0].metric, 'session_length');
  });
});
