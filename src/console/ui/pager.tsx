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
