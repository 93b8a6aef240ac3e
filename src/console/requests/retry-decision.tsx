import type { Attempt } from '../../../sdk/src/types.js';
import { Time } from '../ui/time.js';
import { durationText } from './durations.js';

type Decision = NonNullable<Attempt['retry']>;

/** Why an attempt is retried, in words: `http_503` → "the destination answered 503". */
export function reasonText(reason: string): string {
  const http = /^http_(\d{3})$/.exec(reason);
  if (http) return `the destination answered ${http[1]}`;
  if (reason === 'timeout') return 'the attempt timed out';
  if (reason === 'connection_error') return 'the connection to the destination failed';
  return reason.replace(/_/g, ' ');
}

/** What the destination's Retry-After said and how Ferry read it, e.g. `Retry-After: 2 (read as 2 s)`. */
export function retryAfterText(d: Decision): string {
  if (d.retry_after_status === 'absent') return 'No Retry-After header';
  const flags = [d.retry_after_truncated ? 'cut to its stored length' : '', d.retry_after_escaped ? 'unprintable characters escaped' : '']
    .filter(Boolean)
    .join(', ');
  const said = `Retry-After: ${d.retry_after_raw === '' ? '(empty)' : d.retry_after_raw}${flags ? ` [${flags}]` : ''}`;
  if (d.retry_after_status === 'valid') return `${said} (read as ${durationText(d.retry_after_delay_ms)})`;
  if (d.retry_after_status === 'invalid') return `${said} (not a valid delay or date, ignored)`;
  return `${said} (${d.retry_after_status})`;
}

/** Which delay was used and what it was weighed against, e.g. `chosen over backoff 0.8 s`. */
export function choiceText(d: Decision): string {
  const backoff = durationText(d.backoff_delay_ms);
  const selected = durationText(d.selected_delay_ms);
  if (d.delay_source === 'retry_after') {
    const capped = d.selected_delay_ms < d.retry_after_delay_ms ? `, capped at ${selected}` : '';
    return `chosen over backoff ${backoff}${capped}`;
  }
  if (d.delay_source === 'backoff') {
    const passedOver = d.retry_after_status === 'valid' ? ' (Retry-After is not honoured for this answer)' : '';
    return `backoff of ${selected} used${passedOver}`;
  }
  return `${selected} used (${d.delay_source})`;
}

/**
 * A retry decision as a person reads it — "Retry-After: 2 (read as 2 s) chosen over backoff 0.8 s; next try in
 * 2 s" — with the raw fields underneath for quoting.
 */
export function RetryDecision({ decision, current }: { decision: Decision; current: boolean }) {
  const nextAt = decision.next_attempt_at;
  const due = nextAt !== null && Date.parse(nextAt) > Date.now();
  return (
    <div class="retry-decision">
      <p>
        <strong>Retried</strong> because {reasonText(decision.reason)}.
      </p>
      <p class="retry-sentence">
        {retryAfterText(decision)}
        {decision.delay_source === 'retry_after' ? ' ' : '; '}
        {choiceText(decision)}; {current && due ? 'next try ' : 'next try was due '}
        <Time value={nextAt} planned />
      </p>
      <details>
        <summary>Decision as recorded</summary>
        <dl class="facts">
          <dt>reason</dt>
          <dd><code>{decision.reason}</code></dd>
          <dt>retry_after_raw</dt>
          <dd><code>{JSON.stringify(decision.retry_after_raw)}</code></dd>
          <dt>retry_after_status</dt>
          <dd><code>{decision.retry_after_status}</code>{decision.retry_after_truncated ? ', truncated' : ''}{decision.retry_after_escaped ? ', escaped' : ''}</dd>
          <dt>retry_after_delay_ms</dt>
          <dd>{decision.retry_after_delay_ms}</dd>
          <dt>backoff_delay_ms</dt>
          <dd>{decision.backoff_delay_ms}</dd>
          <dt>selected_delay_ms</dt>
          <dd>{decision.selected_delay_ms} ({decision.delay_source})</dd>
          <dt>next_attempt_at</dt>
          <dd><code>{nextAt ?? '—'}</code></dd>
        </dl>
      </details>
    </div>
  );
}
