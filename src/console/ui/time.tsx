import { relativeTime, utcText } from './time-text.js';

export { relativeTime, utcText, zonedText } from './time-text.js';

/** A time shown both ways; null or missing shows a dash. */
export function Time({ value, now }: { value: string | null | undefined; now?: number }) {
  if (value === null || value === undefined || value === '') return <span class="muted">—</span>;
  const at = Date.parse(value);
  if (Number.isNaN(at)) return <span>{value}</span>;
  return (
    <time dateTime={value} title={value}>
      <span class="rel">{relativeTime(at, now ?? Date.now())}</span> <span class="abs">{utcText(at)}</span>
    </time>
  );
}
