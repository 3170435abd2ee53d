// Where the client keeps what must survive a restart: the event queue, scores not yet sent,
// the quota pause and the last remote config.

/**
 * A key-value store of strings. Both methods may answer a promise. localStorage fits as it
 * is; a game engine's own save API fits through a three-line adapter.
 */
export interface StorageAdapter {
  getItem(key: string): string | null | undefined | Promise<string | null | undefined>;
  setItem(key: string, value: string): void | Promise<void>;
  removeItem?(key: string): void | Promise<void>;
}

/** Keeps nothing across restarts: for tests and for games that opt out. */
export function memoryStorage(): StorageAdapter {
  const values = new Map<string, string>();
  return {
    getItem: (key) => values.get(key) ?? null,
    setItem: (key, value) => void values.set(key, value),
    removeItem: (key) => void values.delete(key),
  };
}

/** The browser's localStorage when there is one (not in Node, nor in a sandboxed frame). */
export function browserStorage(): StorageAdapter | undefined {
  try {
    const storage = (globalThis as { localStorage?: Storage }).localStorage;
    if (!storage) return undefined;
    const probe = '__playtrace_probe__';
    storage.setItem(probe, '1');
    storage.removeItem(probe);
    return storage;
  } catch {
    return undefined;
  }
}

/** A short stable name for one game key on one server, so two games never share a queue. */
export function storageName(baseUrl: string, apiKey: string): string {
  // FNV-1a, 32 bits: the key itself is never written to storage.
  let hash = 0x811c9dc5;
  for (const char of `${baseUrl}\n${apiKey}`) {
    hash ^= char.codePointAt(0)!;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `playtrace.${hash.toString(16).padStart(8, '0')}`;
}
