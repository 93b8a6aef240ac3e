import type { ApiCall, ApiCallObserver, CallProtocol } from '../../ports/telemetry.js';
import { notesIfAny, type CallNotes } from './notes.js';
import type { Answer, SharedStage } from './unary-call.js';

/**
 * The observe stage: reports every call once its protocol's answer stage has handed the answer on (a call whose
 * client left before that is not reported), with its request ID, duration and what the service noted. The
 * observer writes the log line, counts the metrics and names the call's trace span.
 */
export function observeStage(observer: ApiCallObserver | undefined): SharedStage {
  if (observer === undefined) return (next) => next;
  return (next) => async (call) => {
    try {
      return await next(call);
    } finally {
      if (call.answer !== undefined) report(observer, call, call.answer, notesIfAny(call.context.values));
    }
  };
}

/** A call its protocol answered before it reached the chain (no route, a refused header, a request Node or Connect turned away). */
export interface RefusedCall {
  readonly protocol: CallProtocol;
  readonly route: string;
  readonly rpc: string;
  readonly requestId: string;
  readonly durationMs: number;
}

/** The route and RPC reported for a request that matched no route, or never became a call. */
export const UNMATCHED = 'unmatched';

/** Reports a call answered before the chain: no service ran, so nothing was noted and nothing thrown. */
export function reportRefused(observer: ApiCallObserver | undefined, call: RefusedCall, answer: Answer): void {
  observer?.observeCall(callReport(call, { ...answer, thrown: undefined }, call.durationMs, undefined));
}

function report(
  observer: ApiCallObserver,
  call: Omit<RefusedCall, 'durationMs'> & { readonly startedAt: number },
  answer: Answer,
  notes: CallNotes | undefined,
): void {
  observer.observeCall(callReport(call, answer, performance.now() - call.startedAt, notes));
}

/** What the observer is told of a call, answered through the chain (with its notes) or before it (without). */
function callReport(call: Omit<RefusedCall, 'durationMs'>, answer: Answer, durationMs: number, notes: CallNotes | undefined): ApiCall {
  return {
    protocol: call.protocol,
    route: call.route,
    rpc: call.rpc,
    status: answer.status,
    code: answer.code,
    field: answer.field,
    durationMs,
    requestId: call.requestId,
    projectId: notes?.projectId,
    accepted: answer.code === undefined ? notes?.accepted : undefined,
    error: answer.thrown,
  };
}
