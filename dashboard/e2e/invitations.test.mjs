// Inviting a teammate on a server without a mail server (issue 27): the owner is told that no
// e-mail went out and gets the invitation link, with a copy button, to pass on; the link lets
// the teammate in.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { PASSWORD, anonymousPage, newAccount, newGame, screenshot, setup, signedInPage } from './harness.mjs';

describe('invitations without a mail server', () => {
  const env = setup({ before, after }, [], { smtp: false });

  before(async () => {
    await newAccount(env.server, 'admin');
  });

  it('shows the owner the link no e-mail carried, and the link activates the teammate', async () => {
    const owner = await newAccount(env.server, 'owner');
    const { gameId } = await newGame(env.server, owner, 'Offline Odyssey');
    const page = await signedInPage(env.browser, env.server, owner);
    await page.goto(`/games/${gameId}/settings/members`);
    const email = `teammate-${Date.now()}@studio.test`;
    await page.getByLabel('E-mail').fill(email);
    await page.getByRole('button', { name: 'Send invitation' }).click();

    const status = page.getByRole('status').filter({ hasText: `${email} is invited.` });
    await status.waitFor();
    assert.match(await status.innerText(), /no e-mail was sent/);
    const link = await page.getByLabel('Invitation link').innerText();
    assert.match(link, new RegExp(`^${env.server.url}/activate\\?token=\\w+$`));
    await page.getByRole('button', { name: 'Copy link' }).waitFor();
    assert.match(await page.getByRole('row', { name: new RegExp(email) }).innerText(), /Invited/);
    await screenshot(page, 'settings-members-invitation-link');

    const teammate = await anonymousPage(env.browser, env.server);
    await teammate.goto(link);
    await teammate.getByRole('heading', { name: 'Activate your account' }).waitFor();
    await teammate.getByLabel('New password').fill(PASSWORD);
    await teammate.getByLabel('Repeat the password').fill(PASSWORD);
    await teammate.getByRole('button', { name: 'Activate account' }).click();
    await teammate.getByLabel('E-mail').fill(email);
    await teammate.getByLabel('Password').fill(PASSWORD);
    await teammate.getByRole('button', { name: 'Sign in' }).click();
    await teammate.getByRole('link', { name: 'Offline Odyssey' }).waitFor();

    // The link is answered once: the list never shows it.
    await page.reload();
    await page.getByRole('row', { name: new RegExp(email) }).waitFor();
    assert.equal(await page.getByLabel('Invitation link').count(), 0);
    await teammate.context().close();
    await page.context().close();
  });
});
