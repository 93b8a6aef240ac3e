/** A request's or schedule's status as a coloured label; the colour follows the word, never the reverse. */
export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge status-${status.replace(/[^a-z_]/g, '')}`}>{status.replace(/_/g, ' ')}</span>;
}
