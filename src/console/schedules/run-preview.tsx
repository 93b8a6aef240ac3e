import type { PreviewRun } from '../../../sdk/src/types.js';
import { relativeTime, utcText } from '../ui/time.js';
import { previewRows, wallClock } from './run-times.js';

/** What the daylight-saving change did to a run, in words; null when nothing. */
const DST_WORDS: Record<string, string> = {
  gap_shifted: 'for the local time the clocks skipped',
  overlap_first: 'first pass of a repeated local time',
  overlap_second: 'second pass of a repeated local time',
};

/**
 * The next runs of a timing, each in the schedule's zone and in UTC. A run after a daylight-saving change says so,
 * because that is where "09:00 every Monday" stops being the same UTC time; so does a run the change moved or
 * repeated, and a run the schedule's jitter delays past its instant.
 */
export function RunPreview({ runs, zone, caption }: { runs: readonly PreviewRun[]; zone: string; caption: string }) {
  const now = Date.now();
  const rows = previewRows(
    runs.map((r) => r.at),
    zone,
    now,
  );
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
                  {DST_WORDS[runs[i]!.dst] ? <span class="dst-mark">{DST_WORDS[runs[i]!.dst]}</span> : null}
                </td>
                <td class="mono nowrap">
                  {utcText(row.at)}
                  {row.at !== Date.parse(runs[i]!.instant) ? <span class="muted"> (jitter from {utcText(Date.parse(runs[i]!.instant))})</span> : null}
                </td>
                <td class="wide muted">{relativeTime(row.at, now)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
