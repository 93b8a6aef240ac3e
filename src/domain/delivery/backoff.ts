export interface BackoffConfig {
  readonly baseMs: number;
  readonly capMs: number;
}

// 2^1023 is the largest finite power of two; beyond it base × 2^n would be Infinity (or NaN when base is 0).
const MAX_EXPONENT = 1023;

/**
 * Exponential backoff with "equal jitter": half the ceiling is guaranteed, so retries never collapse to zero, and
 * the other half is random, so destinations recovering from an outage are not hit by every sender at once.
 * `failedAttempts` counts the attempts that already failed (1 after the first failure).
 */
export function backoffDelayMs(failedAttempts: number, cfg: BackoffConfig, random: () => number): number {
  if (Number.isNaN(failedAttempts)) throw new RangeError('failedAttempts must be a number');
  if (!isNonNegativeFinite(cfg.baseMs) || !isNonNegativeFinite(cfg.capMs)) {
    throw new RangeError(`Backoff base and cap must be finite and non-negative; got ${cfg.baseMs} and ${cfg.capMs}`);
  }
  const exponent = Math.min(Math.max(Math.floor(failedAttempts) - 1, 0), MAX_EXPONENT);
  const ceiling = Math.min(cfg.capMs, cfg.baseMs * 2 ** exponent);
  return Math.round(ceiling / 2 + unitInterval(random()) * (ceiling / 2));
}

function isNonNegativeFinite(n: number): boolean {
  return Number.isFinite(n) && n >= 0;
}

// A misbehaving source must not push the delay outside [ceiling/2, ceiling].
function unitInterval(r: number): number {
  if (!Number.isFinite(r) || r <= 0) return 0;
  return r >= 1 ? 1 : r;
}
