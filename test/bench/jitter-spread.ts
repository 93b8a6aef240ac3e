/**
 * How evenly jitter spreads a minute's occurrences over [instant, instant + jitter): from each occurrence's offset
 * after its own instant (its due time, or its first arrival at the destination), per-second counts against their
 * mean, and the largest distance of the empirical cumulative distribution from the uniform one (Kolmogorov–Smirnov).
 */

export interface Spread {
  /** Offsets measured. */
  n: number;
  /** Offsets in each second of the window, [k s, k + 1 s). */
  perSecond: number[];
  /** Offsets inside the window per second. */
  mean: number;
  /** The fullest and the emptiest second as multiples of the mean. */
  maxRatio: number;
  minRatio: number;
  /** Largest |empirical CDF − uniform CDF| over the window, every offset counted (outside ones at its ends). */
  ks: number;
  /** Offsets before the instant, and after instant + jitter (with the largest overshoot, ms). */
  before: number;
  after: number;
  latestAfterMs: number;
}

/**
 * The spread of `offsets` (ms after each one's instant) over a window of `jitterMs`. The service draws a delay of
 * 0 to `jitterMs` ms, both ends included: an offset of exactly `jitterMs` counts in the last second.
 */
export function spreadOf(offsets: readonly number[], jitterMs: number): Spread {
  const seconds = Math.max(1, Math.ceil(jitterMs / 1000));
  const perSecond = new Array<number>(seconds).fill(0);
  let before = 0;
  let after = 0;
  let latestAfterMs = 0;
  for (const d of offsets) {
    if (d < 0) before++;
    else if (d > jitterMs) {
      after++;
      latestAfterMs = Math.max(latestAfterMs, d - jitterMs);
    } else perSecond[Math.min(seconds - 1, Math.floor(d / 1000))]!++;
  }
  const inside = offsets.length - before - after;
  // The last bin is shorter when the window is not a whole number of seconds: its mean is scaled to its width.
  const width = (k: number) => Math.min(1000, jitterMs - k * 1000) / 1000;
  const mean = inside / (jitterMs / 1000);
  const ratios = perSecond.map((c, k) => (mean > 0 ? c / (mean * width(k)) : NaN));
  const sorted = Float64Array.from(offsets).sort();
  const n = sorted.length;
  let ks = 0;
  for (let i = 0; i < n; i++) {
    const f = Math.min(1, Math.max(0, sorted[i]! / jitterMs));
    ks = Math.max(ks, (i + 1) / n - f, f - i / n);
  }
  return {
    n,
    perSecond,
    mean,
    maxRatio: ratios.length ? Math.max(...ratios) : NaN,
    minRatio: ratios.length ? Math.min(...ratios) : NaN,
    ks: n === 0 ? NaN : ks,
    before,
    after,
    latestAfterMs,
  };
}

/** Goals: no second above twice the mean, the distribution within 10 % of uniform, nothing before the instant. */
export const spreadMet = (s: Spread) => s.maxRatio <= 2 && s.ks <= 0.1 && s.before === 0;

export function fmtSpread(s: Spread, jitterSeconds: number): string {
  // A long window's seconds are too many to print one by one.
  const counts = s.perSecond.length <= 120 ? `per second [${s.perSecond.join(' ')}]` : `per second min ${Math.min(...s.perSecond)}, max ${Math.max(...s.perSecond)}`;
  return (
    `n ${s.n}; ${counts}; mean ${s.mean.toFixed(1)}/s, largest second ${s.maxRatio.toFixed(2)}× the mean (goal ≤ 2), smallest ${s.minRatio.toFixed(2)}×; ` +
    `KS distance from uniform ${(s.ks * 100).toFixed(2)} % (goal ≤ 10); before the instant ${s.before} (must be 0), ` +
    `after instant + ${jitterSeconds} s ${s.after}${s.after > 0 ? ` (latest ${s.latestAfterMs} ms past it)` : ''}`
  );
}
