// What every end-to-end test needs: the real playtrace binary on a fresh store (embedded, or
// PostgreSQL + Redis when PLAYTRACE_E2E_BACKEND=services), a real SMTP sink for its mail,
// Debian's Chromium driven by playwright-core, and short-cuts to set data up through the API.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SMTPServer } from 'smtp-server';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '../..');

export const BACKEND = process.env.PLAYTRACE_E2E_BACKEND ?? 'embedded';
const BINARY = process.env.PLAYTRACE_BIN ?? join(repo, 'target/debug/playtrace');
const PG_URL = process.env.PLAYTRACE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432';
const REDIS_URL = process.env.PLAYTRACE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const SCREENSHOTS = join(repo, 'target/dashboard-screenshots');
export const PASSWORD = 'correct horse battery';

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

export const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

/**
 * The binary on port 0 with its own store: a temporary SQLite file, or a new PostgreSQL
 * database and Redis prefix. Answers { url, mail, stop() }.
 */
export async function startServer(extraArgs = []) {
  const mail = await startMailSink();
  const dir = mkdtempSync(join(tmpdir(), 'pt-e2e-'));
  const args = ['serve', '--listen', '127.0.0.1:0', '--smtp-url', `smtp://127.0.0.1:${mail.port}`, '--allow-private-webhooks', ...extraArgs];
  let database = null;
  if (BACKEND === 'services') {
    database = `pt_e2e_${randomBytes(6).toString('hex')}`;
    const made = spawnSync('psql', [`${PG_URL}/postgres`, '-qc', `CREATE DATABASE ${database}`], { encoding: 'utf8' });
    if (made.status !== 0) throw new Error(`cannot create the PostgreSQL database: ${made.stderr}`);
    args.push('--database-url', `${PG_URL}/${database}`, '--redis-url', REDIS_URL, '--redis-prefix', `${database}:`);
  } else {
    args.push('--database-url', `sqlite://${join(dir, 'playtrace.db')}?mode=rwc`);
  }
  if (process.env.PLAYTRACE_DASHBOARD_DIR) args.push('--dashboard-dir', process.env.PLAYTRACE_DASHBOARD_DIR);
  const child = spawn(BINARY, args, { env: { ...process.env, RUST_LOG: 'warn,playtrace=info' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const url = await new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`playtrace did not start:\n${log}`)), 30_000);
    const read = (chunk) => {
      log += chunk.toString();
      const found = /playtrace listening on (http:\/\/[\d.]+:\d+)/.exec(log);
      if (found) {
        clearTimeout(timer);
        ok(found[1]);
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('exit', (code) => fail(new Error(`playtrace exited (${code}):\n${log}`)));
  });
  return {
    url,
    mail,
    log: () => log,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((ok) => (child.exitCode !== null ? ok() : child.on('exit', ok)));
      await mail.close();
      rmSync(dir, { recursive: true, force: true });
      if (database) spawnSync('psql', [`${PG_URL}/postgres`, '-qc', `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`]);
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

/** One JSON request to the API; throws with the answer when the status is not 2xx. */
export async function call(server, method, path, { token, key, body } = {}) {
  const headers = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  if (key) headers['x-game-api-key'] = key;
  const response = await fetch(server.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  const json = text ? JSON.parse(text) : null;
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
  return json;
}

let counter = 0;
/** A new account (the first one on a server is its admin): { email, password, token, user }. */
export async function newAccount(server, name = 'dev') {
  const email = `${name}-${Date.now()}-${counter++}@studio.test`;
  const answer = await call(server, 'POST', '/v1/auth/register', { body: { email, password: PASSWORD } });
  return { email, password: PASSWORD, token: answer.token, user: answer.user };
}

/** A game of `account` with a development API key: { game, gameId, key }. */
export async function newGame(server, account, name = 'Space Miners') {
  const game = await call(server, 'POST', '/v1/games', { token: account.token, body: { name } });
  const key = await call(server, 'POST', `/v1/games/${game.game_id}/api-keys`, { token: account.token, body: { name: 'client', environment: 'development' } });
  return { game, gameId: game.game_id, key: key.key };
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
export function setup(hooks, extraArgs = []) {
  const env = {};
  hooks.before(async () => {
    env.server = await startServer(extraArgs);
    env.browser = await launchBrowser();
  });
  hooks.after(async () => {
    await env.browser?.close();
    await env.server?.stop();
  });
  return env;
}
