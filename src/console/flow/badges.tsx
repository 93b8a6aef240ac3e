/** Marks beside a queue's or flow key's name: the states an operator looks for first. */
export function PausedBadge() {
  return <span class="badge status-paused">paused</span>;
}

/** Shown while a destination's 429 or 503 keeps the admitted rate below the limit. */
export function SlowedBadge() {
  return (
    <span class="badge slowed" title="A destination answered 429 or 503: fewer attempts start than the limit allows, for a while">
      slowed
    </span>
  );
}
