/**
 * Cursor paging as the API offers it: forward with `next_cursor`, back by retracing the cursors already followed.
 * A page opened from a bookmark has no trail to retrace, so "Newest" returns to the first page instead.
 */
export function Pager({
  hasNewer,
  onNewer,
  onNewest,
  nextCursor,
  onNext,
  onFirstPage,
}: {
  hasNewer: boolean;
  onNewer: () => void;
  onNewest: () => void;
  nextCursor: string | null;
  onNext: (cursor: string) => void;
  onFirstPage: boolean;
}) {
  if (onFirstPage && nextCursor === null) return null;
  return (
    <nav class="pager row" aria-label="Pages">
      {!onFirstPage ? (
        <button type="button" onClick={onNewest}>
          Newest
        </button>
      ) : null}
      {hasNewer ? (
        <button type="button" onClick={onNewer}>
          ← Newer
        </button>
      ) : null}
      <button type="button" disabled={nextCursor === null} onClick={() => nextCursor !== null && onNext(nextCursor)}>
        Older →
      </button>
    </nav>
  );
}

/**
 * `Pager` over a list page's own trail of cursors followed (`trail`, newest last) and the cursor it shows now:
 * what the requests and failures lists share.
 */
export function TrailPager({
  cursor,
  trail,
  setTrail,
  goTo,
  nextCursor,
}: {
  cursor: string;
  trail: string[];
  setTrail: (trail: string[]) => void;
  goTo: (cursor: string) => void;
  nextCursor: string | null;
}) {
  return (
    <Pager
      onFirstPage={cursor === ''}
      hasNewer={trail.length > 0}
      onNewer={() => {
        const previous = trail[trail.length - 1] ?? '';
        setTrail(trail.slice(0, -1));
        goTo(previous);
      }}
      onNewest={() => {
        setTrail([]);
        goTo('');
      }}
      nextCursor={nextCursor}
      onNext={(next) => {
        setTrail([...trail, cursor]);
        goTo(next);
      }}
    />
  );
}
