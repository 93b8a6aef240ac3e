import type { WithRequestId } from '../types.js';

/**
 * Hands back a call's data with the call's `request_id` as a non-enumerable `requestId`: it is there to quote to
 * support, and stays out of `toEqual`, spreads and `JSON.stringify`, which show only what Ferry answered.
 */
export function withRequestId<T extends object>(data: T, requestId: string): WithRequestId<T> {
  Object.defineProperty(data, 'requestId', { value: requestId, enumerable: false, writable: false, configurable: true });
  return data as WithRequestId<T>;
}
