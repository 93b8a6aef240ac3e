import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { useSession } from '../shell/context.js';
import { isKeyRefused, shownError, type ShownError } from '../shell/ferry-api.js';

export interface Polled<T> {
  readonly data: T | null;
  readonly error: ShownError | null;
  readonly loading: boolean;
  /** Loads again now (after an action), keeping what is shown until the answer comes. */
  refresh(): void;
}

export interface PollOptions<T> {
  /** How often to load again while the page is open; 0 loads once. */
  readonly everyMs: number;
  /** Once this says the data can no longer change (a request that ended), polling stops. */
  readonly settled?: (data: T) => boolean;
}

/** The longest wait between polls after failures: each failure doubles the wait up to here. */
const MAX_BACKOFF_MS = 60_000;

/**
 * Data loaded from the API and kept live: reloaded every `everyMs` while the tab is visible, backing off after
 * failures, paused while the tab is hidden, stopped when the data has settled. `deps` name what the load depends
 * on (an ID, the filters): when they change, what is shown is dropped and loaded anew.
 */
export function usePolled<T>(load: () => Promise<T>, deps: readonly unknown[], options: PollOptions<T>): Polled<T> {
  const [state, setState] = useState<{ data: T | null; error: ShownError | null; loading: boolean }>({ data: null, error: null, loading: true });
  const [tick, setTick] = useState(0);
  const failures = useRef(0);
  const { keyRefused } = useSession();
  const loadRef = useRef(load);
  loadRef.current = load;
  const settledRef = useRef(options.settled);
  settledRef.current = options.settled;

  useEffect(() => {
    setState({ data: null, error: null, loading: true });
    failures.current = 0;
  }, deps);

  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = async () => {
      if (stopped) return;
      if (document.visibilityState === 'hidden') {
        timer = setTimeout(run, 1_000);
        return;
      }
      let settled = false;
      try {
        const data = await loadRef.current();
        if (stopped) return;
        failures.current = 0;
        settled = settledRef.current?.(data) ?? false;
        setState({ data, error: null, loading: false });
      } catch (err) {
        if (stopped) return;
        if (isKeyRefused(err)) return keyRefused();
        failures.current += 1;
        setState((s) => ({ data: s.data, error: shownError(err), loading: false }));
      }
      if (options.everyMs <= 0 || settled) return;
      const wait = failures.current === 0 ? options.everyMs : Math.min(MAX_BACKOFF_MS, options.everyMs * 2 ** failures.current);
      timer = setTimeout(run, wait);
    };
    void run();
    return () => {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [...deps, tick, options.everyMs]);

  const refresh = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, refresh };
}
