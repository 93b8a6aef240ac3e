import type { Attempt, RequestDetail } from '../../../sdk/src/types.js';
import { WaitingForText } from '../flow/waiting-for.js';
import { Time } from '../ui/time.js';

/** The one-line answer to "what happened, and what happens next?", above everything else on the request page. */
export function RequestHeadline({ request }: { request: RequestDetail }) {
  const last: Attempt | undefined = request.attempts[request.attempts.length - 1];
  const made = request.attempts.length;
  const of = `${made} of ${request.max_attempts}`;
  const tone = request.status === 'succeeded' ? 'ok' : request.status === 'failed' ? 'error' : '';
  return (
    <div class={`notice headline ${tone}`} role="status" aria-live="polite">
      <Line request={request} last={last} made={made} of={of} />
    </div>
  );
}

function Line({ request, last, made, of }: { request: RequestDetail; last: Attempt | undefined; made: number; of: string }) {
  // A queue or key holding the request back is the answer to "why has it not gone out?", before any due time.
  if (request.waiting_for !== null && (request.status === 'queued' || request.status === 'scheduled')) {
    return (
      <>
        <strong>Held back</strong>: <WaitingForText waitingFor={request.waiting_for} />. Attempt {made + 1} of {request.max_attempts} starts as soon as
        its queue and flow keys all admit it.
      </>
    );
  }
  switch (request.status) {
    case 'succeeded':
      return (
        <>
          <strong>Delivered</strong> on attempt {of}
          {last?.response_status_code != null ? ` (HTTP ${last.response_status_code})` : ''} <When value={request.completed_at} />
        </>
      );
    case 'failed':
      return (
        <>
          <strong>Failed</strong> after {made === 1 ? 'one attempt' : `${made} attempts`} ({of} allowed)
          {last?.error_message ? `: ${last.error_message}` : ''} <When label="ended" value={request.completed_at} />
        </>
      );
    case 'cancelled':
      return (
        <>
          <strong>Cancelled</strong>
          {made > 0 ? ` after ${made} ${made === 1 ? 'attempt' : 'attempts'}` : ' before any attempt'} <When value={request.cancelled_at ?? request.completed_at} />
        </>
      );
    case 'scheduled':
      return (
        <>
          <strong>Waiting</strong> for its delivery time: <When label="first attempt" value={request.scheduled_at} planned />
        </>
      );
    case 'delivering':
      return (
        <>
          <strong>Delivering</strong>: attempt {made + 1} of {request.max_attempts} is under way.
        </>
      );
    case 'queued':
      if (last?.retry) {
        return (
          <>
            <strong>Retrying</strong>: attempt {made} {last.error_message ? `failed (${last.error_message})` : 'failed'};{' '}
            <When label={`attempt ${made + 1} of ${request.max_attempts}`} value={last.retry.next_attempt_at} planned />
          </>
        );
      }
      return (
        <>
          <strong>Queued</strong>: {made === 0 ? 'the first attempt is due now.' : `attempt ${made + 1} of ${request.max_attempts} is due now.`}
        </>
      );
    default:
      return <>Status unknown.</>;
  }
}

/** The time part of a headline, kept together so that it wraps as one piece on narrow screens. */
function When({ label, value, planned = false }: { label?: string; value: string | null; planned?: boolean }) {
  return (
    <span class="when">
      {label ? `${label} ` : '· '}
      <Time value={value} planned={planned} />
    </span>
  );
}
