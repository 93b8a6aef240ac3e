import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { Acceptance } from '../../../sdk/src/types.js';
import { useSession } from '../shell/context.js';
import { hrefOf } from '../shell/router.js';
import { CopyId } from '../ui/copy-id.js';
import { ErrorNotice } from '../ui/error-notice.js';
import { Time } from '../ui/time.js';
import { useAction } from '../ui/use-action.js';
import { UTC_FIELD_PLACEHOLDER } from '../ui/utc-field.js';
import { METHODS } from './list-query.js';
import { EMPTY_DRAFT, buildInput, formFieldOf, type SendDraft, type SendField } from './send-input.js';
import './requests.css';

/** A form for a test request through `POST /requests`, with the API's refusals shown next to the field at fault. */
export function SendPage() {
  const { api } = useSession();
  const [draft, setDraft] = useState<SendDraft>(EMPTY_DRAFT);
  const [local, setLocal] = useState<{ field: SendField; message: string } | null>(null);
  const send = useAction<Acceptance>(() => {
    const built = buildInput(draft);
    if (!built.ok) throw new Error(built.message);
    const key = draft.idempotencyKey.trim();
    return api.actions.requests.create(built.input, key === '' ? {} : { idempotencyKey: key });
  });

  const apiField = send.error ? formFieldOf(send.error.field) : null;
  const errorOf = (field: SendField): string | null => {
    if (local?.field === field) return local.message;
    if (apiField === field && send.error) return send.error.message;
    return null;
  };
  const set = (name: keyof SendDraft) => (event: Event) =>
    setDraft({ ...draft, [name]: (event.currentTarget as HTMLInputElement).value });

  const submit = (event: Event) => {
    event.preventDefault();
    const built = buildInput(draft);
    if (!built.ok) {
      send.clear();
      setLocal({ field: built.field, message: built.message });
      return;
    }
    setLocal(null);
    void send.run();
  };

  return (
    <>
      <h1>Send a test request</h1>
      <p class="muted">
        Ferry accepts it like any <code>POST /requests</code> call from this project: it counts against the monthly allowance and is delivered for
        real.
      </p>
      {send.result ? <Accepted acceptance={send.result} /> : null}
      {send.error ? <ErrorNotice error={send.error} /> : null}
      <form class="panel send-form" aria-label="Test request" noValidate onSubmit={submit}>
        <div class="send-line">
          <Field id="s-url" label="URL" error={errorOf('url')} hint="The public HTTPS destination.">
            <input id="s-url" type="url" required placeholder="https://hooks.example.com/in" value={draft.url} onInput={set('url')} {...invalid('s-url', errorOf('url'))} />
          </Field>
          <Field id="s-method" label="Method" error={errorOf('method')}>
            <select id="s-method" value={draft.method} onChange={set('method')} {...invalid('s-method', errorOf('method'))}>
              {METHODS.map((m) => (
                <option key={m} value={m}>
                  {m}
                </option>
              ))}
            </select>
          </Field>
        </div>
        <Field id="s-body" label="Body (JSON)" error={errorOf('body')} hint="Any JSON value, delivered as application/json. Empty sends no body.">
          <textarea id="s-body" rows={5} placeholder='{"order": 42}' value={draft.body} onInput={set('body')} {...invalid('s-body', errorOf('body'))} />
        </Field>
        <div class="send-pair">
          <Field id="s-headers" label="Headers" error={errorOf('headers')} hint="One per line, as Name: value. Sent to the destination as given.">
            <textarea id="s-headers" rows={3} placeholder="X-Tenant: acme" value={draft.headers} onInput={set('headers')} {...invalid('s-headers', errorOf('headers'))} />
          </Field>
          <Field id="s-metadata" label="Metadata (JSON)" error={errorOf('metadata')} hint="An object of strings, stored with the request and never forwarded.">
            <textarea id="s-metadata" rows={3} placeholder='{"order": "42"}' value={draft.metadata} onInput={set('metadata')} {...invalid('s-metadata', errorOf('metadata'))} />
          </Field>
        </div>
        <fieldset class="when">
          <legend>Deliver</legend>
          <div class="row">
            {(['now', 'delay', 'at'] as const).map((when) => (
              <label key={when} class="choice">
                <input type="radio" name="when" value={when} checked={draft.when === when} onChange={() => setDraft({ ...draft, when })} />{' '}
                {when === 'now' ? 'Now' : when === 'delay' ? 'After a delay' : 'At a time'}
              </label>
            ))}
          </div>
          {draft.when === 'delay' ? (
            <Field id="s-delay" label="Delay" error={errorOf('delay')} hint="An integer and s, m, h or d: 30s, 10m, 2h; up to 30d.">
              <input id="s-delay" placeholder="10m" value={draft.delay} onInput={set('delay')} {...invalid('s-delay', errorOf('delay'))} />
            </Field>
          ) : null}
          {draft.when === 'at' ? (
            <Field id="s-at" label="Deliver at (UTC)" error={errorOf('deliver_at')} hint={`${UTC_FIELD_PLACEHOLDER}, 24-hour; within 30 days; a past time means now.`}>
              <input
                id="s-at"
                class="mono"
                placeholder={UTC_FIELD_PLACEHOLDER}
                spellcheck={false}
                autocomplete="off"
                value={draft.deliverAt}
                onInput={set('deliverAt')}
                {...invalid('s-at', errorOf('deliver_at'))}
              />
            </Field>
          ) : null}
        </fieldset>
        <div class="send-triple">
          <Field id="s-attempts" label="Attempts in all" error={errorOf('retry')} hint="1 to 20, the first included; empty: 3 (the first and up to 2 retries).">
            <input id="s-attempts" type="number" min={1} max={20} placeholder="3" value={draft.maxAttempts} onInput={set('maxAttempts')} {...invalid('s-attempts', errorOf('retry'))} />
          </Field>
          <Field id="s-timeout" label="Timeout per attempt" error={errorOf('timeout')} hint="1s to 5m; 50s when empty.">
            <input id="s-timeout" placeholder="50s" value={draft.timeout} onInput={set('timeout')} {...invalid('s-timeout', errorOf('timeout'))} />
          </Field>
          <Field id="s-key" label="Idempotency key" error={errorOf('idempotency_key')} hint="Optional: the same key and input answer the first acceptance.">
            <input id="s-key" value={draft.idempotencyKey} onInput={set('idempotencyKey')} {...invalid('s-key', errorOf('idempotency_key'))} />
          </Field>
        </div>
        <Field
          id="s-flow-keys"
          label="Flow keys"
          error={errorOf('flow_keys')}
          hint="Optional: up to 4, separated by commas. Each attempt starts only when its queue and every one of these keys admit it."
        >
          <input
            id="s-flow-keys"
            class="mono"
            placeholder="customer:42, vendor:acme"
            spellcheck={false}
            autocomplete="off"
            value={draft.flowKeys}
            onInput={set('flowKeys')}
            {...invalid('s-flow-keys', errorOf('flow_keys'))}
          />
        </Field>
        <div class="row form-buttons">
          <button type="submit" class="primary" disabled={send.busy}>
            {send.busy ? 'Sending…' : 'Send'}
          </button>
          <button type="button" onClick={() => { setDraft(EMPTY_DRAFT); setLocal(null); send.clear(); }}>
            Reset
          </button>
        </div>
      </form>
    </>
  );
}

function Accepted({ acceptance }: { acceptance: Acceptance }) {
  return (
    <div class="notice ok" role="status">
      <strong>Accepted</strong>: <CopyId id={acceptance.id} href={hrefOf({ page: 'request', id: acceptance.id })} />{' '}
      {acceptance.status === 'scheduled' ? (
        <>
          scheduled for <Time value={acceptance.scheduled_at} planned />.
        </>
      ) : (
        <>queued for delivery now.</>
      )}
      <p>
        <a href={hrefOf({ page: 'request', id: acceptance.id })}>Follow its delivery</a>
      </p>
    </div>
  );
}

/** The accessibility attributes of an input with or without an error below it. */
function invalid(id: string, error: string | null) {
  return { 'aria-invalid': error !== null ? true : undefined, 'aria-describedby': `${id}-hint ${id}-error` };
}

function Field({ id, label, hint, error, children }: { id: string; label: string; hint?: string; error: string | null; children: ComponentChildren }) {
  return (
    <div class={`field${error !== null ? ' has-error' : ''}`}>
      <label for={id}>{label}</label>
      {children}
      {hint ? (
        <p class="muted hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
      {error !== null ? (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      ) : null}
    </div>
  );
}
