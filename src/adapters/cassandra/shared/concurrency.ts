import { StorageUnavailable } from '../../../ports/errors.js';

/** A store's operations in flight: close waits for all of them, and no new one starts once close began. */
export class InFlight {
  private readonly running = new Set<Promise<unknown>>();
  private readonly closed = new AbortController();

  /** `owner` names the store in the error that refuses an operation after close ("The Cassandra request store"). */
  constructor(private readonly owner: string) {}

  /** Aborted when close begins: background work that waits between tries stops waiting. */
  get closingSignal(): AbortSignal {
    return this.closed.signal;
  }

  run<T>(operation: () => Promise<T>): Promise<T> {
    if (this.closed.signal.aborted) return Promise.reject(new StorageUnavailable(`${this.owner} is closed.`));
    return this.track(operation());
  }

  /**
   * Starts clean-up that no caller waits for. A failure is dropped: it leaves a stale timer or bucket entry, which
   * every reader already treats as a hint and a later pass removes.
   */
  background(task: () => Promise<unknown>): void {
    void this.track(task().catch(() => undefined));
  }

  async close(): Promise<void> {
    this.closed.abort();
    // Work that finishes may still start clean-up of its own.
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.running.add(p);
    const forget = () => this.running.delete(p);
    p.then(forget, forget);
    return p;
  }
}

/** `fn` over every item, at most `concurrency` at once; results in the order of `items`. */
export async function mapBounded<T, R>(items: readonly T[], concurrency: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}

export interface Taken<R> {
  /** In the order the attempts finished. */
  readonly taken: R[];
  /** The first error of an attempt or of the source; no further item was started after it. */
  readonly failure: { readonly error: unknown } | null;
}

/**
 * Tries items of `source` in order until `want` attempts succeeded (returned a value) or the source ends. Runs at
 * most `concurrency` attempts at once and never more than could still be needed, so no more than `want` succeed.
 */
export async function takeUpTo<T, R>(
  source: AsyncIterator<T>,
  want: number,
  concurrency: number,
  attempt: (item: T) => Promise<R | null>,
): Promise<Taken<R>> {
  const taken: R[] = [];
  const running = new Set<Promise<void>>();
  let failure: { error: unknown } | null = null;
  try {
    while (failure === null && taken.length < want) {
      if (running.size >= concurrency || taken.length + running.size >= want) {
        await Promise.race(running);
        continue;
      }
      const next = await source.next();
      if (next.done === true) break;
      const p: Promise<void> = attempt(next.value)
        .then(
          (result) => {
            if (result !== null) taken.push(result);
          },
          (error: unknown) => {
            failure ??= { error };
          },
        )
        .finally(() => running.delete(p));
      running.add(p);
    }
  } catch (error) {
    failure ??= { error };
  } finally {
    await Promise.all(running);
    await source.return?.();
  }
  return { taken, failure };
}
