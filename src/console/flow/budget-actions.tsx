import type { Budget } from '../../../sdk/src/types.js';
import { useSession } from '../shell/context.js';
import { ErrorNotice } from '../ui/error-notice.js';
import { useAction } from '../ui/use-action.js';
import type { BudgetKind } from './budget-kind.js';

/**
 * Pause or Resume, whichever the state shown allows, and Edit limits. Each click is one call of the API, without
 * a confirmation step (pausing a paused one is harmless), and its answer is shown as it came.
 */
export function BudgetActions({ of, budget, onChanged, editing, onEdit }: {
  of: BudgetKind;
  budget: Budget;
  onChanged: () => void;
  editing: boolean;
  onEdit: () => void;
}) {
  const { api } = useSession();
  const toggle = useAction<Budget>(
    () => (budget.paused ? of.client(api.actions).resume(budget.name) : of.client(api.actions).pause(budget.name)),
    onChanged,
  );
  return (
    <div class="budget-actions">
      <div class="row">
        <button type="button" onClick={() => void toggle.run()} disabled={toggle.busy}>
          {toggle.busy ? (budget.paused ? 'Resuming…' : 'Pausing…') : budget.paused ? 'Resume' : 'Pause'}
        </button>
        <button type="button" onClick={onEdit} disabled={editing} aria-expanded={editing}>
          Edit limits
        </button>
      </div>
      {toggle.result ? (
        <p class="notice ok" role="status">
          {toggle.result.paused
            ? `Paused: no new attempt starts under this ${of.one}; attempts in flight finish.`
            : `Resumed: attempts start again under this ${of.one}, where they left off.`}
        </p>
      ) : null}
      {toggle.error ? <ErrorNotice error={toggle.error} onDismiss={toggle.clear} /> : null}
    </div>
  );
}
