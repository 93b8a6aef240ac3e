// The request lifecycle: the statuses and every transition between them, named. Both storage backends take their
// writes from these, and the delivery engine and the use cases decide with them.
//
//   accepted ─▶ queued | scheduled ─claimed─▶ delivering ─attempt settled─▶ succeeded | failed | queued (retry)
//                      ▲                         │  │
//                      └──── handed back ────────┘  └─ lease released: due again, still delivering
//   cancel asked: queued | scheduled ─▶ cancelled at once; delivering ─▶ cancel requested, settled by the attempt
//   cancel made final: a claimed request whose cancel was asked before the claim ─▶ cancelled, no attempt
//   cancel applied on read: how readers see a cancel its deliverer has not made final yet (Cassandra)
//   ended succeeded | failed with a callback named for that ending ─▶ the callback created in the same write
export { settleAttempt, stillClaimed, type AttemptTiming, type Settlement } from './attempts.js';
export {
  CALLBACK_CONTENT_TYPE,
  CALLBACK_MAX_ATTEMPTS,
  callbackFor,
  replayedCallbackFor,
  type CallbackReport,
  type ReportedResponse,
} from './callbacks.js';
export { cancelAsRead, cancelMadeFinal, decideCancel, statusAsRead, type CancelDecision } from './cancels.js';
export {
  ACTIVE_STATUSES,
  LEASED_STATUS,
  TERMINAL_STATUSES,
  WAITING_STATUSES,
  canReplay,
  isActive,
  isHiddenByRetention,
  isLeased,
  isTerminal,
  isWaiting,
  retentionCutoff,
} from './statuses.js';
export {
  CLAIMED_FROM,
  RELEASED_FROM,
  accepted,
  applied,
  claimed,
  followedBy,
  handedBack,
  leaseReleased,
  WOKEN_FROM,
  woken,
  type NewRequestIdentity,
  type Transition,
} from './transitions.js';
