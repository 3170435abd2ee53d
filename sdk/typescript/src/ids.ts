// Unique ids for events and sessions.

function randomBytes(count: number): Uint8Array {
  const bytes = new Uint8Array(count);
  const crypto = globalThis.crypto;
  if (crypto?.getRandomValues) crypto.getRandomValues(bytes);
  else for (let i = 0; i < count; i++) bytes[i] = Math.floor(Math.random() * 256);
  return bytes;
}

function format(bytes: Uint8Array): string {
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A random UUID (v4), also where crypto.randomUUID is missing (plain-HTTP pages). */
export function uuid(): string {
  const crypto = globalThis.crypto;
  if (crypto?.randomUUID) return crypto.randomUUID();
  const bytes = randomBytes(16);
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  return format(bytes);
}

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));
/** Random bytes drawn in bulk: one getRandomValues call per 409 event ids. */
let pool: Uint8Array = new Uint8Array(0);
let taken = 0;

function random10(): number {
  if (taken + 10 > pool.length) {
    pool = randomBytes(4090);
    taken = 0;
  }
  taken += 10;
  return taken - 10;
}

/**
 * A time-ordered UUID (v7: milliseconds since the epoch, then 74 random bits) for event ids.
 * Ids made one after another sort one after another, so the service's unique index on them
 * grows at its end instead of at random places (random v4 ids made a batch about twice as
 * slow to store on SQLite, and slower as the table grew).
 */
export function eventId(now: number): string {
  const time = Math.max(0, Math.floor(now)).toString(16).padStart(12, '0').slice(-12);
  const at = random10();
  const r = pool;
  return (
    `${time.slice(0, 8)}-${time.slice(8)}-${HEX[0x70 | (r[at] & 0x0f)]}${HEX[r[at + 1]]}-` +
    `${HEX[0x80 | (r[at + 2] & 0x3f)]}${HEX[r[at + 3]]}-` +
    `${HEX[r[at + 4]]}${HEX[r[at + 5]]}${HEX[r[at + 6]]}${HEX[r[at + 7]]}${HEX[r[at + 8]]}${HEX[r[at + 9]]}`
  );
}
