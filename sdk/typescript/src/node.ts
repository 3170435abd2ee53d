// @playtrace/sdk in Node (and Electron's main process): the same client, its queue kept in a
// file by default so that events survive a restart.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Playtrace, type PlaytraceOptions } from './client.js';
import type { StorageAdapter } from './storage.js';

/**
 * Keeps each key in its own JSON file under `dir` (default `~/.playtrace`). A write goes to a
 * temporary file first and is then renamed over the old one, so a crash never leaves half a file.
 */
export function fileStorage(dir: string = defaultDir()): StorageAdapter {
  const file = (key: string) => join(dir, `${key.replace(/[^A-Za-z0-9._-]/g, '_')}.json`);
  return {
    getItem(key) {
      try {
        return readFileSync(file(key), 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
    },
    setItem(key, value) {
      const path = file(key);
      mkdirSync(dirname(path), { recursive: true });
      const temporary = `${path}.${process.pid}.tmp`;
      writeFileSync(temporary, value);
      renameSync(temporary, path);
    },
    removeItem(key) {
      try {
        writeFileSync(file(key), '');
      } catch {
        // Nothing to remove.
      }
    },
  };
}

function defaultDir(): string {
  try {
    return join(homedir(), '.playtrace');
  } catch {
    return join(tmpdir(), 'playtrace');
  }
}

/** A client for one game key; its queue is kept in a file (see fileStorage) unless told otherwise. */
export function init(options: PlaytraceOptions): Playtrace {
  return new Playtrace({ ...options, storage: options.storage ?? fileStorage() });
}

export * from './index.js';
