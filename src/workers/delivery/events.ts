import type { RequestStatus } from '../../domain/request.js';

/** Typed lifecycle events of the delivery engine, for logs, metrics and tests alike. */
export type DeliveryEvent =
  | { readonly type: 'attempt_started'; readonly requestId: string; readonly attemptNumber: number }
  | { readonly type: 'attempt_finished'; readonly requestId: string; readonly attemptNumber: number; readonly requestStatus: RequestStatus }
  | { readonly type: 'claim_lost'; readonly requestId: string }
  | { readonly type: 'engine_error'; readonly error: string };
