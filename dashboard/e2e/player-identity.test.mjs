// Player identity on the settings page: the owner requires player tokens, turns off key reads
// and sets the per-player limit (stored, and the API's refusal shown in words); makes a player
// secret shown once, which signs custom ids, and replaces it after confirming; viewers and
// editors see the settings without any control.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { call, newAccount, newGame, screenshot, setup, signedInPage } from './harness.mjs';

/** POST /v1/players/auth with a custom id signed by `secret`, as a studio's backend would. */
function signIn(server, key, secret, customId) {
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = createHmac('sha256', secret).update(`${customId}:${timestamp}`).digest('hex');
  return call(server, 'POST', '/v1/players/auth', { key, body: { custom_id: customId, timestamp, signature } });
}

describe('player identity settings', () => {
  const env = setup({ before, after });

  // The first account on a server is its admin; the studios below are ordinary accounts.
  before(async () => {
    await newAccount(env.server, 'admin');
  });

  it('requires player tokens, turns off key reads and makes a player secret', async () => {
    const owner = await newAccount(env.server, 'owner');
    const { gameId, key } = await newGame(env.server, owner, 'Token Trails');
    const page = await signedInPage(env.browser, env.server, owner);
    await page.goto(`/games/${gameId}/settings`);
    const card = page.getByRole('region', { name: 'Player identity' });
    await card.waitFor();

    // The defaults: off, key reads on, no per-player limit of its own, no secret.
    const mode = card.getByRole('combobox', { name: /Player sign-in/ });
    assert.equal(await mode.inputValue(), 'off');
    await card.getByText('The game key alone acts as any player').waitFor();
    const keyReads = card.getByRole('checkbox', { name: 'Game keys may read funnel reports and the presence list' });
    assert.ok(await keyReads.isChecked());
    await card.getByText('Not made yet').waitFor();

    await mode.selectOption('required');
    await card.getByText('Player-scoped calls (saves, scores, unlocks, presence, events) need a player token').waitFor();
    await card.getByText('will have their saves, scores, unlocks, presence and events refused').waitFor();
    await keyReads.uncheck();
    const limit = card.getByRole('spinbutton', { name: /Rate limit per player/ });

    // Above the cap (the instance default, 1,000): the API's words.
    await limit.fill('5000');
    await card.getByRole('button', { name: 'Save player identity' }).click();
    await card.getByRole('alert').filter({ hasText: 'player_rate_limit_per_minute may be at most 1000' }).waitFor();
    let game = await call(env.server, 'GET', `/v1/games/${gameId}`, { token: owner.token });
    assert.equal(game.player_auth, 'off', 'a refused PATCH changes nothing');

    await limit.fill('60');
    await card.getByRole('button', { name: 'Save player identity' }).click();
    await card.getByText('Saved: player sign-in is required; game keys may not read funnel reports and the presence list; 60 requests a minute per player.').waitFor();
    game = await call(env.server, 'GET', `/v1/games/${gameId}`, { token: owner.token });
    assert.equal(game.player_auth, 'required');
    assert.equal(game.key_reads, false);
    assert.equal(game.player_rate_limit_per_minute, 60);
    assert.equal(game.player_secret_set, false);

    // The player secret: made without asking, shown once, and it signs custom ids.
    await card.getByRole('button', { name: 'Make a player secret' }).click();
    await card.getByText('Your new player secret is ready.').waitFor();
    await card.getByText('Keep it on your studio’s servers, never in the game.').waitFor();
    const first = await card.getByLabel('New player secret').innerText();
    assert.match(first, /^pts_[0-9a-f]{64}$/);
    assert.ok(await card.getByRole('button', { name: 'Copy secret' }).isVisible());
    await card.getByText('Set', { exact: true }).waitFor();
    game = await call(env.server, 'GET', `/v1/games/${gameId}`, { token: owner.token });
    assert.equal(game.player_secret_set, true);
    const session = await signIn(env.server, key, first, 'account-42');
    assert.ok(session.token && session.player_id);
    await screenshot(page, 'settings-player-identity');

    // Dismissed, the secret is gone for good.
    await card.getByRole('button', { name: 'I have stored it' }).click();
    await card.getByLabel('New player secret').waitFor({ state: 'detached' });
    // Saving again without a change says so (and no longer says saved).
    await card.getByRole('button', { name: 'Save player identity' }).click();
    await card.getByRole('alert').filter({ hasText: 'Nothing changed.' }).waitFor();
    assert.equal(await card.getByText(/^Saved:/).count(), 0);

    // At phone width: replacing asks first, and Cancel keeps the old secret.
    const phone = await signedInPage(env.browser, env.server, owner, { width: 390, height: 844 });
    await phone.goto(`/games/${gameId}/settings`);
    const phoneCard = phone.getByRole('region', { name: 'Player identity' });
    await phoneCard.getByRole('button', { name: 'Replace the player secret' }).click();
    const dialog = phone.getByRole('dialog', { name: 'Replace the player secret?' });
    await dialog.getByText('The current secret stops working at once').waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.ok(await signIn(env.server, key, first, 'account-42'));

    await phoneCard.getByRole('button', { name: 'Replace the player secret' }).click();
    await dialog.getByRole('button', { name: 'Replace secret' }).click();
    await phoneCard.getByText('Your new player secret is ready.').waitFor();
    const second = await phoneCard.getByLabel('New player secret').innerText();
    assert.match(second, /^pts_[0-9a-f]{64}$/);
    assert.notEqual(second, first);
    const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px at 390 px`);
    await screenshot(phone, 'settings-player-identity-phone');
    await phone.context().close();
    const again = await signIn(env.server, key, second, 'account-42');
    assert.equal(again.player_id, session.player_id, 'the same custom id is the same player');
    await assert.rejects(signIn(env.server, key, first, 'account-42'), /answered 40[13]/);

    // After a reload the form shows what is stored, and no secret.
    await page.reload();
    await card.waitFor();
    assert.equal(await mode.inputValue(), 'required');
    assert.equal(await keyReads.isChecked(), false);
    assert.equal(await limit.inputValue(), '60');
    assert.equal(await card.getByLabel('New player secret').count(), 0);
    await page.context().close();
  });

  it('shows viewers and editors the player identity settings without any control', async () => {
    const owner = await newAccount(env.server, 'owner');
    const { gameId } = await newGame(env.server, owner, 'Watched World');
    await call(env.server, 'PATCH', `/v1/games/${gameId}`, {
      token: owner.token,
      body: { player_auth: 'optional', key_reads: false, player_rate_limit_per_minute: 30 },
    });
    await call(env.server, 'POST', `/v1/games/${gameId}/player-secret`, { token: owner.token });

    for (const role of ['viewer', 'editor']) {
      const member = await newAccount(env.server, role);
      await call(env.server, 'POST', `/v1/games/${gameId}/members`, { token: owner.token, body: { email: member.email, role } });
      const page = await signedInPage(env.browser, env.server, member);
      await page.goto(`/games/${gameId}/settings`);
      const card = page.getByRole('region', { name: 'Player identity' });
      await card.waitFor();
      await page.getByText('only its owners can change these settings').waitFor();
      await card.getByText('Optional', { exact: true }).waitFor();
      await card.getByText('a request with one acts only as its player').waitFor();
      await card.getByText('Game keys may not read funnel reports or the presence list').waitFor();
      await card.getByText('30 requests a minute per player').waitFor();
      await card.getByText('Set', { exact: true }).waitFor();
      for (const name of ['Save player identity', 'Make a player secret', 'Replace the player secret']) {
        assert.equal(await page.getByRole('button', { name }).count(), 0, `${role}: ${name}`);
      }
      assert.equal(await card.getByRole('combobox').count(), 0, role);
      assert.equal(await card.getByRole('checkbox').count(), 0, role);
      assert.equal(await card.getByRole('spinbutton').count(), 0, role);
      if (role === 'viewer') await screenshot(page, 'settings-player-identity-viewer');
      await page.context().close();
    }
  });
});
