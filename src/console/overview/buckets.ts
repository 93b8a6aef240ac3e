import type { Stats } from '../../../sdk/src/types.js';

/** Minutes per bar: 96 bars of 15 minutes cover the day and stay wide enough to point at. */
export const BUCKET_MINUTES = 15;
const MINUTE_MS = 60_000;
const BUCKET_MS = BUCKET_MINUTES * MINUTE_MS;

export interface Bucket {
  /** The bucket's first instant and the first instant after it. */
  readonly from: number;
  readonly to: number;
  accepted: number;
  delivered: number;
  failed: number;
  retried: number;
  callbacks: number;
}

/**
 * The window's minutes summed into bars of BUCKET_MINUTES, dense (a bar for every span, empty ones included), aligned
 * on the clock (:00, :15, …) so a bar reads as a time of day; the last one is still filling.
 */
export function bucketsOf(stats: Pick<Stats, 'from' | 'as_of' | 'minutes'>): Bucket[] {
  const from = Math.floor(Date.parse(stats.from) / BUCKET_MS) * BUCKET_MS;
  const end = Date.parse(stats.as_of);
  const buckets: Bucket[] = [];
  for (let t = from; t <= end; t += BUCKET_MS) buckets.push({ from: t, to: t + BUCKET_MS, accepted: 0, delivered: 0, failed: 0, retried: 0, callbacks: 0 });
  for (const m of stats.minutes) {
    const b = buckets[Math.floor((Date.parse(m.minute) - from) / BUCKET_MS)];
    if (b === undefined) continue;
    b.accepted += m.accepted;
    b.delivered += m.delivered;
    b.failed += m.failed;
    b.retried += m.retried;
    b.callbacks += m.callbacks;
  }
  return buckets;
}

/** A rounded-up maximum for the chart's scale: 1, 2 or 5 times a power of ten. */
export function niceMax(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (value <= step * power) return step * power;
  return 10 * power;
}

/** A failure rate as a percentage with one decimal ("2.5 %"), or a dash when nothing ended. */
export function rateText(rate: number | null): string {
  if (rate === null) return '—';
  return `${(Math.round(rate * 1000) / 10).toLocaleString('en-GB')} %`;
}
