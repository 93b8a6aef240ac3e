// What the engine asks of a request it holds a claim on.

/** The destination host (with its port, if any), lower-cased: what the per-host limit counts. */
export function hostOf(url: string): string {
  const start = url.indexOf('//') + 2;
  const end = url.indexOf('/', start);
  return url.slice(start, end === -1 ? undefined : end).toLowerCase();
}
