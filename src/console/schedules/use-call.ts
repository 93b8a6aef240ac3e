import { useState } from 'preact/hooks';
import type { PreviewRun, Timing } from '../../../sdk/src/types.js';
import { useSession } from '../shell/context.js';
import { isKeyRefused, shownError, type ShownError } from '../shell/ferry-api.js';

export interface Call {
  /** The name of the call under way (to label its button), or null. */
  readonly busy: string | null;
  /** The latest refusal, shown until the next call or a dismissal. */
  readonly error: ShownError | null;
  setError(error: ShownError | null): void;
  /** Runs one call of the API; answers its result, or undefined after showing why it failed. */
  run<T>(name: string, call: () => Promise<T>): Promise<T | undefined>;
}

/** One action at a time with its answer kept to show: busy while it runs, the refusal after it fails. */
export function useCall(): Call {
  const { keyRefused } = useSession();
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<ShownError | null>(null);
  const run = async <T>(name: string, call: () => Promise<T>): Promise<T | undefined> => {
    setBusy(name);
    setError(null);
    try {
      return await call();
    } catch (err) {
      if (isKeyRefused(err)) keyRefused();
      else setError(shownError(err));
      return undefined;
    } finally {
      setBusy(null);
    }
  };
  return { busy, error, setError, run };
}

export interface Preview {
  /** The runs of the timing last previewed, and that timing, to tell whether the form still shows it. */
  readonly shown: { readonly runs: PreviewRun[]; readonly timing: Timing } | null;
  readonly call: Call;
  preview(timing: Timing): Promise<void>;
  /** True when the timing in the form is the one whose runs are shown. */
  isShowing(timing: Timing): boolean;
}

/** Runs of a timing not yet saved, from Ferry's own preview: the rules that fire schedules, nothing stored. */
export function useTimingPreview(): Preview {
  const { api } = useSession();
  const call = useCall();
  const [shown, setShown] = useState<Preview['shown']>(null);
  const preview = async (timing: Timing) => {
    const runs = await call.run('preview', () => api.actions.schedules.previewRuns(timing, { count: 10 }));
    setShown(runs === undefined ? null : { runs: [...runs], timing });
  };
  const isShowing = (timing: Timing) => shown !== null && JSON.stringify(shown.timing) === JSON.stringify(timing);
  return { shown, call, preview, isShowing };
}
