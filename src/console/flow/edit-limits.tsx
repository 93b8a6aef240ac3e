import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { Budget } from '../../../sdk/src/types.js';
import { useSession } from '../shell/context.js';
import type { ShownError } from '../shell/ferry-api.js';
import { ErrorNotice } from '../ui/error-notice.js';
import { FieldProblem, fieldAttributes, localProblem } from '../ui/field-problem.js';
import { useAction } from '../ui/use-action.js';
import type { BudgetKind } from './budget-kind.js';
import { draftOf, limitsOf, type LimitsDraft, type LimitsField } from './limits-draft.js';

/**
 * The limits of a queue or flow key, filled with the ones in force. Saving sends the whole form (`PUT` replaces
 * the configuration): an emptied field removes that limit, and the pause is kept.
 */
export function EditLimits({ of, budget, onSaved, onCancel }: { of: BudgetKind; budget: Budget; onSaved: () => void; onCancel: () => void }) {
  const { api } = useSession();
  const [draft, setDraft] = useState<LimitsDraft>(() => draftOf(budget));
  const [local, setLocal] = useState<ShownError | null>(null);
  const save = useAction<Budget>(() => {
    const built = limitsOf(draft);
    if (!built.ok) throw new Error(built.message);
    return of.client(api.actions).put(budget.name, built.limits);
  }, onSaved);
  const error = local ?? save.error;
  const set = (name: Exclude<keyof LimitsDraft, 'adaptive'>) => (event: Event) => setDraft({ ...draft, [name]: (event.currentTarget as HTMLInputElement).value });

  const submit = (event: Event) => {
    event.preventDefault();
    const built = limitsOf(draft);
    if (!built.ok) {
      save.clear();
      setLocal(localProblem(built.field, built.message));
      return;
    }
    setLocal(null);
    void save.run();
  };

  return (
    <section class="panel edit-limits" aria-labelledby="edit-limits-title">
      <h2 id="edit-limits-title">Edit limits</h2>
      <p class="muted">Saving replaces the whole configuration: an empty field means no such limit. The pause is kept.</p>
      <form noValidate onSubmit={submit}>
        <fieldset>
          <legend>Rate</legend>
          <p class="hint">Attempts started per period. Leave all three empty for no rate limit.</p>
          <div class="limit-fields">
            <NumberField id="el-limit" field="rate.limit" label="Attempts per period" placeholder="10" error={error} value={draft.limit} onInput={set('limit')} />
            <Field id="el-period" field="rate.period" label="Period" error={error} hint="1s to 1h: 1s, 90s, 1m, 1h.">
              <input class="mono" placeholder="1s" spellcheck={false} autocomplete="off" value={draft.period} onInput={set('period')} {...fieldAttributes(error, 'rate.period', 'el-period')} />
            </Field>
            <NumberField id="el-burst" field="rate.burst" label="Burst" placeholder="the limit" hint="At most this many at once after an idle spell." error={error} value={draft.burst} onInput={set('burst')} />
          </div>
        </fieldset>
        <div class="limit-fields">
          <NumberField id="el-concurrency" field="concurrency" label="Concurrency" placeholder="none" hint="Attempts in flight at once, 1 to 10,000." error={error} value={draft.concurrency} onInput={set('concurrency')} />
        </div>
        <label class="choice">
          <input type="checkbox" checked={draft.adaptive} onChange={(e) => setDraft({ ...draft, adaptive: e.currentTarget.checked })} /> Adaptive: a destination's
          429 or 503 lowers the admitted rate for a while
        </label>
        <div class="row form-buttons">
          <button type="submit" class="primary" disabled={save.busy}>
            {save.busy ? 'Saving…' : 'Save'}
          </button>
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </form>
      {save.error ? <ErrorNotice error={save.error} /> : null}
    </section>
  );
}

function Field({ id, field, label, hint, error, children }: { id: string; field: LimitsField; label: string; hint?: string; error: ShownError | null; children: ComponentChildren }) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children}
      {hint ? <p class="hint">{hint}</p> : null}
      <FieldProblem error={error} field={field} id={id} />
    </div>
  );
}

/**
 * A count typed as text, not `type="number"`: a number input hands over an empty value for what it cannot read,
 * which here would silently mean "no limit".
 */
function NumberField(props: { id: string; field: LimitsField; label: string; placeholder: string; hint?: string; error: ShownError | null; value: string; onInput: (e: Event) => void }) {
  const { id, field, error } = props;
  return (
    <Field id={id} field={field} label={props.label} hint={props.hint} error={error}>
      <input inputMode="numeric" autocomplete="off" placeholder={props.placeholder} value={props.value} onInput={props.onInput} {...fieldAttributes(error, field, id)} />
    </Field>
  );
}
