import type { RequestDetail } from '../../../sdk/src/types.js';
import { FlowKeyLinks } from '../flow/waiting-for.js';
import { useSession } from '../shell/context.js';
import { hrefOf } from '../shell/router.js';
import { CopyId } from '../ui/copy-id.js';
import { ErrorNotice } from '../ui/error-notice.js';
import { KeyValues } from '../ui/key-values.js';
import { StatusBadge } from '../ui/status-badge.js';
import { Time } from '../ui/time.js';
import { useNow } from '../ui/use-now.js';
import { usePolled } from '../ui/use-polled.js';
import { AttemptTimeline } from './attempt-timeline.js';
import { RequestActions } from './request-actions.js';
import { RequestHeadline } from './request-headline.js';
import { hasEnded } from './request-status.js';
import './requests.css';

/** How often an open request that has not ended is read again. */
const LIVE_EVERY_MS = 2_000;

export function RequestPage({ id }: { id: string }) {
  // A new ID is a new page: nothing of the previous request (its answers to actions) may linger.
  return <RequestView key={id} id={id} />;
}

function RequestView({ id }: { id: string }) {
  const { api } = useSession();
  const polled = usePolled(() => api.reads.requests.get(id), [id], {
    everyMs: LIVE_EVERY_MS,
    settled: (r: RequestDetail) => hasEnded(r.status),
  });
  const request = polled.data;
  // Re-renders now and then, so relative times move on after polling has stopped.
  useNow(10_000);

  if (request === null) {
    if (polled.error?.status === 404) {
      return (
        <>
          <BackLink />
          <h1>No such request in this project</h1>
          <div class="notice error" role="alert">
            <strong>
              <code>{id}</code> was not found.
            </strong>
            <p>It may belong to another project (the API key chooses the project), be mistyped, or have passed the project's history retention.</p>
          </div>
        </>
      );
    }
    return (
      <>
        <BackLink />
        <h1>Request</h1>
        {polled.error ? <ErrorNotice error={polled.error} /> : <p class="muted">Loading…</p>}
      </>
    );
  }

  return (
    <>
      <BackLink />
      <div class="spread request-title">
        <h1>
          Request <CopyId id={request.id} />
        </h1>
        {request.status ? <StatusBadge status={request.status} /> : null}
      </div>
      {polled.error ? <ErrorNotice error={polled.error} /> : null}
      <RequestHeadline request={request} />
      <RequestActions request={request} onChanged={polled.refresh} />

      <h2>Attempts</h2>
      <AttemptTimeline request={request} />

      <h2>Definition</h2>
      <section class="panel" aria-label="Definition">
        <dl class="facts">
          <dt>URL</dt>
          <dd>
            <code class="url-text">{request.url}</code>
          </dd>
          <dt>Method</dt>
          <dd>{request.method}</dd>
          <dt>Body</dt>
          <dd>
            {request.content_type === '' ? <span class="muted">No body.</span> : <code>{request.content_type}</code>}{' '}
            <span class="muted">Ferry delivers the stored body but never returns it.</span>
          </dd>
          <dt>Queue</dt>
          <dd>
            <a href={hrefOf({ page: 'queue', name: request.queue })}>
              <code>{request.queue}</code>
            </a>
          </dd>
          <dt>Flow keys</dt>
          <dd>
            <FlowKeyLinks keys={request.flow_keys} />
          </dd>
          <dt>Attempts</dt>
          <dd>{attemptsText(request.max_attempts)}</dd>
          <dt>Timeout</dt>
          <dd>{request.timeout_seconds} s per attempt</dd>
          <dt>Source</dt>
          <dd>
            <Source request={request} />
          </dd>
          <dt>Callbacks</dt>
          <dd>
            <Callbacks request={request} />
          </dd>
        </dl>
        <h3>Headers</h3>
        <KeyValues entries={request.headers} label="Headers" empty="No destination headers." />
        <h3>Metadata</h3>
        <KeyValues entries={request.metadata} label="Metadata" empty="No metadata." />
      </section>

      <h2>Times</h2>
      <section class="panel" aria-label="Times">
        <dl class="facts">
          <dt>Created</dt>
          <dd><Time value={request.created_at} /></dd>
          <dt>Scheduled for</dt>
          <dd><Time value={request.scheduled_at} planned /></dd>
          <dt>First attempt started</dt>
          <dd><Time value={request.started_at} /></dd>
          <dt>Ended</dt>
          <dd><Time value={request.completed_at} /></dd>
          <dt>Cancelled</dt>
          <dd><Time value={request.cancelled_at} /></dd>
          <dt>Last changed</dt>
          <dd><Time value={request.updated_at} /></dd>
        </dl>
      </section>
    </>
  );
}

/** `max_attempts` counts every attempt, the first included: the retries are the rest. */
function attemptsText(maxAttempts: number): string {
  if (maxAttempts === 1) return '1 in all: no retry';
  const retries = maxAttempts - 1;
  return `${maxAttempts} in all: the first and up to ${retries} ${retries === 1 ? 'retry' : 'retries'}, exponential backoff`;
}

/**
 * Where the request's ending is reported, and the callbacks made for it; on a callback, the request it reports on.
 * A cancelled request reports nothing, which the empty state says.
 */
function Callbacks({ request }: { request: RequestDetail }) {
  const made = request.callback_request_ids ?? [];
  const urls = request.callbacks;
  return (
    <>
      {urls?.on_success ? (
        <div>
          On success: <code class="url-text">{urls.on_success}</code>
        </div>
      ) : null}
      {urls?.on_failure ? (
        <div>
          On failure: <code class="url-text">{urls.on_failure}</code>
        </div>
      ) : null}
      {made.map((id) => (
        <div key={id}>
          Reported by <CopyId id={id} href={hrefOf({ page: 'request', id })} />
        </div>
      ))}
      {urls && made.length === 0 ? <div class="muted">No callback yet: one is made when the request succeeds or fails (not when cancelled).</div> : null}
      {!urls && made.length === 0 && !request.callback_for_request_id ? <span class="muted">None.</span> : null}
    </>
  );
}

function Source({ request }: { request: RequestDetail }) {
  if (request.callback_for_request_id) {
    return (
      <>
        Callback for <CopyId id={request.callback_for_request_id} href={hrefOf({ page: 'request', id: request.callback_for_request_id })} />
      </>
    );
  }
  if (request.schedule_id !== null) {
    return (
      <>
        Schedule <CopyId id={request.schedule_id} href={hrefOf({ page: 'schedule', id: request.schedule_id })} />
      </>
    );
  }
  if (request.replayed_from_request_id !== null) {
    return (
      <>
        Replay of <CopyId id={request.replayed_from_request_id} href={hrefOf({ page: 'request', id: request.replayed_from_request_id })} />
      </>
    );
  }
  return <>API</>;
}

function BackLink() {
  return (
    <p class="back">
      <a href={hrefOf({ page: 'requests', query: new URLSearchParams() })}>← All requests</a>
    </p>
  );
}
