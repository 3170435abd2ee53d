// Serves the example game (this folder) and the built SDK (../dist, at /sdk/) on
// http://127.0.0.1:5180 (PORT to change it). Run `npm run build` first. The game's page talks
// to the playtrace node named in its form, which must allow this origin (the game's
// `allowed_origins` in the dashboard's settings).
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { dirname, extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const roots = { '/sdk/': resolve(here, '../dist'), '/': here };
const types = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.svg': 'image/svg+xml' };

/** Starts the server on `port` (0 for any free one); answers the http.Server. */
export function serveExample(port = 5180) {
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const prefix = Object.keys(roots).find((p) => path.startsWith(p));
    const root = roots[prefix];
    const file = normalize(join(root, path.slice(prefix.length) || 'index.html'));
    if (!file.startsWith(root)) return void res.writeHead(403).end();
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-cache' });
      res.end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  return new Promise((ok) => server.listen(port, '127.0.0.1', () => ok(server)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const server = await serveExample(Number(process.env.PORT ?? 5180));
  console.log(`example game on http://127.0.0.1:${server.address().port}/`);
}
