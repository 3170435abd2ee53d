// The real playtrace binary for the JavaScript test suites (the dashboard's browser tests and
// the TypeScript SDK's tests): started on port 0 with a store of its own, a temporary SQLite
// file (embedded), or a new PostgreSQL database and Redis prefix when PLAYTRACE_E2E_BACKEND is
// `services`. No dependencies beyond Node.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export const BACKEND = process.env.PLAYTRACE_E2E_BACKEND ?? 'embedded';
const BINARY = process.env.PLAYTRACE_BIN ?? join(repo, 'target/debug/playtrace');
const PG_URL = process.env.PLAYTRACE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432';
const REDIS_URL = process.env.PLAYTRACE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const PASSWORD = 'correct horse battery';

export const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

/**
 * Starts the binary with `args` after `serve`. Answers { url, port, log(), stop(), restart() }:
 * `stop` ends it and drops its store; `halt` ends it and keeps the store; `restart` starts it
 * again on the same port and store (after `halt`).
 */
export async function startPlaytrace(args = []) {
  const dir = mkdtempSync(join(tmpdir(), 'pt-js-'));
  const store = [];
  let database = null;
  if (BACKEND === 'services') {
    database = `pt_e2e_${randomBytes(6).toString('hex')}`;
    const made = spawnSync('psql', [`${PG_URL}/postgres`, '-qc', `CREATE DATABASE ${database}`], { encoding: 'utf8' });
    if (made.status !== 0) throw new Error(`cannot create the PostgreSQL database: ${made.stderr}`);
    // Without TLS, as the local server runs: sqlx otherwise asks for TLS first, which costs
    // each new connection about 90 ms over TCP (docs/testing.md).
    store.push('--database-url', `${PG_URL}/${database}?sslmode=disable`, '--redis-url', REDIS_URL, '--redis-prefix', `${database}:`);
  } else {
    store.push('--database-url', `sqlite://${join(dir, 'playtrace.db')}?mode=rwc`);
  }
  let child = null;
  let log = '';
  const launch = (listen) =>
    new Promise((ok, fail) => {
      child = spawn(BINARY, ['serve', '--listen', listen, ...store, ...args], {
        // Password hashes at a test suite's cost, as in the Rust suite (tests/api/helpers.rs):
        // at OWASP's 19 MiB x 2 passes they were most of these servers' CPU.
        env: {
          PLAYTRACE_PASSWORD_HASH_MEMORY_KIB: '64',
          PLAYTRACE_PASSWORD_HASH_ITERATIONS: '1',
          // Every request comes from 127.0.0.1: the per-client throttles (tested in the Rust
          // suite, tests/api/lockout.rs) would count every test's accounts and guesses as one
          // client's.
          PLAYTRACE_REGISTRATIONS_PER_HOUR: '10000',
          PLAYTRACE_SIGN_IN_FAILURES_PER_CLIENT: '10000',
          ...process.env,
          RUST_LOG: 'warn,playtrace=info',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const timer = setTimeout(() => fail(new Error(`playtrace did not start:\n${log}`)), 30_000);
      let seen = '';
      const read = (chunk) => {
        log += chunk.toString();
        seen += chunk.toString();
        const found = /playtrace listening on (http:\/\/[\d.]+:\d+)/.exec(seen);
        if (found) {
          clearTimeout(timer);
          ok(found[1]);
        }
      };
      child.stdout.on('data', read);
      child.stderr.on('data', read);
      child.on('exit', (code) => fail(new Error(`playtrace exited (${code}):\n${log}`)));
    });
  const halt = async () => {
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((ok) => child.on('exit', ok));
    child.kill('SIGTERM');
    await exited;
  };
  const url = await launch('127.0.0.1:0');
  const port = Number(new URL(url).port);
  return {
    url,
    port,
    log: () => log,
    halt,
    async restart() {
      await halt();
      await launch(`127.0.0.1:${port}`);
    },
    async stop() {
      await halt();
      rmSync(dir, { recursive: true, force: true });
      if (database) spawnSync('psql', [`${PG_URL}/postgres`, '-qc', `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`]);
    },
  };
}

/**
 * One JSON request to the API; throws with the answer when the status is not 2xx. A 503
 * ("retry later": a loaded node shed the request and stored nothing) is sent again, as a
 * client does, up to five times 200 ms apart.
 */
export async function call(server, method, path, { token, key, body } = {}) {
  const headers = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  if (key) headers['x-game-api-key'] = key;
  for (let attempt = 1; ; attempt++) {
    const response = await fetch(server.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    if (response.status === 503 && attempt < 5) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      continue;
    }
    const json = text ? JSON.parse(text) : null;
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
    return json;
  }
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
