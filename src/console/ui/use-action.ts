import { useCallback, useRef, useState } from 'preact/hooks';
import { useSession } from '../shell/context.js';
import { isKeyRefused, shownError, type ShownError } from '../shell/ferry-api.js';

export interface Action<T> {
  /** True while the call is under way: its button is disabled so one click is one call. */
  readonly busy: boolean;
  /** The last success, until the next run. */
  readonly result: T | null;
  /** The last failure, as the API put it, until the next run. */
  readonly error: ShownError | null;
  run(): Promise<void>;
  /** Forgets the last answer (a dismissed notice). */
  clear(): void;
}

/**
 * One action on Ferry (cancel, replay, send) run on demand, without a confirmation step: the API is the judge,
 * and whatever it answers, success or refusal, is kept to be shown next to the button that asked.
 */
export function useAction<T>(perform: () => Promise<T>, after?: (result: T) => void): Action<T> {
  const [state, setState] = useState<{ busy: boolean; result: T | null; error: ShownError | null }>({ busy: false, result: null, error: null });
  const { keyRefused } = useSession();
  const running = useRef(false);
  const performRef = useRef(perform);
  performRef.current = perform;
  const afterRef = useRef(after);
  afterRef.current = after;

  const run = useCallback(async () => {
    if (running.current) return;
    running.current = true;
    setState({ busy: true, result: null, error: null });
    try {
      const result = await performRef.current();
      setState({ busy: false, result, error: null });
      afterRef.current?.(result);
    } catch (err) {
      if (isKeyRefused(err)) return keyRefused();
      setState({ busy: false, result: null, error: shownError(err) });
    } finally {
      running.current = false;
    }
  }, [keyRefused]);
  const clear = useCallback(() => setState((s) => ({ ...s, result: null, error: null })), []);
  return { ...state, run, clear };
}
