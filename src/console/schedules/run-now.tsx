import { useState } from 'preact/hooks';
import type { Schedule } from '../../../sdk/src/types.js';
import { useSession } from '../shell/context.js';
import type { ShownError } from '../shell/ferry-api.js';
import { ErrorNotice } from '../ui/error-notice.js';
import { FieldProblem, fieldAttributes, localProblem } from '../ui/field-problem.js';
import { readUtcField, UTC_FIELD_PLACEHOLDER } from '../ui/utc-field.js';
import { useCall } from './use-call.js';

/**
 * Trigger (one request now, outside the timing) and Backfill (a request for each past instant of the timing in a
 * range). Each click is one call with a fresh idempotency key; a backfill repeated creates nothing twice.
 */
export function RunNow({ schedule, onChanged }: { schedule: Schedule; onChanged: (said: string) => void }) {
  const { api } = useSession();
  const call = useCall();
  const [backfilling, setBackfilling] = useState(false);
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [localError, setLocalError] = useState<ShownError | null>(null);
  const error = localError ?? call.error;
  const ended = schedule.status === 'ended';

  const trigger = async () => {
    setLocalError(null);
    const done = await call.run('trigger', () => api.actions.schedules.trigger(schedule.id));
    if (done !== undefined) onChanged(`Triggered: request ${done.id} created now.`);
  };
  const backfill = async () => {
    const range: Record<'from' | 'to', string> = { from: '', to: '' };
    for (const [field, text] of [['from', from], ['to', to]] as const) {
      const read = readUtcField(text);
      if (!read.ok) return setLocalError(localProblem(field, read.message));
      if (read.rfc3339 === '') return setLocalError(localProblem(field, `Give the range's ${field === 'from' ? 'start' : 'end'}.`));
      range[field] = read.rfc3339;
    }
    setLocalError(null);
    const done = await call.run('backfill', () => api.actions.schedules.backfill(schedule.id, range));
    if (done !== undefined) {
      setBackfilling(false);
      onChanged(done.occurrences === 1 ? 'Backfilled: 1 request created.' : `Backfilled: ${done.occurrences} requests created.`);
    }
  };

  return (
    <section class="panel" aria-labelledby="run-now-title">
      <h2 id="run-now-title">Run outside the timing</h2>
      <div class="row">
        <button type="button" onClick={trigger} disabled={ended || call.busy !== null}>
          {call.busy === 'trigger' ? 'Triggering…' : 'Trigger now'}
        </button>
        <button type="button" onClick={() => setBackfilling(true)} disabled={backfilling} aria-expanded={backfilling}>
          Backfill…
        </button>
      </div>
      <p class="hint">{ended ? 'The schedule has ended: it cannot be triggered.' : 'Trigger creates one request now, also while paused.'}</p>
      {backfilling ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void backfill();
          }}
        >
          <p class="hint">Creates a request, due now, for each of the timing's instants from the start up to (not including) the end, UTC; each instant only once, however often it is backfilled.</p>
          <label for="backfill-from">From (UTC)</label>
          <input {...fieldAttributes(error, 'from', 'backfill-from')} class="mono" placeholder={UTC_FIELD_PLACEHOLDER} value={from} onInput={(e) => setFrom(e.currentTarget.value)} />
          <FieldProblem error={error} field="from" id="backfill-from" />
          <label for="backfill-to">To (UTC, not in the future)</label>
          <input {...fieldAttributes(error, 'to', 'backfill-to')} class="mono" placeholder={UTC_FIELD_PLACEHOLDER} value={to} onInput={(e) => setTo(e.currentTarget.value)} />
          <FieldProblem error={error} field="to" id="backfill-to" />
          <div class="row form-buttons">
            <button type="submit" class="primary" disabled={call.busy !== null}>
              {call.busy === 'backfill' ? 'Backfilling…' : 'Backfill'}
            </button>
            <button type="button" onClick={() => setBackfilling(false)}>
              Cancel
            </button>
          </div>
        </form>
      ) : null}
      {error && error.field !== 'from' && error.field !== 'to' ? <ErrorNotice error={error} onDismiss={() => (setLocalError(null), call.setError(null))} /> : null}
    </section>
  );
}
