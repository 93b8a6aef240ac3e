import type { ApiCallObserver } from '../../ports/telemetry.js';
import { errorStage } from './failure.js';
import type { ApiCallGate } from './gate.js';
import { notesStage } from './notes.js';
import { observeStage } from './observe.js';
import type { AnswerStage, UnaryCall, UnaryHandler } from './unary-call.js';

/** What the shared stages need: where calls are reported, and the gate, for the calls a drain refuses. */
export interface ChainOptions {
  readonly observer: ApiCallObserver | undefined;
  /** Absent for calls that must be answered while the process drains (the gRPC health checks). */
  readonly gate: ApiCallGate | undefined;
}

/**
 * The one chain every unary call goes through, on every protocol:
 *
 *   observe → the protocol's answer → errors → gate → notes → the service
 *
 * Observe reports the call once answered, so it sits outside the answer. The answer renders what the errors
 * stage made of a failure (one mapping to the catalogue) in the protocol's form. The gate refuses a call before
 * anything of the service runs, so while draining SHUTTING_DOWN comes before any authentication; the notes are
 * where the service records what the observer reports, and the service decides when input that could not be read
 * is refused (after the caller authenticated, see `noteProjectOf`).
 */
export function unaryChain<C extends UnaryCall, R>(opts: ChainOptions, answer: AnswerStage<C, R>, service: UnaryHandler<C>): UnaryHandler<C, R> {
  const noted = notesStage(service);
  const gated = opts.gate === undefined ? noted : opts.gate.stage(noted);
  return observeStage(opts.observer)(answer(errorStage(gated)));
}
