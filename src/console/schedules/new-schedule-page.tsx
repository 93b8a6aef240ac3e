import { useState } from 'preact/hooks';
import type { ScheduleInput } from '../../../sdk/src/types.js';
import { useSession } from '../shell/context.js';
import type { ShownError } from '../shell/ferry-api.js';
import { hrefOf, navigate } from '../shell/router.js';
import { ErrorNotice } from '../ui/error-notice.js';
import { FieldProblem, fieldAttributes, localProblem } from '../ui/field-problem.js';
import { flowKeysOf } from '../requests/send-input.js';
import { PolicyFields, policyDraftOf, policyOf, type PolicyDraft } from './policy-fields.js';
import { RunPreview } from './run-preview.js';
import { draftOf, TimingFields, timingOf, type TimingDraft } from './timing-fields.js';
import { zoneOf } from './timing-words.js';
import { useCall, useTimingPreview } from './use-call.js';
import './schedules.css';

interface RequestDraft {
  readonly name: string;
  readonly url: string;
  readonly headers: string;
  readonly body: string;
  readonly retry: string;
  /** Comma-separated, as the send form takes them. */
  readonly flowKeys: string;
}

/** Headers typed one per line as `Name: value`; blank lines are skipped. */
function parseHeaders(text: string): { headers: Record<string, string> } | { problem: ShownError } {
  const headers: Record<string, string> = {};
  for (const [i, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    const colon = line.indexOf(':');
    if (colon <= 0) return { problem: localProblem('request.headers', `Line ${i + 1} is not “Name: value”.`) };
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return { headers };
}

/** The schedule to create from the form, or the first problem Ferry could not name itself (text that is not JSON). */
function inputOf(draft: RequestDraft, timingDraft: TimingDraft, policyDraft: PolicyDraft): ScheduleInput | ShownError {
  const timing = timingOf(timingDraft);
  if ('problem' in timing) return timing.problem;
  const policy = policyOf(policyDraft);
  if ('problem' in policy) return policy.problem;
  const headers = parseHeaders(draft.headers);
  if ('problem' in headers) return headers.problem;
  const request: ScheduleInput['request'] = { url: draft.url.trim(), headers: headers.headers, retry: Number(draft.retry) };
  const flowKeys = flowKeysOf(draft.flowKeys);
  if (flowKeys.length > 0) request.flow_keys = flowKeys;
  if (draft.body.trim() !== '') {
    try {
      request.body = JSON.parse(draft.body);
    } catch (err) {
      return localProblem('request.body', `The body is not JSON: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return { name: draft.name, timing: timing.timing, request, policy: policy.policy };
}

/** `#/schedules/new`: a schedule's request and timing, its next runs previewed before it is created. */
export function NewSchedulePage() {
  const { api } = useSession();
  const [draft, setDraft] = useState<RequestDraft>({ name: '', url: 'https://', headers: '', body: '', retry: '0', flowKeys: '' });
  const [timingDraft, setTimingDraft] = useState<TimingDraft>(() => draftOf(null));
  const [policyDraft, setPolicyDraft] = useState<PolicyDraft>(() => policyDraftOf(null));
  const [localError, setLocalError] = useState<ShownError | null>(null);
  const preview = useTimingPreview();
  const create = useCall();
  const set = (change: Partial<RequestDraft>) => setDraft({ ...draft, ...change });

  const built = timingOf(timingDraft);
  const ready = 'timing' in built && preview.isShowing(built.timing);
  const error = localError ?? create.error ?? preview.call.error;

  const runPreview = async () => {
    if ('problem' in built) return setLocalError(built.problem);
    setLocalError(null);
    create.setError(null);
    await preview.preview(built.timing);
  };
  const runCreate = async () => {
    const input = inputOf(draft, timingDraft, policyDraft);
    if ('title' in input) return setLocalError(input);
    setLocalError(null);
    const created = await create.run('create', () => api.actions.schedules.create(input));
    if (created !== undefined) navigate({ page: 'schedule', id: created.id });
  };

  return (
    <section aria-labelledby="new-schedule-title" class="new-schedule schedules-ui">
      <a href={hrefOf({ page: 'schedules', query: new URLSearchParams() })}>← Schedules</a>
      <h1 id="new-schedule-title">New schedule</h1>
      <form
        class="panel"
        onSubmit={(e) => {
          e.preventDefault();
          void (ready ? runCreate() : runPreview());
        }}
      >
        <label for="new-name">Name</label>
        <input {...fieldAttributes(error, 'name', 'new-name')} value={draft.name} onInput={(e) => set({ name: e.currentTarget.value })} />
        <FieldProblem error={error} field="name" id="new-name" />

        <fieldset>
          <legend>Request sent at each run</legend>
          <p class="hint">Always a POST; the body goes as application/json.</p>
          <label for="new-url">URL</label>
          <input
            {...fieldAttributes(error, 'request.url', 'new-url')}
            class="wide-input mono"
            inputMode="url"
            value={draft.url}
            spellcheck={false}
            onInput={(e) => set({ url: e.currentTarget.value })}
          />
          <FieldProblem error={error} field="request.url" id="new-url" />
          <label for="new-headers">Headers (one “Name: value” a line, optional)</label>
          <textarea
            {...fieldAttributes(error, 'request.headers', 'new-headers')}
            rows={3}
            spellcheck={false}
            value={draft.headers}
            onInput={(e) => set({ headers: e.currentTarget.value })}
          />
          <FieldProblem error={error} field="request.headers" id="new-headers" />
          <label for="new-body">Body (JSON, optional)</label>
          <textarea {...fieldAttributes(error, 'request.body', 'new-body')} rows={5} spellcheck={false} value={draft.body} onInput={(e) => set({ body: e.currentTarget.value })} />
          <FieldProblem error={error} field="request.body" id="new-body" />
          <label for="new-retry">Additional retries per run</label>
          <input
            {...fieldAttributes(error, 'request.retry', 'new-retry')}
            type="number"
            min={0}
            max={19}
            value={draft.retry}
            onInput={(e) => set({ retry: e.currentTarget.value })}
          />
          <p class="hint" id="new-retry-hint">
            0 to 19 retries after each run's first attempt; 0: one attempt per run.
          </p>
          <FieldProblem error={error} field="request.retry" id="new-retry" />
          <label for="new-flow-keys">Flow keys (comma-separated, optional)</label>
          <input
            {...fieldAttributes(error, 'request.flow_keys', 'new-flow-keys')}
            class="wide-input mono"
            spellcheck={false}
            value={draft.flowKeys}
            onInput={(e) => set({ flowKeys: e.currentTarget.value })}
          />
          <p class="hint">Every run's request counts against these keys' limits, as well as its queue's.</p>
          <FieldProblem error={error} field="request.flow_keys" id="new-flow-keys" />
        </fieldset>

        <TimingFields draft={timingDraft} onChange={setTimingDraft} error={error} prefix="new" />
        <PolicyFields draft={policyDraft} onChange={setPolicyDraft} error={error} prefix="new" />

        <div class="row form-buttons">
          <button type="button" onClick={runPreview} disabled={preview.call.busy !== null}>
            {preview.call.busy ? 'Previewing…' : 'Preview next runs'}
          </button>
          <button type="button" class="primary" onClick={runCreate} disabled={!ready || create.busy !== null}>
            {create.busy ? 'Creating…' : 'Create schedule'}
          </button>
          {!ready ? <span class="hint">Preview the timing to create the schedule.</span> : null}
        </div>
      </form>
      {error && error !== localError ? <ErrorNotice error={error} /> : null}
      {localError && localError.field === null ? <ErrorNotice error={localError} /> : null}
      {ready && preview.shown ? <RunPreview runs={preview.shown.runs} zone={zoneOf(preview.shown.timing)} caption="Next runs of this timing" /> : null}
    </section>
  );
}
