// What every end-to-end test needs: the real playtrace binary on a fresh store (embedded, or
// PostgreSQL + Redis when PLAYTRACE_E2E_BACKEND=services), a real SMTP sink for its mail,
// Debian's Chromium driven by playwright-core, and short-cuts to set data up through the API.
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SMTPServer } from 'smtp-server';
import { chromium } from 'playwright-core';
import { BACKEND, PASSWORD, sleep, startPlaytrace } from '../../scripts/lib/playtrace-server.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '../..');

export { BACKEND, PASSWORD, sleep };
export { call, newAccount, newGame } from '../../scripts/lib/playtrace-server.mjs';
export const SCREENSHOTS = join(repo, 'target/dashboard-screenshots');

/** A real SMTP server on a free port keeping every message it receives. */
export async function startMailSink() {
  const messages = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (chunk) => (raw += chunk.toString('utf8')));
      stream.on('end', () => {
        messages.push({ to: session.envelope.rcptTo.map((r) => r.address), raw: decodeMail(raw) });
        callback();
      });
    },
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    port: server.server.address().port,
    messages,
    /** The first message to `to` whose text matches `pattern`, waiting up to 10 s. */
    async waitFor(to, pattern = /./) {
      for (let i = 0; i < 100; i++) {
        const found = messages.find((m) => m.to.includes(to) && pattern.test(m.raw));
        if (found) return found.raw;
        await sleep(100);
      }
      throw new Error(`no mail to ${to} matching ${pattern}`);
    },
    close: () => new Promise((ok) => server.close(ok)),
  };
}

/** The readable text of a mail: soft line breaks of quoted-printable undone. */
function decodeMail(raw) {
  return raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
}

/**
 * The binary on port 0 with its own store (see scripts/lib/playtrace-server.mjs) and a real
 * SMTP sink for its mail (none with `{ smtp: false }`: the server then only logs its mail).
 * Answers { url, mail, log(), stop() }.
 */
export async function startServer(extraArgs = [], { smtp = true } = {}) {
  const mail = smtp ? await startMailSink() : null;
  const args = [...(mail ? ['--smtp-url', `smtp://127.0.0.1:${mail.port}`] : []), '--allow-private-webhooks', ...extraArgs];
  if (process.env.PLAYTRACE_DASHBOARD_DIR) args.push('--dashboard-dir', process.env.PLAYTRACE_DASHBOARD_DIR);
  const server = await startPlaytrace(args);
  return {
    url: server.url,
    mail,
    log: server.log,
    async stop() {
      await server.stop();
      await mail?.close();
    },
  };
}

/** Debian's Chromium, headless, as the machine allows it. */
export function launchBrowser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'],
  });
}

/** A browser page signed in as `account` (its token put where the dashboard keeps it). */
export async function signedInPage(browser, server, account, viewport = { width: 1280, height: 800 }) {
  const context = await browser.newContext({ baseURL: server.url, viewport });
  await context.addInitScript((token) => localStorage.setItem('playtrace.token', token), account.token);
  const page = await context.newPage();
  return page;
}

/** A page with nobody signed in. */
export async function anonymousPage(browser, server, viewport = { width: 1280, height: 800 }) {
  const context = await browser.newContext({ baseURL: server.url, viewport });
  return context.newPage();
}

/** Saves a screenshot of the page as target/dashboard-screenshots/<backend>-<name>.png. */
export async function screenshot(page, name) {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${BACKEND}-${name}.png`), fullPage: true });
}

/**
 * The usual frame of a test file: a server and a browser before its tests, both stopped
 * after. Answers an object whose fields are filled in once `before` ran.
 */
export function setup(hooks, extraArgs = [], options = {}) {
  const env = {};
  hooks.before(async () => {
    env.server = await startServer(extraArgs, options);
    env.browser = await launchBrowser();
  });
  hooks.after(async () => {
    await env.browser?.close();
    await env.server?.stop();
  });
  return env;
}
