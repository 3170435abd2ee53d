// The Node build in a process of its own, as a game or a tool runs it: what keeps the process
// alive (a call the game made, until it settles) and what does not (the client's own timers),
// and many clients in one process. Each test runs a small script in a child Node process and
// reads its exit code, its output and the queue files it leaves.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { newGame } from '../../../../scripts/lib/playtrace-server.mjs';
import { call, serverFor } from './setup.mjs';

const SDK = new URL('../../dist/node.js', import.meta.url).href;

/** Runs `body` as an ES module after `import * as sdk`; answers { code, stdout, stderr, ms }. */
function runNode(body, { timeoutMs = 30_000 } = {}) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(process.execPath, ['--input-type=module', '-e', `import * as sdk from ${JSON.stringify(SDK)};\n${body}`], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the child process did not exit in ${timeoutMs} ms:\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** What a queue folder holds: the key's `events` and `scores` files, parsed. */
function queueFiles(dir) {
  const found = {};
  for (const name of readdirSync(dir)) {
    const kind = /\.(events|scores)\.json$/.exec(name)?.[1];
    if (kind) found[kind] = JSON.parse(readFileSync(join(dir, name), 'utf8') || 'null');
  }
  return found;
}

describe('the Node build in a process of its own', () => {
  const env = serverFor({ before, after });
  const folders = [];
  after(() => folders.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  const folder = () => {
    const dir = mkdtempSync(join(tmpdir(), 'pt-sdk-process-'));
    folders.push(dir);
    return dir;
  };

  it('keeps the process alive for an awaited score the throttle holds, until it is stored', async () => {
    const { key } = await newGame(env.server, env.studio, 'Throttled');
    const dir = folder();
    const child = await runNode(`
      const client = sdk.init({ baseUrl: ${JSON.stringify(env.server.url)}, apiKey: ${JSON.stringify(key)}, playerId: 'ann', storage: sdk.fileStorage(${JSON.stringify(dir)}) });
      const first = await client.submitScore('stars', 10);
      const second = await client.submitScore('stars', 11);
      console.log(JSON.stringify([first.score, second.score, second.updated]));
    `);
    assert.equal(child.code, 0, `exit code ${child.code} (13 is an unsettled top-level await)\n${child.stderr}`);
    assert.deepEqual(JSON.parse(child.stdout), [10, 11, true]);
    assert.ok(child.ms >= 4_000, `the second score waited for the 5-second window (${child.ms} ms)`);
    const board = await call(env.server, 'GET', '/v1/leaderboards/stars', { key });
    assert.deepEqual(board.entries.map((e) => [e.player_id, e.score]), [['ann', 11]]);
    assert.deepEqual(queueFiles(dir).scores, [], 'no score left in the queue file');
  });

  it('does not keep the process alive for queued events and the heartbeat, and keeps the events', async () => {
    const { key } = await newGame(env.server, env.studio, 'Quitter');
    const dir = folder();
    const child = await runNode(`
      const client = sdk.init({ baseUrl: ${JSON.stringify(env.server.url)}, apiKey: ${JSON.stringify(key)}, playerId: 'ann', storage: sdk.fileStorage(${JSON.stringify(dir)}), flushIntervalMs: 60_000 });
      await client.setActivity('menu');
      client.track('level_start', { level: 1 });
      client.track('level_start', { level: 2 });
    `);
    assert.equal(child.code, 0, child.stderr);
    assert.ok(child.ms < 10_000, `exited without waiting for the batch timer or the heartbeat (${child.ms} ms)`);
    assert.deepEqual(queueFiles(dir).events.events.map((e) => e.properties.level), [1, 2], 'written to the queue file at exit');
  });

  it('runs twenty clients in one process without a MaxListenersExceededWarning, each written at exit', async () => {
    const dirs = Array.from({ length: 20 }, folder);
    const child = await runNode(`
      const dirs = ${JSON.stringify(dirs)};
      const clients = dirs.map((dir, i) => sdk.init({ baseUrl: 'http://127.0.0.1:9', apiKey: 'pt_key_' + i, playerId: 'ann', storage: sdk.fileStorage(dir), flushIntervalMs: 60_000 }));
      clients.forEach((client, i) => client.track('started', { client: i }));
      // A closed client lets go of the process's exit listener; the others keep theirs.
      await clients[0].close();
    `);
    assert.equal(child.code, 0, child.stderr);
    assert.doesNotMatch(child.stderr, /MaxListenersExceededWarning|memory leak/);
    assert.equal(child.stderr, '');
    dirs.forEach((dir, i) => {
      assert.deepEqual(queueFiles(dir).events.events.map((e) => e.properties.client), [i], `client ${i}'s event in its queue file`);
    });
  });
});
