import { useState } from 'preact/hooks';
import type { Schedule } from '../../../sdk/src/types.js';
import { useSession } from '../shell/context.js';
import type { ShownError } from '../shell/ferry-api.js';
import { ErrorNotice } from '../ui/error-notice.js';
import { PolicyFields, policyDraftOf, policyOf, type PolicyDraft } from './policy-fields.js';
import { useCall } from './use-call.js';

/** The schedule's policy, saved whole (an emptied count removes that limit). */
export function EditPolicy({ schedule, onSaved, onCancel }: { schedule: Schedule; onSaved: (said: string) => void; onCancel: () => void }) {
  const { api } = useSession();
  const [draft, setDraft] = useState<PolicyDraft>(() => policyDraftOf(schedule.policy));
  const [localError, setLocalError] = useState<ShownError | null>(null);
  const save = useCall();
  const error = localError ?? save.error;
  const runSave = async () => {
    const built = policyOf(draft);
    if ('problem' in built) return setLocalError(built.problem);
    setLocalError(null);
    const saved = await save.run('save', () => api.actions.schedules.update(schedule.id, { policy: built.policy }));
    if (saved !== undefined) onSaved('Policy saved.');
  };
  return (
    <section class="panel" aria-labelledby="edit-policy-title">
      <h2 id="edit-policy-title">Edit policy</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void runSave();
        }}
      >
        <PolicyFields draft={draft} onChange={setDraft} error={error} prefix="edit" />
        <div class="row form-buttons">
          <button type="submit" class="primary" disabled={save.busy !== null}>
            {save.busy ? 'Saving…' : 'Save policy'}
          </button>
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </form>
      {error && !(error.field ?? '').startsWith('policy.') ? <ErrorNotice error={error} /> : null}
    </section>
  );
}
