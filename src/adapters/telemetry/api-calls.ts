import type { Acceptance } from '../../domain/request.js';
import type { AcceptEndpoint, ApiCall, ApiCallObserver, LogLevel } from '../../ports/telemetry.js';
import type { ServiceLogger } from './logger.js';
import type { PrometheusMetrics } from './prometheus-metrics.js';

/** The RPCs that accept requests, by full name (the same for every protocol). */
const ACCEPT_ENDPOINTS: ReadonlyMap<string, AcceptEndpoint> = new Map([
  ['ferry.v1.RequestService/Send', 'send'],
  ['ferry.v1.RequestService/CreateRequest', 'create'],
  ['ferry.v1.RequestService/BatchCreateRequests', 'batch'],
  ['ferry.v1.RequestService/ReplayRequest', 'replay'],
  ['ferry.v1.ScheduleService/TriggerSchedule', 'schedule'],
]);

/**
 * What an operator learns of each API call: its latency by route, protocol and status class, the requests it
 * accepted, allowance refusals, and a log line when it failed.
 *
 * Failed calls are logged by who is at fault. A 5xx is Ferry's side of the call (storage unavailable, an
 * unexpected error, a process refusing calls while it shuts down): logged at `error`, with the error's message,
 * and its stack at `debug`; at most `ERROR_LINES_PER_SECOND` a second, so an outage under load writes a count of
 * the rest rather than a line per call. A 4xx is the caller's (a bad key, invalid input, an exhausted allowance,
 * an idempotency key in use while a retry races): a busy service answers many, the caller already holds the full
 * error and the request_id, and the metrics count them by route and status class, so they are logged at `debug`
 * only, where they would otherwise drown the state changes that `info` is for. None carries input values: a line
 * names the error code and the field at fault, never its value.
 */
export function apiCallObserver(metrics: PrometheusMetrics | null, logger: ServiceLogger, now: () => number = Date.now): ApiCallObserver {
  const limit = new LinesPerSecond(ERROR_LINES_PER_SECOND, now, (skipped) =>
    logger.log('warn', 'api call failures not logged', { skipped, per_second: ERROR_LINES_PER_SECOND }),
  );
  return {
    observeCall(call) {
      if (metrics !== null) {
        metrics.apiCall(call.route, call.protocol, call.status, call.durationMs);
        if (call.accepted !== undefined) countAccepted(metrics, call.rpc, call.accepted);
        else if (call.code === 'MONTHLY_ALLOWANCE_EXCEEDED') metrics.allowanceRejected('monthly');
        else if (call.code === 'SCHEDULE_ALLOWANCE_EXCEEDED') metrics.allowanceRejected('schedules');
      }
      if (call.status >= 400) logFailure(logger, limit, call);
    },
  };
}

function countAccepted(metrics: PrometheusMetrics, rpc: string, accepted: Acceptance | readonly Acceptance[]): void {
  const endpoint = ACCEPT_ENDPOINTS.get(rpc);
  if (endpoint === undefined) return;
  if (!isList(accepted)) {
    metrics.accepted(endpoint, accepted.status, 1);
    return;
  }
  let scheduled = 0;
  for (const a of accepted) if (a.status === 'scheduled') scheduled++;
  if (scheduled > 0) metrics.accepted(endpoint, 'scheduled', scheduled);
  if (accepted.length > scheduled) metrics.accepted(endpoint, 'queued', accepted.length - scheduled);
}

function isList(accepted: Acceptance | readonly Acceptance[]): accepted is readonly Acceptance[] {
  return Array.isArray(accepted);
}

/** The log level of a failed call; see `apiCallObserver`. */
export function failureLevel(call: Pick<ApiCall, 'status'>): LogLevel {
  return call.status >= 500 ? 'error' : 'debug';
}

const ERROR_LINES_PER_SECOND = 20;

/** Lets `max` lines through per second of the clock; the first line let through later reports how many were held back. */
export class LinesPerSecond {
  private second = -1;
  private written = 0;
  private skipped = 0;

  constructor(
    private readonly max: number,
    private readonly now: () => number,
    private readonly reportSkipped: (skipped: number) => void,
  ) {}

  take(): boolean {
    const second = Math.floor(this.now() / 1000);
    if (second !== this.second) {
      this.second = second;
      this.written = 0;
      if (this.skipped > 0) this.reportSkipped(this.skipped);
      this.skipped = 0;
    }
    if (this.written < this.max) {
      this.written++;
      return true;
    }
    this.skipped++;
    return false;
  }
}

function logFailure(logger: ServiceLogger, limit: LinesPerSecond, call: ApiCall): void {
  const level = failureLevel(call);
  if (!logger.isEnabled(level) || (level === 'error' && !limit.take())) return;
  const fields: Record<string, unknown> = {
    request_id: call.requestId,
    route: call.route,
    protocol: call.protocol,
    status: call.status,
    code: call.code ?? null,
    duration_ms: Math.round(call.durationMs * 10) / 10,
  };
  if (call.projectId !== undefined) fields.project_id = call.projectId;
  if (call.field !== undefined) fields.field = call.field;
  if (level === 'error' && call.error !== undefined) {
    fields.error = describe(call.error);
    if (logger.isEnabled('debug') && call.error instanceof Error && call.error.stack !== undefined) fields.stack = call.error.stack;
  }
  logger.log(level, 'api call failed', fields);
}

/** The error's name and message, and its cause's, which is where a storage failure says what went wrong. */
function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const own = `${err.name}: ${err.message}`;
  return err.cause instanceof Error ? `${own} (cause: ${err.cause.name}: ${err.cause.message})` : own;
}
