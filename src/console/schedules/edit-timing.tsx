import { useState } from 'preact/hooks';
import type { Schedule } from '../../../sdk/src/types.js';
import { useSession } from '../shell/context.js';
import type { ShownError } from '../shell/ferry-api.js';
import { ErrorNotice } from '../ui/error-notice.js';
import { RunPreview } from './run-preview.js';
import { draftOf, TimingFields, timingOf, type TimingDraft } from './timing-fields.js';
import { zoneOf } from './timing-words.js';
import { useCall, useTimingPreview } from './use-call.js';

/**
 * A new timing for the schedule: its next runs come from Ferry's preview first, and Save is offered only for the
 * timing whose runs are on screen, so nothing is saved unseen.
 */
export function EditTiming({ schedule, onSaved, onCancel }: { schedule: Schedule; onSaved: (said: string) => void; onCancel: () => void }) {
  const { api } = useSession();
  const [draft, setDraft] = useState<TimingDraft>(() => draftOf(schedule.timing));
  const preview = useTimingPreview();
  const save = useCall();
  const built = timingOf(draft);
  const timing = 'timing' in built ? built.timing : null;
  const [localError, setLocalError] = useState<ShownError | null>(null);
  const shownError = localError ?? save.error ?? preview.call.error;
  const ready = timing !== null && preview.isShowing(timing);

  const runPreview = async () => {
    if ('problem' in built) return setLocalError(built.problem);
    setLocalError(null);
    save.setError(null);
    await preview.preview(built.timing);
  };
  const runSave = async () => {
    if (timing === null) return;
    const saved = await save.run('save', () => api.actions.schedules.update(schedule.id, { timing }));
    if (saved !== undefined) onSaved('Timing saved: the next run follows the new timing.');
  };

  return (
    <section class="panel edit-timing" aria-labelledby="edit-timing-title">
      <h2 id="edit-timing-title">Edit timing</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void (ready ? runSave() : runPreview());
        }}
      >
        <TimingFields draft={draft} onChange={setDraft} error={shownError} prefix="edit" />
        <div class="row form-buttons">
          <button type="button" onClick={runPreview} disabled={preview.call.busy !== null}>
            {preview.call.busy ? 'Previewing…' : 'Preview'}
          </button>
          <button type="button" class="primary" onClick={runSave} disabled={!ready || save.busy !== null}>
            {save.busy ? 'Saving…' : 'Save'}
          </button>
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
          {!ready ? <span class="hint">Preview the timing to save it.</span> : null}
        </div>
      </form>
      {shownError && shownError !== localError ? <ErrorNotice error={shownError} /> : null}
      {preview.shown && ready && timing ? <RunPreview runs={preview.shown.runs} zone={zoneOf(timing)} caption="Next runs of the new timing (not saved yet)" /> : null}
    </section>
  );
}
