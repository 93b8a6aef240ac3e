/** The allowance period of a moment: its UTC calendar month, as `YYYY-MM`. */
export function usagePeriod(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}
