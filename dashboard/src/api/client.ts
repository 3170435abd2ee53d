// The dashboard's one way to the API: a client typed from openapi/openapi.json, through the
// types the TypeScript SDK generates from it (`npm run types` in sdk/typescript/ regenerates
// its src/schema.ts; one generated file for both projects). Every call carries the signed-in user's
// token; a 401 on a signed-in call means the token expired or was revoked, which signs out.
import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from '../../../sdk/typescript/src/schema';

export type Schemas = components['schemas'];

const TOKEN_KEY = 'playtrace.token';

export function storedToken(): string | null {
  return localStorage.getItem(TOKEN_KEY);
}

export function storeToken(token: string | null): void {
  if (token) localStorage.setItem(TOKEN_KEY, token);
  else localStorage.removeItem(TOKEN_KEY);
}

/** Fired when the API refuses the stored token; the app sends the user back to sign in. */
export const SESSION_EXPIRED = 'playtrace:session-expired';

const auth: Middleware = {
  onRequest({ request }) {
    const token = storedToken();
    if (token && !request.headers.has('Authorization')) {
      request.headers.set('Authorization', `Bearer ${token}`);
    }
    return request;
  },
  onResponse({ request, response }) {
    if (response.status === 401 && request.headers.has('Authorization')) {
      storeToken(null);
      window.dispatchEvent(new Event(SESSION_EXPIRED));
    }
    return response;
  },
};

export const api = createClient<paths>({ baseUrl: window.location.origin });
api.use(auth);

/** An error answer of the API: its `error` text, status and optional `code`. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code?: string,
    readonly body?: unknown,
  ) {
    super(message);
  }
}

type Result<T> = { data?: T; error?: unknown; response: Response };

/** The data of a successful answer, or an ApiError carrying the API's own `error` text. */
export async function unwrap<T>(call: Promise<Result<T>>): Promise<T> {
  let result: Result<T>;
  try {
    result = await call;
  } catch {
    throw new ApiError('Cannot reach the playtrace server. Check your connection and try again.', 0);
  }
  const { data, error, response } = result;
  if (!response.ok) {
    const body = (error ?? {}) as { error?: string; message?: string; code?: string };
    const text = body.error && body.error !== 'Too Many Requests' ? body.error : body.message;
    throw new ApiError(text ?? `The server answered ${response.status}`, response.status, body.code, error);
  }
  return data as T;
}

/** The message to show a person for any thrown value. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
