import { relativePastTime, relativeTime, utcText } from './time-text.js';

export { relativeTime, utcText, zonedText } from './time-text.js';

/**
 * A time shown both ways; null or missing shows a dash. Times are of things that happened unless `planned` says
 * they may lie ahead (a due time, a next run): a happened time is never worded as future, even when this
 * browser's clock runs behind the server's.
 */
export function Time({ value, now, planned = false }: { value: string | null | undefined; now?: number; planned?: boolean }) {
  if (value === null || value === undefined || value === '') return <span class="muted">—</span>;
  const at = Date.parse(value);
  if (Number.isNaN(at)) return <span>{value}</span>;
  const words = planned ? relativeTime : relativePastTime;
  return (
    <time dateTime={value} title={value}>
      <span class="rel">{words(at, now ?? Date.now())}</span> <span class="abs">{utcText(at)}</span>
    </time>
  );
}
