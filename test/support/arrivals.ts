/** The most of `times` (ms) that fall within any window of `windowMs`: how close a stream of arrivals came together. */
export function busiestWindow(times: readonly number[], windowMs: number): number {
  const t = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < t.length; i++) {
    while (t[i]! - t[j]! >= windowMs) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}
