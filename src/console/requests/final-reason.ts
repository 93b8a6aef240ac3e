import type { Attempt } from '../../../sdk/src/types.js';

/** Why an attempt ended its request, in a few words; null when it did not (a success, a retry, a cancel). */
export function finalReasonWords(reason: Attempt['final_reason']): string | null {
  switch (reason) {
    case 'receiver_stopped':
      return 'the destination asked for no more attempts';
    case 'attempts_exhausted':
      return 'this was the last attempt allowed';
    case 'final_status':
      return 'Ferry does not retry this outcome';
    default:
      return null;
  }
}

/** Why an attempt ended its request, as a sentence; null when it did not (a success, a retry, a cancel). */
export function finalReasonText(reason: Attempt['final_reason']): string | null {
  const words = finalReasonWords(reason);
  return words === null ? null : `Not retried: ${words}.`;
}
