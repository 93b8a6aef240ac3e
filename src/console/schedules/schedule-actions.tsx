import { useEffect, useRef, useState } from 'preact/hooks';
import type { Schedule } from '../../../sdk/src/types.js';
import { useSession } from '../shell/context.js';
import { navigate } from '../shell/router.js';
import { ErrorNotice } from '../ui/error-notice.js';
import { useCall } from './use-call.js';

/**
 * Pause, resume, edit timing or policy, and delete. Delete asks once more inside the page (a second, explicit button) rather
 * than through a browser dialog, so keyboards and screen readers meet it like any other control.
 */
export function ScheduleActions({ schedule, onChanged, onEdit, editing }: {
  schedule: Schedule;
  onChanged: (said: string) => void;
  onEdit: (what: 'timing' | 'policy') => void;
  editing: 'timing' | 'policy' | null;
}) {
  const { api } = useSession();
  const call = useCall();
  const [confirming, setConfirming] = useState(false);
  const paused = schedule.status === 'paused';
  const confirmButton = useRef<HTMLButtonElement>(null);
  // The confirmation takes the focus, so a keyboard user lands on the choice just offered.
  useEffect(() => {
    if (confirming) confirmButton.current?.focus();
  }, [confirming]);

  const pauseOrResume = async () => {
    const done = paused
      ? await call.run('resume', () => api.actions.schedules.resume(schedule.id))
      : await call.run('pause', () => api.actions.schedules.pause(schedule.id));
    if (done !== undefined) onChanged(paused ? 'Resumed: the schedule fires again from its next run.' : 'Paused: no run fires until you resume it.');
  };
  const remove = async () => {
    const done = await call.run('delete', () => api.actions.schedules.delete(schedule.id));
    if (done !== undefined) navigate({ page: 'schedules', query: new URLSearchParams({ deleted: schedule.name || schedule.id }) });
  };

  return (
    <div class="schedule-actions">
      <div class="row">
        {schedule.status === 'ended' ? null : (
          <button type="button" onClick={pauseOrResume} disabled={call.busy !== null}>
            {call.busy === 'pause' ? 'Pausing…' : call.busy === 'resume' ? 'Resuming…' : paused ? 'Resume' : 'Pause'}
          </button>
        )}
        <button type="button" onClick={() => onEdit('timing')} disabled={editing === 'timing'} aria-expanded={editing === 'timing'}>
          Edit timing
        </button>
        <button type="button" onClick={() => onEdit('policy')} disabled={editing === 'policy'} aria-expanded={editing === 'policy'}>
          Edit policy
        </button>
        <button type="button" class="danger" onClick={() => setConfirming(true)} disabled={confirming || call.busy !== null}>
          Delete…
        </button>
      </div>
      {confirming ? (
        <div class="notice confirm-delete" role="group" aria-label="Confirm deletion">
          <strong>Delete “{schedule.name}”?</strong>
          <p>Its future runs are cancelled and it cannot be brought back. Requests it already created stay under Requests.</p>
          <div class="row">
            <button type="button" class="danger" ref={confirmButton} onClick={remove} disabled={call.busy !== null}>
              {call.busy === 'delete' ? 'Deleting…' : 'Delete for good'}
            </button>
            <button type="button" onClick={() => setConfirming(false)} disabled={call.busy !== null}>
              Keep it
            </button>
          </div>
        </div>
      ) : null}
      {call.error ? <ErrorNotice error={call.error} onDismiss={() => call.setError(null)} /> : null}
    </div>
  );
}
