// One HTTP request to the service: headers, JSON, a timeout, and errors as values a caller can
// tell apart (an answer with a status, or no answer at all).
import { retryAfterMs } from './backoff.js';
import { NetworkError, PlaytraceError } from './errors.js';

export type Fetch = typeof globalThis.fetch;

export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
  fetch?: Fetch;
  /** Give up on a request after this many ms (default 10,000). */
  timeoutMs?: number;
}

export interface RequestOptions {
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined>;
  headers?: Record<string, string>;
  /** Let the request outlive the page (browsers; the body must stay under 64 KiB). */
  keepalive?: boolean;
  /** Without the player token (the sign-in routes set theirs themselves). */
  bare?: boolean;
}

/** Where the player token comes from, when the game signs its players in. */
export interface TokenSource {
  get(): Promise<string>;
  /** The token held now, without waiting. */
  current(): string | undefined;
  refused(token: string): void;
}

export interface Answer<T> {
  status: number;
  headers: Headers;
  body: T;
}

export class Transport {
  readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly fetch: Fetch;
  private readonly timeoutMs: number;
  /** Set by the client when the game signs its players in. */
  tokens?: TokenSource;

  constructor(options: TransportOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.apiKey = options.apiKey;
    const fetch = options.fetch ?? globalThis.fetch;
    if (!fetch) throw new Error('playtrace needs fetch (Node 18 or later, or any browser); pass one in init({ fetch })');
    this.fetch = fetch.bind(globalThis);
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  /**
   * Sends the request. Answers 2xx and 304 (and any status listed in `accept`); throws
   * PlaytraceError for other statuses and NetworkError when no answer came.
   */
  async request<T>(method: string, path: string, options: RequestOptions = {}, accept: number[] = []): Promise<Answer<T>> {
    if (!this.tokens || options.bare) return this.exchange<T>(method, path, options, accept);
    // With player identity: the token beside the key; one that has just expired or been
    // refused is replaced (signing in again) and the request sent once more.
    const token = options.keepalive ? this.tokens.current() : await this.tokens.get();
    const withToken = (value: string | undefined) => ({ ...options, headers: { ...options.headers, ...(value ? { 'x-player-token': value } : {}) } });
    try {
      return await this.exchange<T>(method, path, withToken(token), accept);
    } catch (error) {
      const stale = error instanceof PlaytraceError && error.status === 401 && /token/i.test(error.body.error ?? '');
      if (!stale || !token || options.keepalive) throw error;
      this.tokens.refused(token);
      return this.exchange<T>(method, path, withToken(await this.tokens.get()), accept);
    }
  }

  private async exchange<T>(method: string, path: string, options: RequestOptions, accept: number[]): Promise<Answer<T>> {
    const headers: Record<string, string> = { 'x-game-api-key': this.apiKey, ...options.headers };
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    // The timeout covers the whole exchange, the answer's body included.
    const controller = typeof AbortController === 'function' ? new AbortController() : undefined;
    const timer = controller ? setTimeout(() => controller.abort(), this.timeoutMs) : undefined;
    (timer as { unref?: () => void } | undefined)?.unref?.();
    let response: Response;
    let text: string;
    try {
      try {
        response = await this.fetch(this.baseUrl + path + queryString(options.query), {
          method,
          headers,
          body,
          keepalive: options.keepalive,
          signal: controller?.signal,
        });
      } catch (cause) {
        throw new NetworkError(`could not reach ${this.baseUrl}: ${(cause as Error)?.message ?? cause}`, { cause });
      }
      try {
        text = await response.text();
      } catch (cause) {
        throw new NetworkError(`the answer from ${this.baseUrl} was cut off`, { cause });
      }
    } finally {
      if (timer !== undefined) clearTimeout(timer);
    }
    let parsed: unknown = null;
    if (text) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = { error: text.slice(0, 200) };
      }
    }
    const ok = (response.status >= 200 && response.status < 300) || response.status === 304 || accept.includes(response.status);
    if (!ok) {
      const wait = retryAfterMs(response.headers.get('retry-after'), Date.now());
      throw new PlaytraceError(response.status, parsed, wait === undefined ? undefined : wait / 1000);
    }
    return { status: response.status, headers: response.headers, body: parsed as T };
  }
}

function queryString(query: RequestOptions['query']): string {
  if (!query) return '';
  const pairs = Object.entries(query).filter(([, value]) => value !== undefined);
  if (pairs.length === 0) return '';
  return '?' + pairs.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`).join('&');
}

/** A path segment, escaped. */
export function segment(value: string): string {
  return encodeURIComponent(value);
}
