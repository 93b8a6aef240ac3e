/** Milliseconds in the words a person reads at a glance: `800 ms`, `2 s`, `1.5 s`, `3 min 20 s`, `2 h 5 min`, `3 d`. */
export function durationText(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return `${ms} ms`;
  // The limits are where rounding would reach the next unit, so never "1000 ms" or "60 s".
  if (ms < 999.5) return `${Math.round(ms)} ms`;
  if (ms < 59_500) {
    const seconds = ms / 1_000;
    return `${seconds < 10 ? trimmed(seconds, 1) : Math.round(seconds)} s`;
  }
  const totalSeconds = Math.round(ms / 1_000);
  if (totalSeconds < 3_600) return withRest(Math.floor(totalSeconds / 60), 'min', totalSeconds % 60, 's');
  const totalMinutes = Math.round(totalSeconds / 60);
  if (totalMinutes < 1_440) return withRest(Math.floor(totalMinutes / 60), 'h', totalMinutes % 60, 'min');
  const totalHours = Math.round(totalMinutes / 60);
  return withRest(Math.floor(totalHours / 24), 'd', totalHours % 24, 'h');
}

function trimmed(value: number, digits: number): string {
  return value.toFixed(digits).replace(/\.0+$/, '');
}

function withRest(whole: number, unit: string, rest: number, restUnit: string): string {
  return rest === 0 ? `${whole} ${unit}` : `${whole} ${unit} ${rest} ${restUnit}`;
}
