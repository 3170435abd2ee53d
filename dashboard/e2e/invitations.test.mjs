// Inviting a teammate on a server without a mail server (issue 27): the owner is told that no
// e-mail went out and gets the invitation link, with a copy button, to pass on; the link lets
// the teammate in.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { PASSWORD, anonymousPage, call, newAccount, newGame, screenshot, setup, signedInPage } from './harness.mjs';

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
    await page.getByRole('button', { name: 'Send invitation', exact: true }).click();

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

  it('resends an invitation: a new link for the owner, the old one no longer works', async () => {
    const owner = await newAccount(env.server, 'owner');
    const { gameId } = await newGame(env.server, owner, 'Second Chance');
    const email = `late-${Date.now()}@studio.test`;
    const first = await call(env.server, 'POST', `/v1/games/${gameId}/members`, { token: owner.token, body: { email, role: 'editor' } });
    const page = await signedInPage(env.browser, env.server, owner);
    await page.goto(`/games/${gameId}/settings/members`);
    const row = page.getByRole('row', { name: new RegExp(email) });
    await row.waitFor();
    // Active members have no invitation to resend.
    assert.equal(await page.getByRole('row', { name: new RegExp(owner.email) }).getByRole('button', { name: /Resend invitation/ }).count(), 0);

    await row.getByRole('button', { name: `Resend invitation to ${email}` }).click();
    const status = row.getByRole('status').filter({ hasText: `A new invitation for ${email}.` });
    await status.waitFor();
    assert.match(await status.innerText(), /no e-mail was sent/);
    assert.match(await status.innerText(), /earlier invitation link no longer works/);
    const link = await row.getByLabel('Invitation link').innerText();
    assert.notEqual(link, first.invitation_link);
    assert.match(link, new RegExp(`^${env.server.url}/activate\\?token=\\w+$`));
    await screenshot(page, 'settings-members-resent');

    const token = (url) => url.split('token=')[1];
    await assert.rejects(call(env.server, 'POST', '/v1/auth/reset-password', { body: { token: token(first.invitation_link), password: PASSWORD } }));
    await call(env.server, 'POST', '/v1/auth/reset-password', { body: { token: token(link), password: PASSWORD } });
    await page.reload();
    await row.waitFor();
    assert.match(await row.innerText(), /Active/);
    assert.equal(await row.getByRole('button', { name: /Resend invitation/ }).count(), 0);
    await page.context().close();
  });
});
