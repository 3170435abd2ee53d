// After `vite build`: a brotli (.br) and a gzip (.gz) copy of every text file in dist/, so a
// node answers compressed files straight from memory instead of compressing on each request.
// Deterministic (fixed levels, no timestamps), so the checked-in dist/ stays reproducible.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const dist = new URL('../dist/', import.meta.url).pathname;
const TEXT = /\.(js|css|html|svg|json|txt)$/;

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

for (const path of walk(dist).filter((p) => TEXT.test(p))) {
  const body = readFileSync(path);
  if (body.length < 512) continue;
  writeFileSync(`${path}.br`, brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
  writeFileSync(`${path}.gz`, gzipSync(body, { level: 9 }));
}
