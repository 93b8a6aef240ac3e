import { Fragment } from 'preact';
import type { Schedule } from '../../../sdk/src/types.js';
import { hrefOf } from '../shell/router.js';
import { StatusBadge } from '../ui/status-badge.js';
import { Time } from '../ui/time.js';
import { outcomeText } from './schedules-page.js';

const COUNTS = [
  ['enqueued', 'runs that created a request'],
  ['skipped_overlap', 'skipped: previous run still going'],
  ['skipped_usage_limit', 'skipped: monthly allowance reached'],
  ['missed', 'missed while Ferry was down'],
  ['triggered', 'triggered by hand'],
  ['backfilled', 'backfilled'],
] as const;

/** What the schedule's runs did: its counters and its latest 10 runs, triggers and backfilled instants. */
export function RunHistory({ schedule: s }: { schedule: Schedule }) {
  const counts = s.run_counts;
  const recent = s.recent_runs ?? [];
  return (
    <section class="panel" aria-labelledby="run-history-title">
      <h2 id="run-history-title">Run history</h2>
      <dl class="facts run-counts">
        {COUNTS.map(([key, words]) => (
          <Fragment key={key}>
            <dt>{words}</dt>
            <dd data-count={key}>{counts?.[key] ?? 0}</dd>
          </Fragment>
        ))}
      </dl>
      {recent.length === 0 ? (
        <p class="muted">No run yet.</p>
      ) : (
        <div class="table-wrap">
          <table class="recent-runs">
            <caption class="hint">The latest {recent.length} runs, triggers and backfilled instants, latest recorded first.</caption>
            <thead>
              <tr>
                <th scope="col">Run at</th>
                <th scope="col">What happened</th>
                <th scope="col">Request</th>
                <th scope="col">Request status</th>
              </tr>
            </thead>
            <tbody>
              {recent.map((r) => (
                <tr key={`${r.run_at}-${r.outcome}-${r.request_id ?? ''}`}>
                  <td>
                    <Time value={r.run_at} />
                  </td>
                  <td>{outcomeText(r.outcome ?? '')}</td>
                  <td>
                    {r.request_id ? (
                      <a class="mono" href={hrefOf({ page: 'request', id: r.request_id })}>
                        {r.request_id}
                      </a>
                    ) : (
                      <span class="muted">none</span>
                    )}
                  </td>
                  <td>{r.request_status ? <StatusBadge status={r.request_status} /> : <span class="muted">—</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
