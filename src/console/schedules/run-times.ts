/**
 * Where the runs of a schedule fall on the clock of its zone, and which of them come after a daylight-saving change.
 * Pure, so that the preview's rules can be pinned down without a page.
 */

/** The UTC offset of an instant in a zone, as Intl names it ("GMT+1", "GMT-4", "GMT" for zero). */
export function offsetIn(at: number, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone, timeZoneName: 'shortOffset' }).formatToParts(new Date(at));
  return parts.find((p) => p.type === 'timeZoneName')?.value ?? '';
}

/** The wall-clock time of an instant in a zone, with its weekday: "Mon 2027-03-29 09:00". */
export function wallClock(at: number, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    weekday: 'short',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(at));
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${get('weekday')} ${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')}`;
}

export interface PreviewRow {
  readonly at: number;
  readonly iso: string;
  readonly offset: string;
  /** Set on a run whose UTC offset differs from the run before it: the clocks changed in between. */
  readonly change: { readonly from: string; readonly to: string } | null;
}

/**
 * The runs with their offsets in `zone`, each marked when the clocks changed since the run before; the first run is
 * compared with `from` (now), so a change between now and the next run shows too.
 */
export function previewRows(runs: readonly string[], zone: string, from: number): PreviewRow[] {
  let previous = offsetIn(from, zone);
  return runs.map((iso) => {
    const at = Date.parse(iso);
    const offset = offsetIn(at, zone);
    const change = previous !== offset ? { from: previous, to: offset } : null;
    previous = offset;
    return { at, iso, offset, change };
  });
}
