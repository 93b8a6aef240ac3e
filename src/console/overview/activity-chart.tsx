import { hrefOf } from '../shell/router.js';
import { niceMax, type Bucket } from './buckets.js';

const WIDTH = 960;
const HEIGHT = 200;
const LEFT = 44;
const BOTTOM = 22;
const TOP = 8;
const PLOT_H = HEIGHT - BOTTOM - TOP;

/** The requests list of one bar: created in its span, of one status or any. */
export function bucketHref(b: Pick<Bucket, 'from' | 'to'>, status: string | null): string {
  const query = new URLSearchParams();
  if (status !== null) query.set('status', status);
  query.set('from', new Date(b.from).toISOString());
  query.set('to', new Date(b.to).toISOString());
  return hrefOf({ page: 'requests', query });
}

const time = (ms: number): string => new Date(ms).toISOString().slice(11, 16);

/**
 * The day as bars, drawn inline (no chart library, nothing fetched): each bar stacks the requests that ended
 * delivered (below) and failed (above) in its span, a line follows the requests accepted. A bar's part leads to the
 * requests list filtered to that span and status (the list filters by creation time, so a request that ended in
 * the span but was created before it is on an earlier bar's list).
 */
export function ActivityChart({ buckets }: { buckets: readonly Bucket[] }) {
  const max = niceMax(Math.max(...buckets.map((b) => Math.max(b.accepted, b.delivered + b.failed)), 0));
  const step = (WIDTH - LEFT) / Math.max(1, buckets.length);
  const barW = Math.max(2, step - 2);
  const y = (v: number): number => TOP + PLOT_H - (v / max) * PLOT_H;
  const line = buckets.map((b, i) => `${(LEFT + i * step + step / 2).toFixed(1)},${y(b.accepted).toFixed(1)}`).join(' ');
  return (
    <svg class="activity-chart" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label="Requests per 15 minutes over the last 24 hours">
      {[0, 0.5, 1].map((f) => (
        <g key={f} class="grid">
          <line x1={LEFT} x2={WIDTH} y1={y(max * f)} y2={y(max * f)} />
          <text class="y-label" x={LEFT - 6} y={y(max * f) + 4}>
            {(max * f).toLocaleString('en-GB', { maximumFractionDigits: 1 })}
          </text>
        </g>
      ))}
      {buckets.map((b, i) =>
        // A label every three hours on the clock, none so close to the right edge that it would be cut.
        b.from % (3 * 3_600_000) === 0 && LEFT + i * step < WIDTH - 30 ? (
          <text key={`t${b.from}`} class="axis" x={LEFT + i * step} y={HEIGHT - 6}>
            {time(b.from)}
          </text>
        ) : null,
      )}
      {buckets.map((b, i) => {
        const x = LEFT + i * step + 1;
        const span = `${time(b.from)}–${time(b.to)} UTC`;
        const delivered = y(0) - y(b.delivered);
        const failed = y(0) - y(b.failed);
        return (
          <g key={b.from}>
            <a href={bucketHref(b, null)} aria-label={`All requests created ${span}: ${b.accepted} accepted`} class="bucket">
              <title>{`${span}: ${b.accepted} accepted, ${b.delivered} delivered, ${b.failed} failed, ${b.retried} retried`}</title>
              <rect class="hit" x={x} y={TOP} width={barW} height={PLOT_H} />
            </a>
            {b.delivered > 0 ? (
              <a href={bucketHref(b, 'succeeded')} aria-label={`Delivered ${span}: ${b.delivered}`}>
                <title>{`${span}: ${b.delivered} delivered`}</title>
                <rect class="delivered" x={x} y={y(b.delivered)} width={barW} height={Math.max(1, delivered)} />
              </a>
            ) : null}
            {b.failed > 0 ? (
              <a href={bucketHref(b, 'failed')} aria-label={`Failed ${span}: ${b.failed}`}>
                <title>{`${span}: ${b.failed} failed`}</title>
                <rect class="failed" x={x} y={y(b.delivered) - Math.max(1, failed)} width={barW} height={Math.max(1, failed)} />
              </a>
            ) : null}
          </g>
        );
      })}
      <polyline class="accepted" points={line} />
    </svg>
  );
}
