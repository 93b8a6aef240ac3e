import type { ShownError } from '../shell/ferry-api.js';

/** An answer of the API that is not a success, with everything to quote: status, code, field, request ID. */
export function ErrorNotice({ error, onDismiss }: { error: ShownError; onDismiss?: () => void }) {
  return (
    <div class="notice error" role="alert">
      <strong>
        {error.title}
        {error.status !== null ? ` (${error.status}${error.code ? ` ${error.code}` : ''})` : ''}
      </strong>
      <p>{error.message}</p>
      {error.field ? <p class="muted">Field: {error.field}</p> : null}
      {error.retryAfter ? <p class="muted">Retry after: {error.retryAfter} s</p> : null}
      {error.requestId ? <p class="muted">Call ID: {error.requestId}</p> : null}
      {onDismiss ? (
        <button type="button" onClick={onDismiss}>
          Dismiss
        </button>
      ) : null}
    </div>
  );
}
