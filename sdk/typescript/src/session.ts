// Player identity (games whose `player_auth` is `optional` or `required`): the client signs
// its player in (with a device id it makes once and keeps, or a custom id the studio's backend
// signed), sends the player token with every request, refreshes it before it expires, and
// signs in again when the service says it expired.
import type { Clock } from './clock.js';
import { PlaytraceError } from './errors.js';
import { uuid } from './ids.js';
import type { StorageAdapter } from './storage.js';
import type { Transport } from './transport.js';

/** Who the player is, as `POST /v1/players/auth` takes it. */
export type PlayerIdentity =
  | { deviceId: string }
  /** Signed by the studio's backend: hex HMAC-SHA256 of `"<customId>:<timestamp>"` under the game's player secret. */
  | { customId: string; timestamp: number; signature: string };

/**
 * How the client signs its player in: `'device'` (a random device id made once and kept in
 * storage), an identity, or a function answering one (called at each sign-in, e.g. to fetch a
 * fresh signature from the studio's backend).
 */
export type PlayerAuth = 'device' | PlayerIdentity | (() => PlayerIdentity | Promise<PlayerIdentity>);

interface SessionAnswer {
  token: string;
  player_id: string;
  expires_at: string;
  expires_in: number;
  created: boolean;
}

/** Refresh a token this long before it expires. */
const REFRESH_MARGIN_MS = 5 * 60_000;

export class PlayerSession {
  private token?: { value: string; expiresAt: number };
  private pending?: Promise<string>;

  constructor(
    private readonly transport: Transport,
    private readonly storage: StorageAdapter,
    private readonly deviceKey: string,
    private readonly clock: Clock,
    private readonly auth: PlayerAuth,
    private readonly onPlayer: (playerId: string) => void,
  ) {}

  /** The token as it is now, without waiting (for a page's last keepalive request). */
  current(): string | undefined {
    return this.token && this.token.expiresAt > this.clock.now() ? this.token.value : undefined;
  }

  /** A valid token: the one held, refreshed when it is about to expire, or a new sign-in. */
  async get(): Promise<string> {
    const held = this.token;
    if (held && held.expiresAt - REFRESH_MARGIN_MS > this.clock.now()) return held.value;
    this.pending ??= this.renew(held).finally(() => (this.pending = undefined));
    return this.pending;
  }

  /** Forgets a token the service refused, so that the next request signs in again. */
  refused(token: string): void {
    if (this.token?.value === token) this.token = undefined;
  }

  /** Signs in now (also to learn the player id before any other call). */
  async signIn(): Promise<string> {
    this.token = undefined;
    return this.get();
  }

  /** Links another identity (an account after a device sign-in) to the signed-in player. */
  async link(identity: PlayerIdentity): Promise<{ player_id: string; linked: boolean }> {
    const token = await this.get();
    const answer = await this.transport.request<{ player_id: string; linked: boolean }>('POST', '/v1/players/link', {
      body: await this.wire(identity),
      headers: { 'x-player-token': token },
      bare: true,
    });
    return answer.body;
  }

  private async renew(held: { value: string; expiresAt: number } | undefined): Promise<string> {
    if (held && held.expiresAt > this.clock.now()) {
      try {
        return this.accept(
          (await this.transport.request<SessionAnswer>('POST', '/v1/players/refresh', { headers: { 'x-player-token': held.value }, bare: true })).body,
        );
      } catch (error) {
        if (!(error instanceof PlaytraceError && error.status === 401)) throw error;
      }
    }
    const identity = await this.identity();
    const answer = await this.transport.request<SessionAnswer>('POST', '/v1/players/auth', { body: await this.wire(identity), bare: true });
    return this.accept(answer.body);
  }

  private accept(answer: SessionAnswer): string {
    this.token = { value: answer.token, expiresAt: this.clock.now() + answer.expires_in * 1000 };
    this.onPlayer(answer.player_id);
    return answer.token;
  }

  private async identity(): Promise<PlayerIdentity> {
    if (this.auth === 'device') return { deviceId: await this.deviceId() };
    return typeof this.auth === 'function' ? this.auth() : this.auth;
  }

  private async wire(identity: PlayerIdentity): Promise<Record<string, unknown>> {
    if ('deviceId' in identity) return { device_id: identity.deviceId };
    return { custom_id: identity.customId, timestamp: identity.timestamp, signature: identity.signature };
  }

  /** This device's id: made once (random, 36 characters), then read from storage. */
  private async deviceId(): Promise<string> {
    const stored = await this.storage.getItem(this.deviceKey);
    if (stored) return stored;
    const made = uuid();
    await this.storage.setItem(this.deviceKey, made);
    return made;
  }
}
