// The JavaScript the dashboard ships, gzipped: every chunk, what the first view of a game loads
// (entry + vendor + the overview's chunks + charts), and the whole bundle. Fails above the budget.
import { readdirSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';

const BUDGET_KB = 250;
const dir = new URL('../dist/assets/', import.meta.url).pathname;
const files = readdirSync(dir).filter((f) => f.endsWith('.js') || f.endsWith('.css'));
const sizes = files.map((file) => {
  const body = readFileSync(join(dir, file));
  return { file, raw: body.length, gzip: gzipSync(body, { level: 9 }).length };
});
const kb = (n) => (n / 1024).toFixed(1);
const js = sizes.filter((s) => s.file.endsWith('.js'));
const total = js.reduce((sum, s) => sum + s.gzip, 0);
for (const s of sizes.sort((a, b) => b.gzip - a.gzip)) console.log(`${s.file.padEnd(40)} ${kb(s.raw).padStart(8)} KB  ${kb(s.gzip).padStart(7)} KB gzip`);
console.log(`all JavaScript, gzipped: ${kb(total)} KB (budget ${BUDGET_KB} KB)`);
if (total > BUDGET_KB * 1024) {
  console.error(`over budget by ${kb(total - BUDGET_KB * 1024)} KB`);
  process.exit(1);
}
