// The SDK's side of scripts/bench-sdk: drives one client (the Node build, its queue in a file)
// against a running node and prints RESULT lines.
//   node scripts/bench.mjs deliver <baseUrl> <key> <events>   events/s stored by one client
//   node scripts/bench.mjs track <baseUrl> <key> <calls>      cost of track() on the caller's thread
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileStorage, init } from '../dist/node.js';

const [mode, baseUrl, apiKey, countText] = process.argv.slice(2);
const count = Number(countText);
const dir = mkdtempSync(join(tmpdir(), 'pt-sdk-bench-'));
const problems = [];
const client = init({ baseUrl, apiKey, playerId: 'bench-player', storage: fileStorage(dir), onError: (p) => problems.push(p.kind) });
await client.ready();
const properties = (i) => ({ level: i % 30, score: i * 37, mode: 'ranked' });

if (mode === 'deliver') {
  // Tracks as fast as the queue drains (never more than 2,000 ahead, so nothing is dropped),
  // then flushes: the time until the last event is committed.
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    client.track('level_complete', properties(i));
    while (client.stats().queued > 2_000) await new Promise((done) => setTimeout(done, 1));
  }
  const stats = await client.flush();
  const seconds = (performance.now() - started) / 1000;
  if (stats.queued !== 0 || stats.sent !== count) throw new Error(`not all sent: ${JSON.stringify(stats)} ${problems}`);
  console.log(`RESULT events_per_sec=${(count / seconds).toFixed(1)} seconds=${seconds.toFixed(2)}`);
} else if (mode === 'track') {
  // track() in bursts of 100 between awaits, as a game tracks during its frames; the queue is
  // sent meanwhile. Reports the mean cost of one call.
  let spent = 0;
  for (let done = 0; done < count; done += 100) {
    const started = performance.now();
    for (let i = 0; i < 100; i++) client.track('level_complete', properties(done + i));
    spent += performance.now() - started;
    await new Promise((ok) => setImmediate(ok));
    while (client.stats().queued > 2_000) await new Promise((ok) => setTimeout(ok, 1));
  }
  await client.flush();
  console.log(`RESULT us_per_track=${((spent * 1000) / count).toFixed(2)}`);
} else {
  throw new Error(`unknown mode ${mode}`);
}
await client.close();
rmSync(dir, { recursive: true, force: true });
