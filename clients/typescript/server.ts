// The real playtrace binary for the scenario, started by the module every JavaScript suite
// uses (scripts/lib/playtrace-server.mjs): `serve` on port 0 with a store of its own, stopped
// with SIGTERM and its store removed. It is plain JavaScript outside this project, so it is
// loaded by path at run time and typed here by what the scenario uses of it.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// dist/server.js -> the repository root.
const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const shared = pathToFileURL(join(repo, 'scripts/lib/playtrace-server.mjs')).href;

export interface Server {
  url: string;
  log: () => string;
  stop: () => Promise<void>;
}

export async function startPlaytrace(): Promise<Server> {
  const { startPlaytrace: start } = (await import(shared)) as {
    startPlaytrace: () => Promise<Server>;
  };
  return start();
}
