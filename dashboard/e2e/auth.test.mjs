// Signing up, in and out, forgotten passwords, invitations, and the refusals a person can meet.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { anonymousPage, call, newAccount, newGame, PASSWORD, screenshot, setup, signedInPage } from './harness.mjs';

describe('accounts', () => {
  const env = setup({ before, after });

  it('registers, lands on an empty games list, signs out and back in', async () => {
    const page = await anonymousPage(env.browser, env.server);
    await page.goto('/');
    // Signed out, any page leads to sign in.
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await screenshot(page, 'sign-in');
    await page.getByRole('link', { name: 'Create an account' }).click();
    // The sign-in form has an E-mail field too: fill only once the new form is there (a fill
    // that landed on the old one left the new one empty in a loaded CI run).
    await page.getByRole('heading', { name: 'Create your account' }).waitFor();
    const email = `owner-${Date.now()}@studio.test`;
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    // The browser's own check holds the form back; a long enough password goes through.
    await page.getByLabel('Password').fill(PASSWORD);
    await screenshot(page, 'register');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Games', exact: true }).waitFor();
    await page.getByText('No games yet').waitFor();
    assert.ok(await page.getByText(email).isVisible());

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill('wrong password!');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Invalid email or password' }).waitFor();
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Games', exact: true }).waitFor();
  });

  it('shows the API error when registering a taken e-mail', async () => {
    const taken = await newAccount(env.server);
    const page = await anonymousPage(env.browser, env.server);
    await page.goto('/register');
    await page.getByLabel('E-mail').fill(taken.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.innerText(), /already/i);
  });

  it('resets a forgotten password through the e-mailed link', async () => {
    const account = await newAccount(env.server);
    const page = await anonymousPage(env.browser, env.server);
    await page.goto('/sign-in');
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
    await page.getByLabel('E-mail').fill(account.email);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await page.getByText(`If an account exists for ${account.email}`).waitFor();
    await screenshot(page, 'forgot-password');

    const mail = await env.server.mail.waitFor(account.email, /reset-password\?token=/);
    const link = /(http:\/\/\S+\/reset-password\?token=[\w-]+)/.exec(mail)[1];
    assert.ok(link.startsWith(env.server.url), link);
    await page.goto(link);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await page.getByLabel('New password').fill('a brand new password');
    await page.getByLabel('Repeat the password').fill('not the same password');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByText('The two passwords are not the same.').waitFor();
    await page.getByLabel('Repeat the password').fill('a brand new password');
    await screenshot(page, 'reset-password');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByText('Your password is set. Sign in with it.').waitFor();
    await page.getByLabel('E-mail').fill(account.email);
    await page.getByLabel('Password').fill('a brand new password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Games', exact: true }).waitFor();

    // The link works once.
    await page.goto(link);
    await page.getByLabel('New password').fill('yet another password');
    await page.getByLabel('Repeat the password').fill('yet another password');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByRole('alert').waitFor();
  });

  it('activates an invited teammate, who is refused like anyone with a wrong password until then', async () => {
    const owner = await newAccount(env.server);
    const { gameId } = await newGame(env.server, owner, 'Invite Quest');
    const email = `teammate-${Date.now()}@studio.test`;
    await call(env.server, 'POST', `/v1/games/${gameId}/members`, { token: owner.token, body: { email, role: 'editor' } });

    const page = await anonymousPage(env.browser, env.server);
    await page.goto('/sign-in');
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // A pending account answers a guess as an unknown address does (no invitation is revealed).
    await page.getByText('Invalid email or password').waitFor();

    const mail = await env.server.mail.waitFor(email, /activate\?token=/);
    const link = /(http:\/\/\S+\/activate\?token=[\w-]+)/.exec(mail)[1];
    await page.goto(link);
    await page.getByRole('heading', { name: 'Activate your account' }).waitFor();
    await screenshot(page, 'activate');
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByLabel('Repeat the password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Activate account' }).click();
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Invite Quest' }).waitFor();
  });

  it('says in words that an account is locked', async () => {
    const account = await newAccount(env.server);
    for (let i = 0; i < 5; i++) {
      await fetch(`${env.server.url}/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: account.email, password: 'wrong password' }),
      });
    }
    const page = await anonymousPage(env.browser, env.server);
    await page.goto('/sign-in');
    await page.getByLabel('E-mail').fill(account.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('This account is locked after too many failed sign-in attempts.').waitFor();
  });

  it('sends a user whose token is refused back to sign in, then to the page they wanted', async () => {
    const account = await newAccount(env.server);
    const { gameId } = await newGame(env.server, account);
    const page = await signedInPage(env.browser, env.server, { token: 'not-a-valid-token' });
    await page.goto(`/games/${gameId}/settings`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByText('Your session has expired. Please sign in again.').waitFor();
    await page.getByLabel('E-mail').fill(account.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`**/games/${gameId}/settings`);
  });
});
