import { Fragment } from 'preact';

/**
 * A name → value map (headers, metadata) as a definition list. Names and values are shown exactly as the API
 * gave them, as text; an empty map says so in words instead of leaving a blank.
 */
export function KeyValues({ entries, empty, label }: { entries: Readonly<Record<string, string>>; empty: string; label: string }) {
  const pairs = Object.entries(entries);
  if (pairs.length === 0) return <p class="muted kv-empty">{empty}</p>;
  return (
    <dl class="facts kv" aria-label={label}>
      {pairs.map(([name, value]) => (
        <Fragment key={name}>
          <dt>
            <code>{name}</code>
          </dt>
          <dd>
            <code>{value}</code>
          </dd>
        </Fragment>
      ))}
    </dl>
  );
}
