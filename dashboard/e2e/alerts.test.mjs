// Alert rules and their history: a crash spike rule made in the form sends a test message to a
// real webhook receiver, fires on real crash events (evaluated now), e-mails the SMTP sink and
// posts to the receiver, and shows up in the history; the form makes a rule of every kind.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { call, newAccount, newGame, screenshot, setup, signedInPage, sleep } from './harness.mjs';

/** A Discord-like webhook receiver on a free port, keeping every JSON body POSTed to it. */
async function startReceiver() {
  const bodies = [];
  const server = createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk) => (raw += chunk));
    request.on('end', () => {
      if (request.method === 'POST') bodies.push(JSON.parse(raw));
      // A path ending in /broken plays a receiver that is down.
      response.writeHead(request.url.endsWith('/broken') ? 500 : 204).end();
    });
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${server.address().port}/webhooks/alerts`,
    host: `127.0.0.1:${server.address().port}`,
    bodies,
    /** The first body whose first embed's title matches, waiting up to 10 s. */
    async waitFor(title) {
      for (let i = 0; i < 100; i++) {
        const found = bodies.find((b) => title.test(b.embeds?.[0]?.title ?? ''));
        if (found) return found;
        await sleep(100);
      }
      throw new Error(`no webhook message titled ${title}; got ${JSON.stringify(bodies)}`);
    },
    close: () => new Promise((ok) => server.close(ok)),
  };
}

/** A rule's rows in the rules table: its figures, then its actions and results. */
const ruleGroup = (page, name) => page.locator('tbody', { has: page.getByRole('row', { name: new RegExp(`^${name}`) }) });
/** The texts of a rule's cells (after its name), whitespace made single spaces. */
const ruleCells = async (page, name) =>
  (await page.getByRole('row', { name: new RegExp(`^${name}`) }).locator('td').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());

const hoursAgo = (hours) => new Date(Date.now() - hours * 3_600_000).toISOString();

describe('alerts', () => {
  // The worker's own pass would fire rules behind the test's back; here only "Evaluate now" does.
  const env = setup({ before, after }, ['--alert-interval-secs', '86400']);
  let receiver;
  before(async () => {
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver?.close();
  });

  it('creates a crash spike rule, sends a test, fires it on real crashes and lists the firing', async () => {
    const account = await newAccount(env.server);
    const { gameId, key } = await newGame(env.server, account, 'Alert Quest');
    const oncall = `oncall-${Date.now()}@studio.test`;
    const page = await signedInPage(env.browser, env.server, account);
    await page.goto(`/games/${gameId}/alerts`);
    await page.getByRole('heading', { name: 'Alerts' }).waitFor();
    await page.getByText('No alert rules yet').waitFor();

    await page.getByRole('button', { name: 'New rule' }).click();
    await page.getByRole('heading', { name: 'New alert rule' }).waitFor();
    await page.getByLabel('Name').fill('Crashes after release');
    await page.getByLabel('Kind', { exact: true }).selectOption({ label: 'Crash spike' });
    await page.getByText('Counts crash events in the last hour').waitFor();
    await page.getByLabel('Threshold').fill('2');
    await page.getByText('Fires when the crashes in the last hour reach 200% of the baseline (×2).').waitFor();
    await page.getByRole('button', { name: '1 day' }).click();
    assert.equal(await page.getByLabel('Comparison window (hours)').inputValue(), '24');
    await page.getByText('The baseline is the hourly average over the 24 hours before the last hour.').waitFor();
    await page.getByLabel('E-mail').fill(oncall);
    await page.getByLabel('Webhook URL').fill(receiver.url);
    await screenshot(page, 'alert-rule-form');
    await page.getByRole('button', { name: 'Create rule' }).click();
    await page.getByText('Rule “Crashes after release” created.').waitFor();

    const row = ruleGroup(page, 'Crashes after release');
    await row.waitFor();
    const cells = await ruleCells(page, 'Crashes after release');
    assert.equal(cells[0], 'Crash spike');
    assert.equal(cells[1], '≥ 200% of baseline');
    assert.equal(cells[2], '1 day 24 h');
    assert.ok(cells[3].includes(`E-mail: ${oncall}`), cells[3]);
    assert.ok(cells[3].endsWith(`Webhook: ${receiver.host}`), cells[3]);
    assert.equal(cells[5], 'Never');
    assert.ok(await page.getByRole('switch', { name: 'Enabled: Crashes after release' }).isChecked());

    // "Send test" reaches the receiver, and the page says so in words.
    await row.getByRole('button', { name: 'Send test' }).click();
    await page.getByText('Test message delivered.').waitFor();
    const test = await receiver.waitFor(/^Test message: Crashes after release$/);
    assert.equal(test.embeds[0].color, 0xe74c3c);

    // One crash in each of the 24 hours before the last one (the baseline: 1 an hour), then
    // four in the last hour: 400% of the baseline, over the 200% threshold.
    const crash = (at, i) => ({
      event_name: 'crash',
      session_id: `session-${i}`,
      player_id: `player-${i % 7}`,
      properties: { reason: 'NullReferenceException', build: '1.4.2' },
      client_timestamp: at,
    });
    const events = [];
    for (let h = 0; h < 24; h++) events.push(crash(hoursAgo(1.5 + h), h));
    for (let i = 0; i < 4; i++) events.push(crash(hoursAgo(0.1 + i * 0.05), 100 + i));
    const tracked = await call(env.server, 'POST', '/v1/track', { key, body: events });
    assert.equal(tracked.received, 28);

    await row.getByRole('button', { name: 'Evaluate now' }).click();
    // The message says what went out, channel by channel, as the firing's record has it.
    const result = page.getByRole('status').filter({ hasText: 'Fired: e-mail and webhook message sent.' });
    await result.waitFor();
    const text = await result.innerText();
    assert.match(text, new RegExp(`Sent\\s+E-mail to ${oncall.replace(/[.]/g, '\\.')} sent\\.`));
    assert.match(text, new RegExp(`Sent\\s+Webhook message to ${receiver.host} sent\\.`));
    assert.match(text, /Current\s*4 \/h/i);
    assert.match(text, /Baseline\s*1 \/h/i);
    assert.match(text, /Change\s*\+300%/i);
    await screenshot(page, 'alert-rules-fired');

    // Both channels got the alert.
    const mail = await env.server.mail.waitFor(oncall, /Crashes after release/);
    assert.match(mail, /Crash spike/);
    assert.match(mail, /Alert Quest/);
    const alert = await receiver.waitFor(/^Crash spike: Crashes after release$/);
    assert.equal(alert.embeds[0].color, 0xe74c3c);

    // The rule now shows when it fired, and a second evaluation is held back by the cooldown.
    await row.getByText('Cooling down').waitFor();
    assert.match((await ruleCells(page, 'Crashes after release'))[5], /^\d{1,2} [A-Z][a-z]{2}(?: \d{4})?, \d{2}:\d{2} Cooling down$/);
    await row.getByRole('button', { name: 'Evaluate now' }).click();
    await page.getByText('Triggered, but not sent.').waitFor();

    // A second rule whose webhook receiver is down: the e-mail still goes, the failure is kept.
    await call(env.server, 'POST', '/v1/alerts', {
      token: account.token,
      body: {
        game_id: gameId,
        name: 'Errors after release',
        type: 'log_error_spike',
        threshold: 3,
        comparison_window_hours: 24,
        email: oncall,
        discord_webhook_url: receiver.url.replace(/alerts$/, 'broken'),
      },
    });
    const log = (at, i, level) => ({ event_name: 'log', session_id: `log-${i}`, properties: { level, message: 'Texture missing' }, client_timestamp: at });
    const logs = [];
    for (let h = 0; h < 24; h++) logs.push(log(hoursAgo(1.5 + h), h, h % 2 ? 'error' : 'warning'));
    for (let i = 0; i < 5; i++) logs.push(log(hoursAgo(0.2), 100 + i, 'error'));
    logs.push(log(hoursAgo(0.2), 200, 'info')); // not counted
    await call(env.server, 'POST', '/v1/track', { key, body: logs });
    await page.reload();
    await ruleGroup(page, 'Errors after release').getByRole('button', { name: 'Evaluate now' }).click();
    const partly = page.getByRole('status').filter({ hasText: 'Fired, but a notification failed.' });
    await partly.waitFor();
    const partlyText = await partly.innerText();
    assert.match(partlyText, /Sent\s+E-mail to .+ sent\./);
    assert.match(partlyText, /Failed\s+Webhook message to .+ failed\./);
    // The failure says why, on its channel's line.
    assert.match(partlyText, /Webhook message to .+ failed\.\s+the webhook receiver answered HTTP 500/);
    await screenshot(page, 'alert-rules-fired-partly');
    await env.server.mail.waitFor(oncall, /Errors after release/);

    await page.getByRole('link', { name: 'See it in the history' }).click();
    await page.getByRole('heading', { name: 'Alert history' }).waitFor();
    const history = page.locator('table tbody tr');
    await history.first().waitFor();
    assert.equal(await history.count(), 2);
    // Newest first: the log error spike, its webhook failed and says why.
    const failed = await history.first().locator('th, td').allInnerTexts();
    assert.deepEqual(failed.slice(0, 7), ['Errors after release', 'Log error spike', '5 /h', '1 /h', '▲ +400%', 'Sent', 'Failed']);
    assert.match(failed[7], /webhook/i);
    const fired = await history.nth(1).locator('th, td').allInnerTexts();
    assert.deepEqual(fired.slice(0, 7), ['Crashes after release', 'Crash spike', '4 /h', '1 /h', '▲ +300%', 'Sent', 'Sent']);
    assert.equal(fired[7], '—');
    assert.match(fired[8], /^\d{1,2} [A-Z][a-z]{2}(?: \d{4})?, \d{2}:\d{2}$/);
    assert.equal(await history.nth(1).locator('.al-change').evaluate((e) => e.classList.contains('al-bad')), true);
    await screenshot(page, 'alert-history');
    const phone = await signedInPage(env.browser, env.server, account, { width: 390, height: 844 });
    await phone.goto(`/games/${gameId}/alerts/history`);
    await phone.getByText('▲ +300%').waitFor();
    await screenshot(phone, 'alert-history-phone');
  });

  it('makes a rule of every kind in the form, edits, switches off and deletes rules', async () => {
    const account = await newAccount(env.server);
    const { gameId } = await newGame(env.server, account, 'Kinds Quest');
    const page = await signedInPage(env.browser, env.server, account);
    await page.goto(`/games/${gameId}/alerts/history`);
    await page.getByText('No alerts have fired yet').waitFor();
    await page.getByText('Use “Evaluate now” on a rule to check it at once.', { exact: false }).waitFor();
    await page.getByRole('link', { name: 'Rules' }).click();

    const kinds = [
      { label: 'Crash spike', type: 'crash_spike', explains: 'Counts crash events', threshold: '3', shown: '≥ 300% of baseline', window: '168', windowShown: '7 days 168 h' },
      { label: 'Log error spike', type: 'log_error_spike', explains: 'level error or warning', threshold: '2.5', shown: '≥ 250% of baseline', window: '72', windowShown: '3 days 72 h' },
      { label: 'Revenue drop', type: 'revenue_drop', explains: 'Sums purchase amounts', threshold: null, shown: '< 70% of baseline', window: '720', windowShown: '30 days 720 h' },
      { label: 'DAU drop', type: 'dau_drop', explains: 'distinct active players', threshold: '0.8', shown: '< 80% of baseline', window: '36', windowShown: '36 hours' },
      { label: 'Retention drop', type: 'retention_drop', explains: 'day-7 retention', threshold: '0.9', shown: '< 90% of baseline', window: '168', windowShown: '7 days 168 h' },
    ];
    for (const kind of kinds) {
      await page.getByRole('button', { name: 'New rule' }).click();
      await page.getByLabel('Name').fill(`${kind.label} watch`);
      await page.getByLabel('Kind', { exact: true }).selectOption({ label: kind.label });
      // The sentence under the select says what the chosen kind compares.
      await page.locator('.al-explain', { hasText: `${kind.label}:` }).getByText(kind.explains, { exact: false }).waitFor();
      if (kind.threshold) await page.getByLabel('Threshold').fill(kind.threshold);
      // A drop kind starts from 0.7 (below 70%), not the spike's ×2.
      else assert.equal(await page.getByLabel('Threshold').inputValue(), '0.7');
      await page.getByLabel('Comparison window (hours)').fill(kind.window);
      if (kind.type === 'revenue_drop') await page.getByLabel('Environment').selectOption({ label: 'Production only' });
      if (kind.type === 'retention_drop') await page.getByLabel('Enabled').uncheck();
      await page.getByRole('button', { name: 'Create rule' }).click();
      await page.getByText(`Rule “${kind.label} watch” created.`).waitFor();
      await ruleGroup(page, `${kind.label} watch`).waitFor();
      const cells = await ruleCells(page, `${kind.label} watch`);
      assert.deepEqual(cells.slice(0, 3), [kind.label, kind.shown, kind.windowShown]);
    }
    const stored = await call(env.server, 'GET', `/v1/alerts?game_id=${gameId}`, { token: account.token });
    assert.deepEqual(stored.rules.map((r) => r.type).sort(), kinds.map((k) => k.type).sort());
    const byType = Object.fromEntries(stored.rules.map((r) => [r.type, r]));
    assert.equal(byType.revenue_drop.environment, 'production');
    assert.equal(byType.retention_drop.enabled, false);
    assert.equal(byType.dau_drop.comparison_window_hours, 36);
    assert.equal(byType.log_error_spike.threshold, 2.5);
    assert.equal(byType.crash_spike.email, account.email, 'the e-mail starts as the signed-in user’s');
    await screenshot(page, 'alert-rules');

    // A rule without a webhook has nothing to test.
    assert.ok(await ruleGroup(page, 'DAU drop watch').getByRole('button', { name: 'Send test' }).isDisabled());

    // The switch turns a rule off at once.
    await page.getByRole('switch', { name: 'Enabled: Crash spike watch' }).uncheck();
    await page.getByRole('switch', { name: 'Enabled: Crash spike watch', checked: false }).waitFor();
    for (let i = 0; i < 50; i++) {
      const stored = await call(env.server, 'GET', `/v1/alerts/${byType.crash_spike.rule_id}`, { token: account.token });
      if (!stored.enabled) break;
      assert.ok(i < 49, 'the switch turned the rule off');
      await sleep(100);
    }

    // Edit: the same form, filled in.
    await ruleGroup(page, 'DAU drop watch').getByRole('link', { name: 'Edit' }).click();
    await page.getByRole('heading', { name: 'Edit “DAU drop watch”' }).waitFor();
    assert.equal(await page.getByLabel('Threshold').inputValue(), '0.8');
    assert.equal(await page.getByLabel('Comparison window (hours)').inputValue(), '36');
    await page.getByText('Drop kinds use whole days: the baseline is the daily average over the 2 days before.').waitFor();
    await page.getByLabel('Name').fill('Players leaving');
    await page.getByLabel('Threshold').fill('0.5');
    await page.getByRole('button', { name: 'Save rule' }).click();
    await page.getByText('Rule “Players leaving” saved.').waitFor();
    await ruleGroup(page, 'Players leaving').waitFor();
    assert.deepEqual((await ruleCells(page, 'Players leaving')).slice(0, 2), ['DAU drop', '< 50% of baseline']);

    // With no data the baseline is zero, so evaluating does not fire, and says why.
    await ruleGroup(page, 'Players leaving').getByRole('button', { name: 'Evaluate now' }).click();
    await page.getByText('Not fired.', { exact: true }).waitFor();
    await page.getByText('the baseline over the previous 36 hours is zero', { exact: false }).waitFor();

    // The API's refusal is shown in its words.
    await page.getByRole('button', { name: 'New rule' }).click();
    await page.getByLabel('Name').fill('Bad hook');
    await page.getByLabel('Webhook URL').fill('ftp://example.com/hook');
    await page.getByRole('button', { name: 'Create rule' }).click();
    // The browser accepts ftp: as a URL; the API does not.
    await page.getByRole('alert').filter({ hasText: /http/ }).waitFor();
    await page.getByRole('link', { name: 'Cancel' }).click();

    // Deleting asks first.
    await ruleGroup(page, 'Log error spike watch').getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete rule' }).click();
    await page.getByRole('row', { name: /^Log error spike watch/ }).waitFor({ state: 'detached' });
    const left = await call(env.server, 'GET', `/v1/alerts?game_id=${gameId}`, { token: account.token });
    assert.equal(left.rules.length, 4);
    assert.ok(!left.rules.some((r) => r.type === 'log_error_spike'));

    // At phone width each rule is a card of labelled lines.
    const phone = await signedInPage(env.browser, env.server, account, { width: 390, height: 844 });
    await phone.goto(`/games/${gameId}/alerts`);
    await phone.getByRole('row', { name: /^Players leaving/ }).waitFor();
    await screenshot(phone, 'alert-rules-phone');
  });
  it('shows a viewer the rules and history without the controls that change them', async () => {
    const owner = await newAccount(env.server);
    const viewer = await newAccount(env.server, 'viewer');
    const { gameId } = await newGame(env.server, owner, 'Viewer Quest');
    await call(env.server, 'POST', `/v1/games/${gameId}/members`, { token: owner.token, body: { email: viewer.email, role: 'viewer' } });
    await call(env.server, 'POST', '/v1/alerts', {
      token: owner.token,
      body: { game_id: gameId, name: 'Revenue watch', type: 'revenue_drop', threshold: 0.6, comparison_window_hours: 168, email: owner.email, discord_webhook_url: 'https://discord.com/api/webhooks/123/secret-token' },
    });
    const page = await signedInPage(env.browser, env.server, viewer);
    await page.goto(`/games/${gameId}/alerts`);
    await ruleGroup(page, 'Revenue watch').waitFor();
    await page.getByText('You have view access: editors and owners can change rules.').waitFor();
    const cells = await ruleCells(page, 'Revenue watch');
    assert.deepEqual(cells.slice(0, 3), ['Revenue drop', '< 60% of baseline', '7 days 168 h']);
    assert.ok(cells[3].endsWith('Webhook: discord.com'), cells[3]);
    assert.equal(cells[4], 'On');
    for (const name of ['New rule', 'Send test', 'Evaluate now', 'Delete']) {
      assert.equal(await page.getByRole('button', { name }).count(), 0, name);
    }
    assert.equal(await page.getByRole('switch').count(), 0);
    assert.equal(await page.getByRole('link', { name: 'Edit' }).count(), 0);
    await page.getByRole('link', { name: 'History', exact: true }).click();
    await page.getByText('No alerts have fired yet').waitFor();
  });
});
