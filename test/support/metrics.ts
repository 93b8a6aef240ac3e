/**
 * Reads one sample from Prometheus text: the value of `name` with exactly `labels` (in any order), or 0 when the
 * series is absent (a counter that never moved).
 */
export function sampleOf(text: string, name: string, labels: Readonly<Record<string, string>> = {}): number {
  const wanted = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort()
    .join(',');
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || !line.startsWith(name)) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match === null || match[1] !== name) continue;
    const have = (match[2] ?? '')
      .split(/,(?=[a-zA-Z_]+=")/)
      .filter((p) => p !== '')
      .sort()
      .join(',');
    if (have === wanted) return Number(match[3]);
  }
  return 0;
}

/** Every sample of `name`, whatever its labels, summed. */
export function sumOf(text: string, name: string): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{.*\})? (\S+)$/.exec(line);
    if (match !== null && match[1] === name) sum += Number(match[2]);
  }
  return sum;
}
