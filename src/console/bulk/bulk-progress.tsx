import { useEffect, useRef } from 'preact/hooks';
import type { BulkAction } from '../../../sdk/src/types.js';
import { useSession } from '../shell/context.js';
import { ErrorNotice } from '../ui/error-notice.js';
import { useAction } from '../ui/use-action.js';
import { usePolled } from '../ui/use-polled.js';
import { handledOf, progressText, skippedText, verbOf } from './bulk-words.js';

/** How often a running action is read again: often enough to see a replay of thousands move. */
const LIVE_EVERY_MS = 1_000;

/**
 * One bulk action as it runs: read again every second until it completed or was cancelled, its count acted on,
 * those left alone by reason, and a bar of how far it got through what it matched. Cancel stops it between
 * batches; what it already did stays done.
 */
export function BulkProgress({ id, onSettled, onClose }: { id: string; onSettled?: (action: BulkAction) => void; onClose?: () => void }) {
  const { api } = useSession();
  const polled = usePolled(() => api.reads.bulkActions.get(id), [id], { everyMs: LIVE_EVERY_MS, settled: (a) => a.state !== 'running' });
  const cancel = useAction<BulkAction>(() => api.actions.bulkActions.cancel(id), () => polled.refresh());
  const action = polled.data;
  const told = useRef<string | null>(null);
  useEffect(() => {
    if (action === null || action.state === 'running' || told.current === id) return;
    told.current = id;
    onSettled?.(action);
  }, [action, id]);

  return (
    <section class="panel bulk-progress" aria-label={`Bulk action ${id}`}>
      <div class="spread">
        <h2>
          {action === null ? 'Bulk action' : `Bulk ${action.action}`} <code>{id}</code>
        </h2>
        {onClose !== undefined && action !== null && action.state !== 'running' ? (
          <button type="button" onClick={onClose}>
            Close
          </button>
        ) : null}
      </div>
      {polled.error !== null ? <ErrorNotice error={polled.error} /> : null}
      {action === null ? <p class="muted">Loading…</p> : <Progress action={action} />}
      {action !== null && action.state === 'running' ? (
        <button type="button" class="danger" disabled={cancel.busy} onClick={() => void cancel.run()}>
          {cancel.busy ? 'Cancelling…' : `Cancel this ${verbOf(action.action).toLowerCase()}`}
        </button>
      ) : null}
      {cancel.error !== null ? <ErrorNotice error={cancel.error} onDismiss={cancel.clear} /> : null}
    </section>
  );
}

/** The count, the bar and the skipped reasons of an action; shared by the live panel and the recent list. */
export function Progress({ action, compact = false }: { action: BulkAction; compact?: boolean }) {
  const handled = handledOf(action);
  const skipped = skippedText(action.skipped);
  return (
    <div class={`progress-lines${compact ? ' compact' : ''}`}>
      <p class={`progress-text state-${action.state}`} role={compact ? undefined : 'status'}>
        {progressText(action)}
      </p>
      <progress
        max={Math.max(action.matched, 1)}
        value={action.matched === 0 ? (action.state === 'running' ? 0 : 1) : handled}
        aria-label={`${handled} of ${action.matched} handled`}
      />
      {skipped !== '' ? <p class="muted skipped">Left alone: {skipped}</p> : null}
    </div>
  );
}
