// The real playtrace binary for the scenario, started the way the JavaScript suites start it
// (scripts/lib/playtrace-server.mjs): `serve` on port 0 with a SQLite file in a temporary
// folder, ready once it prints where it listens; stopped with SIGTERM and its folder removed.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// dist/server.js -> the repository root.
const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const BINARY = process.env.PLAYTRACE_BIN ?? join(repo, 'target/debug/playtrace');

export interface Server {
  url: string;
  log: () => string;
  stop: () => Promise<void>;
}

export async function startPlaytrace(): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), 'pt-client-ts-'));
  const database = `sqlite://${join(dir, 'playtrace.db')}?mode=rwc`;
  const child = spawn(BINARY, ['serve', '--listen', '127.0.0.1:0', '--database-url', database], {
    env: { ...process.env, RUST_LOG: 'warn,playtrace=info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const exited = new Promise<void>((ok) => child.on('exit', () => ok()));
  const url = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`playtrace did not start:\n${log}`)), 30_000);
    const read = (chunk: Buffer) => {
      log += chunk.toString();
      const found = /playtrace listening on (http:\/\/[\d.]+:\d+)/.exec(log);
      if (found) {
        clearTimeout(timer);
        ok(found[1]);
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('error', (error) => fail(error));
    child.on('exit', (code) => fail(new Error(`playtrace exited (${code}):\n${log}`)));
  });
  return {
    url,
    log: () => log,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
