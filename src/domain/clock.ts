/** The only source of time, timers included, so tests and simulations can control it. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Calls `fn` once after `ms` (never holding the process open); the handle cancels it. */
  setTimer(fn: () => void, ms: number): TimerHandle;
  /** Resolves after `ms`, or at once (without rejecting) when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export interface TimerHandle {
  /** Does nothing once the timer has fired or was cancelled. */
  cancel(): void;
}

/** Node fires a timer longer than this (about 24.8 days) after 1 ms instead: a longer wait is made of several. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(fn, ms) {
    let timer: NodeJS.Timeout;
    const arm = (left: number): void => {
      timer = setTimeout(left > MAX_TIMER_MS ? () => arm(left - MAX_TIMER_MS) : fn, Math.min(left, MAX_TIMER_MS));
      // Whatever runs the service holds the process open; a pending wake-up alone must not keep it from exiting.
      timer.unref();
    };
    arm(ms);
    return { cancel: () => clearTimeout(timer) };
  },
  sleep: (ms, signal) => sleepOn(systemClock, ms, signal),
};

/** `Clock.sleep` made of the clock's own `setTimer`, for any clock. */
export function sleepOn(clock: Pick<Clock, 'setTimer'>, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) {
      resolve();
      return;
    }
    const timer = clock.setTimer(() => {
      signal?.removeEventListener('abort', aborted);
      resolve();
    }, ms);
    const aborted = (): void => {
      timer.cancel();
      resolve();
    };
    signal?.addEventListener('abort', aborted, { once: true });
  });
}
