import { useEffect, useState } from 'preact/hooks';
import type { BulkAction, BulkActionFilter, BulkActionInput } from '../../../sdk/src/types.js';
import { useSession } from '../shell/context.js';
import { isKeyRefused, shownError, type ShownError } from '../shell/ferry-api.js';
import { ErrorNotice } from '../ui/error-notice.js';
import { BulkProgress } from './bulk-progress.js';
import { isEmptyFilter, MAX_BULK_IDS, requestsText, verbOf, willText, type BulkKind } from './bulk-words.js';
import './bulk.css';

/** An action waiting for its confirmation, with the count it will act on and the key that makes it happen once. */
interface Pending {
  readonly input: BulkActionInput;
  readonly count: number;
  /** Made when the confirmation opens: a second click, or a retry after a lost answer, starts no second action. */
  readonly idempotencyKey: string;
}

/**
 * Bulk replay and cancel of a list: the selected rows by ID, or every request the list's filter matches. Nothing
 * starts on the first click: the filter's count comes from a dry run and is shown for confirmation ("40 requests
 * will be replayed"), then the action is created and followed live until it ends.
 */
export function BulkBar({ filter, selected, kinds, onStarted, onSettled }: {
  filter: BulkActionFilter;
  /** The selected IDs; absent where the list has no selection. */
  selected?: readonly string[];
  kinds: readonly BulkKind[];
  onStarted?: (action: BulkAction) => void;
  onSettled?: (action: BulkAction) => void;
}) {
  const { api, keyRefused } = useSession();
  const [pending, setPending] = useState<Pending | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<ShownError | null>(null);
  const [watching, setWatching] = useState<string | null>(null);
  const noFilter = isEmptyFilter(filter);
  // A confirmation is of the filter and selection it counted: once either changes, its count no longer holds.
  const asked = `${JSON.stringify(filter)} ${selected?.join(',') ?? ''}`;
  useEffect(() => setPending(null), [asked]);

  const call = async <T,>(what: string, perform: () => Promise<T>): Promise<T | null> => {
    if (busy !== null) return null;
    setBusy(what);
    setError(null);
    try {
      return await perform();
    } catch (err) {
      if (isKeyRefused(err)) keyRefused();
      else setError(shownError(err));
      return null;
    } finally {
      setBusy(null);
    }
  };
  const askSelected = (kind: BulkKind) => {
    if (selected === undefined) return;
    setError(null);
    setPending({ input: { action: kind, ids: [...selected] }, count: selected.length, idempotencyKey: crypto.randomUUID() });
  };
  const askMatching = async (kind: BulkKind) => {
    setPending(null);
    const input: BulkActionInput = { action: kind, filter };
    const dry = await call(`dry-${kind}`, () => api.actions.bulkActions.dryRun(input));
    if (dry !== null) setPending({ input, count: dry.matched, idempotencyKey: crypto.randomUUID() });
  };
  const confirm = async (p: Pending) => {
    const action = await call('create', () => api.actions.bulkActions.create(p.input, { idempotencyKey: p.idempotencyKey }));
    if (action === null) return;
    setPending(null);
    setWatching(action.id);
    onStarted?.(action);
  };

  const count = selected?.length ?? 0;
  return (
    <section class="bulk-bar" aria-label="Bulk actions">
      <div class="row">
        {selected !== undefined
          ? kinds.map((kind) => (
              <button key={`sel-${kind}`} type="button" disabled={count === 0 || count > MAX_BULK_IDS || busy !== null} onClick={() => askSelected(kind)}>
                {verbOf(kind)} selected{count > 0 ? ` (${count})` : ''}
              </button>
            ))
          : null}
        {kinds.map((kind) => (
          <button key={`all-${kind}`} type="button" disabled={noFilter || busy !== null} onClick={() => void askMatching(kind)}>
            {busy === `dry-${kind}` ? 'Counting…' : `${verbOf(kind)} all matching`}
          </button>
        ))}
        <span class="muted action-hint">
          {count > MAX_BULK_IDS
            ? `At most ${MAX_BULK_IDS.toLocaleString('en-GB')} selected at once: use "all matching" with a filter.`
            : noFilter
              ? 'Choose a filter to act on all it matches.'
              : 'All matching: every request of this filter created until now, on every page.'}
        </span>
      </div>
      {pending !== null ? (
        <Confirmation
          pending={pending}
          busy={busy === 'create'}
          onConfirm={() => void confirm(pending)}
          onBack={() => {
            setPending(null);
            setError(null);
          }}
        />
      ) : null}
      {error !== null ? <ErrorNotice error={error} onDismiss={() => setError(null)} /> : null}
      {watching !== null ? <BulkProgress key={watching} id={watching} onSettled={onSettled} onClose={() => setWatching(null)} /> : null}
    </section>
  );
}

function Confirmation({ pending, busy, onConfirm, onBack }: { pending: Pending; busy: boolean; onConfirm: () => void; onBack: () => void }) {
  const kind = pending.input.action;
  const byIds = pending.input.ids !== undefined;
  if (pending.count === 0) {
    return (
      <div class="notice confirm" role="status">
        <strong>No request matches: nothing to {kind}.</strong>
        <p>
          <button type="button" onClick={onBack}>
            Back
          </button>
        </p>
      </div>
    );
  }
  return (
    <div class="notice confirm" role="alertdialog" aria-labelledby="bulk-confirm-title" aria-describedby="bulk-confirm-hint">
      <strong id="bulk-confirm-title">{willText(kind, pending.count)}.</strong>
      <p class="muted" id="bulk-confirm-hint">
        {kind === 'replay'
          ? 'Each is sent again as a new request with a fresh attempt budget, through the same queues and limits as any request; one not ended yet is left alone and counted.'
          : 'No further attempt of these will start (one already in flight may still finish); one that has already ended is left alone and counted.'}
        {byIds ? '' : ' Requests created from now on are not touched.'}
      </p>
      <div class="row">
        <button type="button" class={kind === 'cancel' ? 'danger' : 'primary'} disabled={busy} onClick={onConfirm}>
          {busy ? 'Starting…' : `${verbOf(kind)} ${requestsText(pending.count)}`}
        </button>
        <button type="button" disabled={busy} onClick={onBack}>
          Back
        </button>
      </div>
    </div>
  );
}
