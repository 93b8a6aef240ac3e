import type { Schedule } from '../../../sdk/src/types.js';
import { FlowKeyLinks } from '../flow/waiting-for.js';
import { KeyValues } from '../ui/key-values.js';

/** The body as text: JSON shown indented, exactly what each run sends as application/json. */
export function bodyText(body: unknown): string | null {
  if (body === undefined || body === null) return null;
  return JSON.stringify(body, null, 2);
}

function retriesText(retry: number): string {
  if (retry === 0) return 'none: one attempt per run';
  return `${retry} additional, so up to ${retry + 1} attempts per run`;
}

/** What every run of the schedule sends: always a POST, with the stored body and headers (values redacted). */
export function RequestDefinition({ schedule }: { schedule: Schedule }) {
  const request = schedule.request;
  const headers = Object.entries(request?.headers ?? {});
  const body = bodyText(request?.body);
  return (
    <section class="panel" aria-labelledby="definition-title">
      <h2 id="definition-title">Request sent at each run</h2>
      <dl class="facts">
        <dt>Method</dt>
        <dd>
          <code>POST</code> <span class="muted">(schedules always deliver with POST)</span>
        </dd>
        <dt>URL</dt>
        <dd class="mono">{request?.url ?? schedule.url}</dd>
        <dt>Retries</dt>
        <dd>{retriesText(request?.retry ?? schedule.retry)}</dd>
        <dt>Flow keys</dt>
        <dd>
          <FlowKeyLinks keys={request?.flow_keys ?? []} />
        </dd>
        <dt>Queue</dt>
        <dd class="mono">{request?.queue ?? 'default'}</dd>
        <dt>Timeout</dt>
        <dd>{request?.timeout ?? '50s'} per attempt</dd>
        <dt>Metadata</dt>
        <dd>
          <KeyValues entries={request?.metadata ?? {}} empty="none" label="Metadata" />
        </dd>
        <dt>Content type</dt>
        <dd>{body === null ? <span class="muted">no body</span> : <code>application/json</code>}</dd>
        <dt>Headers</dt>
        <dd>
          {headers.length === 0 ? (
            <span class="muted">none</span>
          ) : (
            <table class="headers">
              <tbody>
                {headers.map(([name, value]) => (
                  <tr key={name}>
                    <th scope="row" class="mono">
                      {name}
                    </th>
                    <td class="mono">{value}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {headers.length > 0 ? <p class="hint">Ferry never shows header values again once stored.</p> : null}
        </dd>
        <dt>Body</dt>
        <dd>{body === null ? <span class="muted">none</span> : <pre>{body}</pre>}</dd>
      </dl>
    </section>
  );
}
