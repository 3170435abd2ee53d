// "Evaluate now" on a server without SMTP: the rule fires, and the page says that nothing went
// out and why (the e-mail only logged, no webhook on the rule) instead of "notifications sent".
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { call, newAccount, newGame, screenshot, setup, signedInPage } from './harness.mjs';

const hoursAgo = (hours) => new Date(Date.now() - hours * 3_600_000).toISOString();

describe('alert delivery without SMTP', () => {
  // No SMTP server, and the worker's own pass kept out of the way: only "Evaluate now" fires.
  const env = setup({ before, after }, ['--alert-interval-secs', '86400'], { smtp: false });

  it('says a fired rule sent nothing when no channel could send', async () => {
    const account = await newAccount(env.server);
    const { gameId, key } = await newGame(env.server, account, 'Quiet Quest');
    const oncall = `oncall-${Date.now()}@studio.test`;
    await call(env.server, 'POST', '/v1/alerts', {
      token: account.token,
      body: { game_id: gameId, name: 'Crashes', type: 'crash_spike', threshold: 2, comparison_window_hours: 24, email: oncall },
    });
    // A baseline of one crash an hour, then four in the last hour.
    const crash = (at, i) => ({ event_name: 'crash', session_id: `s-${i}`, properties: { reason: 'boom' }, client_timestamp: at });
    const events = [];
    for (let h = 0; h < 24; h++) events.push(crash(hoursAgo(1.5 + h), h));
    for (let i = 0; i < 4; i++) events.push(crash(hoursAgo(0.1 + i * 0.05), 100 + i));
    await call(env.server, 'POST', '/v1/track', { key, body: events });

    const page = await signedInPage(env.browser, env.server, account);
    await page.goto(`/games/${gameId}/alerts`);
    const group = page.locator('tbody', { has: page.getByRole('row', { name: /^Crashes/ }) });
    // The evaluation's own answer says how each channel went: no second read of the history.
    const historyReads = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/v1/alerts/history') historyReads.push(request.url());
    });
    await group.getByRole('button', { name: 'Evaluate now' }).click();
    const result = page.getByRole('status').filter({ hasText: 'Fired, but no notification went out.' });
    await result.waitFor();
    const text = await result.innerText();
    assert.doesNotMatch(text, /notifications sent/);
    assert.match(text, new RegExp(`Skipped\\s+E-mail to ${oncall.replace(/[.]/g, '\\.')} not sent: this playtrace server has no SMTP server set`));
    assert.match(text, /Skipped\s+No webhook message: the rule has no webhook\./);
    await screenshot(page, 'alert-rules-fired-nothing-sent');
    assert.deepEqual(historyReads, []);

    // The history agrees.
    const history = await call(env.server, 'GET', `/v1/alerts/history?game_id=${gameId}`, { token: account.token });
    assert.deepEqual([history.history[0].email_status, history.history[0].webhook_status], ['skipped', 'skipped']);

    const phone = await signedInPage(env.browser, env.server, account, { width: 390, height: 844 });
    await phone.goto(`/games/${gameId}/alerts`);
    const phoneGroup = phone.locator('tbody', { has: phone.getByRole('row', { name: /^Crashes/ }) });
    await phoneGroup.getByRole('button', { name: 'Evaluate now' }).click();
    // Within the hour it is held back by the cooldown, and says so.
    await phone.getByText('Triggered, but not sent.').waitFor();
    await screenshot(phone, 'alert-rules-cooling-down-phone');
    await phone.context().close();
  });
});
