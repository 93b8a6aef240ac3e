import type { Acceptance, CancelResult, RequestDetail } from '../../../sdk/src/types.js';
import { useSession } from '../shell/context.js';
import { hrefOf } from '../shell/router.js';
import { ErrorNotice } from '../ui/error-notice.js';
import { useAction } from '../ui/use-action.js';
import { canCancel, canReplay, hasEnded } from './request-status.js';

/**
 * Cancel while the request is active, Replay once it has ended: only what the API allows for the status shown.
 * Each is asked of the API once per click, without a confirmation step, and its answer is shown as it comes
 * (a 409 still, when the request ended between the last read and the click).
 */
export function RequestActions({ request, onChanged }: { request: RequestDetail; onChanged: () => void }) {
  const { api } = useSession();
  const cancel = useAction<CancelResult>(() => api.actions.requests.cancel(request.id), onChanged);
  const replay = useAction<Acceptance>(() => api.actions.requests.replay(request.id), onChanged);
  const ended = hasEnded(request.status);

  return (
    <section class="request-actions" aria-label="Actions">
      <div class="row">
        {canCancel(request.status) ? (
          <button type="button" class="danger" disabled={cancel.busy} onClick={() => void cancel.run()}>
            {cancel.busy ? 'Cancelling…' : 'Cancel'}
          </button>
        ) : null}
        {canReplay(request.status) ? (
          <button type="button" disabled={replay.busy} onClick={() => void replay.run()}>
            {replay.busy ? 'Replaying…' : 'Replay'}
          </button>
        ) : null}
        <span class="muted action-hint">
          {ended ? 'Ended: it can be replayed as a new request.' : request.status === null ? '' : 'Active: it can be cancelled; replay once it has ended.'}
        </span>
      </div>
      {cancel.result ? (
        <div class="notice ok" role="status">
          {cancel.result.status === 'cancelled' ? (
            <strong>Cancelled: it already was.</strong>
          ) : (
            <>
              <strong>Cancellation requested.</strong>
              <p>No further attempt will start; an attempt already in flight may still finish.</p>
            </>
          )}
        </div>
      ) : null}
      {cancel.error ? <ErrorNotice error={cancel.error} onDismiss={cancel.clear} /> : null}
      {replay.result ? (
        <div class="notice ok" role="status">
          <strong>Replayed</strong> as{' '}
          <a href={hrefOf({ page: 'request', id: replay.result.id })}>
            <code>{replay.result.id}</code>
          </a>
          {replay.result.status ? ` (${replay.result.status})` : ''}: a new request with a fresh attempt budget; this one is unchanged.
        </div>
      ) : null}
      {replay.error ? <ErrorNotice error={replay.error} onDismiss={replay.clear} /> : null}
    </section>
  );
}
