import { relativeTime, utcText } from '../ui/time.js';

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

/**
 * The next runs of a timing, each in the schedule's zone and in UTC. A run after a daylight-saving change says so,
 * because that is where "09:00 every Monday" stops being the same UTC time.
 */
export function RunPreview({ runs, zone, caption }: { runs: readonly string[]; zone: string; caption: string }) {
  const now = Date.now();
  const rows = previewRows(runs, zone, now);
  if (rows.length === 0) return <p class="muted">No runs ahead.</p>;
  const changes = rows.filter((r) => r.change !== null).length;
  return (
    <>
      {changes > 0 ? (
        <p class="dst-summary">
          The clocks change {changes === 1 ? 'once' : `${changes} times`} in {zone} over these runs: from each marked run on, the same wall-clock time
          falls at another UTC time.
        </p>
      ) : null}
      <div class="table-wrap">
        <table class="run-preview">
          <caption>{caption}</caption>
          <thead>
            <tr>
              <th scope="col" class="wide">#</th>
              <th scope="col">In {zone}</th>
              <th scope="col">UTC</th>
              <th scope="col" class="wide">When</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row, i) => (
              <tr key={row.iso} class={row.change ? 'clock-change' : undefined}>
                <td class="wide">{i + 1}</td>
                <td>
                  <time dateTime={row.iso}>
                    {wallClock(row.at, zone)} <span class="muted">{row.offset}</span>
                  </time>
                  {row.change ? (
                    <span class="dst-mark">
                      clocks change: {row.change.from} → {row.change.to}
                    </span>
                  ) : null}
                </td>
                <td class="mono nowrap">{utcText(row.at)}</td>
                <td class="wide muted">{relativeTime(row.at, now)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
