// How fast the first view of a game paints: a signed-in browser opens /games/{id} on a node
// (its URL, token and game from the environment) and reports, per run, first contentful paint
// and the time until the overview's charts have their figures, beside the same browser loading
// /healthz (the baseline: a navigation with no app at all). Prints medians as JSON.
import { chromium } from 'playwright-core';

const { BENCH_URL, BENCH_TOKEN, BENCH_GAME } = process.env;
const RUNS = Number(process.env.PAINT_RUNS ?? 7);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'],
});
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const runs = { baseline: [], fcp: [], ready: [], js: [] };
try {
  for (let run = 0; run < RUNS; run++) {
    // A new context each run: a cold cache, as a first visit.
    const context = await browser.newContext({ baseURL: BENCH_URL, viewport: { width: 1280, height: 800 } });
    await context.addInitScript((token) => localStorage.setItem('playtrace.token', token), BENCH_TOKEN);
    const page = await context.newPage();
    let start = Date.now();
    await page.goto('/healthz', { waitUntil: 'load' });
    runs.baseline.push(Date.now() - start);

    start = Date.now();
    await page.goto(`/games/${BENCH_GAME}`, { waitUntil: 'commit' });
    await page.getByText('Show figures').first().waitFor({ timeout: 10_000 });
    runs.ready.push(Date.now() - start);
    const fcp = await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1);
    runs.fcp.push(Math.round(fcp));
    // Bytes of JavaScript on the wire (compressed) for this first view.
    const jsBytes = await page.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .filter((entry) => entry.name.endsWith('.js'))
        .reduce((sum, entry) => sum + entry.transferSize, 0),
    );
    runs.js.push(jsBytes);
    await context.close();
  }
} finally {
  await browser.close();
}
console.log(
  JSON.stringify({
    runs: RUNS,
    baseline_ms: median(runs.baseline),
    first_contentful_paint_ms: median(runs.fcp),
    overview_ready_ms: median(runs.ready),
    js_transferred_bytes: median(runs.js),
  }),
);
