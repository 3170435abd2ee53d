// Who is signed in: the token (kept in localStorage) and the account it belongs to.
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { api, SESSION_EXPIRED, storedToken, storeToken, unwrap, type Schemas } from './api/client';

type Me = Schemas['Me'];

interface Session {
  token: string | null;
  me: Me | null;
  /** True until the stored token has been checked against /v1/auth/me. */
  checking: boolean;
  /** Set when the last session ended because the API refused the token. */
  expired: boolean;
  signIn(token: string): Promise<void>;
  signOut(): void;
}

const SessionContext = createContext<Session | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [token, setToken] = useState(storedToken);
  const [me, setMe] = useState<Me | null>(null);
  const [checking, setChecking] = useState(token !== null);
  const [expired, setExpired] = useState(false);

  const load = useCallback(async () => {
    try {
      setMe(await unwrap(api.GET('/v1/auth/me')));
    } catch {
      setMe(null);
    } finally {
      setChecking(false);
    }
  }, []);

  useEffect(() => {
    if (token) void load();
  }, [token, load]);

  useEffect(() => {
    const onExpired = () => {
      setToken(null);
      setMe(null);
      setExpired(true);
    };
    window.addEventListener(SESSION_EXPIRED, onExpired);
    return () => window.removeEventListener(SESSION_EXPIRED, onExpired);
  }, []);

  const value = useMemo<Session>(
    () => ({
      token,
      me,
      checking,
      expired,
      async signIn(next) {
        storeToken(next);
        setExpired(false);
        setChecking(true);
        setToken(next);
      },
      signOut() {
        // Revoke the token on the server too (every session of the account ends), so a
        // copy of it left in this browser or elsewhere stops working. The answer is not
        // awaited: signing out here never waits for the network.
        if (token) {
          void api
            .POST('/v1/auth/logout', { headers: { Authorization: `Bearer ${token}` } })
            .catch(() => undefined);
        }
        storeToken(null);
        setToken(null);
        setMe(null);
        setExpired(false);
      },
    }),
    [token, me, checking, expired],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}
