// Loading state for one API read: data, the error text to show, a loading flag and reload().
import { useCallback, useEffect, useRef, useState } from 'react';
import { messageOf } from '../api/client';

export interface Loaded<T> {
  data: T | undefined;
  error: string | null;
  loading: boolean;
  reload(): void;
  /** Replace the data without a round trip (after a write that answered the new value). */
  set(data: T): void;
}

export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [round, setRound] = useState(0);
  const latest = useRef(0);

  useEffect(() => {
    const call = ++latest.current;
    setLoading(true);
    setError(null);
    load().then(
      (value) => {
        if (call !== latest.current) return;
        setData(value);
        setLoading(false);
      },
      (e: unknown) => {
        if (call !== latest.current) return;
        setError(messageOf(e));
        setLoading(false);
      },
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, round]);

  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { data, error, loading, reload, set: setData };
}

/** A write in flight: run(fn) sets busy, keeps the error text, and returns fn's result. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = useCallback(async <T,>(fn: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(null);
    try {
      return await fn();
    } catch (e) {
      setError(messageOf(e));
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, setError };
}
