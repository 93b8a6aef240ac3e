/** The allowance period of a moment: its UTC calendar month, as `YYYY-MM`. */
export function usagePeriod(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** Whole seconds from `ms` until the next allowance period (UTC month) begins: when a refused call can succeed. */
export function secondsUntilNextPeriod(ms: number): number {
  const d = new Date(ms);
  return Math.max(1, Math.ceil((Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) - ms) / 1000));
}

/** The UTC calendar month a moment falls in: its first millisecond, and the first of the next month. */
export function usagePeriodBounds(ms: number): { readonly start: number; readonly end: number } {
  const d = new Date(ms);
  return { start: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1), end: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) };
}
