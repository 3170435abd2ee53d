// The example game in Debian's Chromium against the real service: events, the leaderboard and
// the save arrive; events tracked just before the page closes arrive through the keepalive
// flush; events tracked offline wait in localStorage and arrive at the next visit.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { chromium } from 'playwright-core';
import { call, newAccount, newGame, sleep, startPlaytrace, BACKEND } from '../../../../scripts/lib/playtrace-server.mjs';
import { serveExample } from '../../example/serve.mjs';

const SCREENSHOTS = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../target/sdk-screenshots');

describe('the example game in a browser', () => {
  const env = {};
  before(async () => {
    env.server = await startPlaytrace();
    env.example = await serveExample(0);
    env.origin = `http://127.0.0.1:${env.example.address().port}`;
    env.studio = await newAccount(env.server, 'example');
    const { gameId, key } = await newGame(env.server, env.studio, 'Star Catcher');
    Object.assign(env, { gameId, key });
    const token = env.studio.token;
    await call(env.server, 'PATCH', `/v1/games/${gameId}`, { token, body: { allowed_origins: [env.origin] } });
    await call(env.server, 'POST', `/v1/games/${gameId}/achievements`, {
      token,
      body: { key: 'first_star', name: 'First star', description: 'Catch a star', points: 5 },
    });
    env.browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    env.context = await env.browser.newContext({ viewport: { width: 1100, height: 760 } });
  });
  after(async () => {
    await env.browser?.close();
    env.example?.close();
    await env.server?.stop();
  });

  const counts = async () => {
    const answer = await call(env.server, 'GET', `/v1/games/${env.gameId}/events/counts`, { token: env.studio.token });
    return Object.fromEntries(answer.counts.map((c) => [c.event_name, c.count]));
  };
  /** Waits up to 15 s for the stored counts to satisfy `check`. */
  const eventually = async (check) => {
    let last;
    for (let i = 0; i < 75; i++) {
      last = await counts();
      if (check(last)) return last;
      await sleep(200);
    }
    assert.fail(`stored events never matched: ${JSON.stringify(last)}`);
  };
  const open = async (player) => {
    const page = await env.context.newPage();
    const query = new URLSearchParams({ baseUrl: env.server.url, apiKey: env.key, player });
    await page.goto(`${env.origin}/?${query}`);
    await page.getByRole('button', { name: 'Play' }).click();
    await page.getByRole('button', { name: 'Start a run' }).waitFor();
    return page;
  };
  const catchStars = async (page, count) => {
    for (let caught = 0; caught < count; caught++) {
      // The game redraws its stars as they move, so a click may find its star gone and try the
      // next one; on a loaded machine that takes more than 5 seconds (CI, 2026-11-28).
      await page.getByRole('button', { name: 'Star', exact: true }).first().click({ timeout: 20_000 });
    }
  };

  it('plays a run: events, score, achievement and save stored', async () => {
    const page = await open('ann');
    await page.getByRole('button', { name: 'Start a run' }).click();
    await catchStars(page, 4);
    await page.getByRole('button', { name: 'Star', exact: true }).first().waitFor();
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, `${BACKEND}-example.png`) });
    await page.getByRole('button', { name: 'End run' }).click();
    await page.getByText('Run over: 4 stars.').waitFor();
    const stored = await eventually((c) => c.run_ended === 1 && c.star_caught === 4);
    assert.deepEqual([stored.game_opened, stored.run_started], [1, 1]);
    await page.locator('#board li.me', { hasText: 'ann: 4' }).waitFor({ timeout: 10_000 });
    const standing = await call(env.server, 'GET', '/v1/leaderboards/stars', { key: env.key });
    assert.deepEqual(standing.entries.map((e) => [e.player_id, e.score]), [['ann', 4]]);
    const save = await call(env.server, 'GET', '/v1/saves/ann/progress', { key: env.key });
    assert.deepEqual(save.data, { best: 4 });
    const achievements = await call(env.server, 'GET', '/v1/achievements?player_id=ann', { key: env.key });
    assert.equal(achievements.achievements[0].unlocked, true);
    await page.close();
  });

  it('sends what was tracked just before the page closed (keepalive on pagehide)', async () => {
    const before = await counts();
    const page = await open('bob');
    await page.getByRole('button', { name: 'Start a run' }).click();
    await catchStars(page, 2);
    // Well inside the 3-second send interval: only the flush on pagehide can deliver these.
    await page.close({ runBeforeUnload: true });
    const stored = await eventually((c) => c.star_caught === before.star_caught + 2);
    assert.equal(stored.run_started, before.run_started + 1);
  });

  it('keeps events tracked offline in localStorage and sends them at the next visit', async () => {
    const before = await counts();
    const page = await open('cleo');
    await env.context.setOffline(true);
    await page.getByRole('button', { name: 'Start a run' }).click();
    await catchStars(page, 3);
    await sleep(3_500);
    const queued = await page.locator('#stats dd').first().textContent();
    assert.ok(Number(queued) >= 4, `still queued offline: ${queued}`);
    await page.close();
    await env.context.setOffline(false);
    const next = await open('cleo');
    const stored = await eventually((c) => c.star_caught === before.star_caught + 3);
    assert.equal(stored.run_started, before.run_started + 1);
    await next.close();
  });
});
