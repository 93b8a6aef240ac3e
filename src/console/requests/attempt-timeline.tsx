import type { Attempt, RequestDetail } from '../../../sdk/src/types.js';
import { StatusBadge } from '../ui/status-badge.js';
import { Time } from '../ui/time.js';
import { AttemptResponse } from './attempt-response.js';
import { finalReasonText } from './final-reason.js';
import { durationText } from './durations.js';
import { RetryDecision } from './retry-decision.js';

/** The completed attempts of a request, oldest first, each with its outcome and, when it was retried, why and when. */
export function AttemptTimeline({ request }: { request: RequestDetail }) {
  const { attempts } = request;
  if (attempts.length === 0) {
    return <p class="muted">{noAttemptsYet(request)}</p>;
  }
  return (
    <ol class="timeline attempts" aria-label="Attempts">
      {attempts.map((attempt, index) => (
        <AttemptItem
          key={attempt.attempt_number}
          attempt={attempt}
          maxAttempts={request.max_attempts}
          current={index === attempts.length - 1 && request.status === 'queued'}
        />
      ))}
      {request.status === 'delivering' ? (
        <li class="in-flight">
          <strong>Attempt {attempts.length + 1}</strong> <StatusBadge status="in_flight" /> <span class="muted">under way now</span>
        </li>
      ) : null}
    </ol>
  );
}

function AttemptItem({ attempt, maxAttempts, current }: { attempt: Attempt; maxAttempts: number; current: boolean }) {
  const tone = attempt.status === 'succeeded' ? 'ok' : 'bad';
  return (
    <li class={tone}>
      <div class="spread">
        <h3 class="attempt-title">
          Attempt {attempt.attempt_number} <span class="muted">of {maxAttempts}</span>
        </h3>
        <span class="row">
          {attempt.status ? <StatusBadge status={attempt.status} /> : null}
          {attempt.response_status_code !== null ? <span class="http-code">HTTP {attempt.response_status_code}</span> : null}
          <span class="muted">{durationText(attempt.duration_ms)}</span>
        </span>
      </div>
      {attempt.error_message && attempt.error_message !== `HTTP ${attempt.response_status_code}` ? (
        <p class="attempt-error">{attempt.error_message}</p>
      ) : null}
      <p class="muted attempt-times">
        <span>
          Started <Time value={attempt.started_at} />
        </span>
        <span>
          Ended <Time value={attempt.completed_at} />
        </span>
      </p>
      {attempt.retry ? <RetryDecision decision={attempt.retry} current={current} /> : null}
      {finalReasonText(attempt.final_reason) !== null ? <p class="final-reason">{finalReasonText(attempt.final_reason)}</p> : null}
      {attempt.response ? <AttemptResponse response={attempt.response} /> : null}
    </li>
  );
}

function noAttemptsYet(request: RequestDetail): string {
  switch (request.status) {
    case 'scheduled':
      return 'No attempt yet: the first one waits for its delivery time.';
    case 'queued':
      return request.waiting_for !== null ? 'No attempt yet: the first one starts once nothing holds it back.' : 'No attempt yet: the first one is due now.';
    case 'delivering':
      return 'The first attempt is under way.';
    case 'cancelled':
      return 'Cancelled before any attempt was made.';
    default:
      return 'No attempt was recorded.';
  }
}
