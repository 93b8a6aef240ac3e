import type { LookupAddress, LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { isPublicAddress, normaliseAddress } from './address-policy.js';
import { BlockedDestinationError, DnsLookupError } from './transport-errors.js';

type LookupCallback = Parameters<LookupFunction>[2];

/**
 * Wraps a resolver so that the socket only ever sees public answers: non-public ones are dropped before connecting,
 * so no SYN goes to a private address. Lookup failures are tagged as DNS failures here, where that is certain,
 * instead of being guessed later from codes that the resolver and TCP share (ECONNREFUSED, ETIMEOUT).
 */
export function createGuardedLookup(lookup: LookupFunction, allowPrivate: boolean): LookupFunction {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    // Always ask for every answer: filtering a single answer could discard a usable public one behind it.
    lookup(hostname, { ...options, all: true }, (err, answer, family) => {
      if (err) {
        callback(new DnsLookupError(hostname, err), '');
        return;
      }
      const all = asAddressList(answer, family);
      const usable = allowPrivate ? all : all.filter((entry) => isPublicAddress(entry.address));
      if (usable.length === 0) {
        const error = all.length === 0
          ? new DnsLookupError(hostname, Object.assign(new Error('no addresses'), { code: 'ENODATA' }))
          : new BlockedDestinationError(
            `${hostname} resolves only to non-public addresses (${all.map((e) => normaliseAddress(e.address)).join(', ')}).`,
          );
        callback(error, '');
        return;
      }
      if (options.all === true) {
        callback(null, usable);
        return;
      }
      const first = usable[0]!;
      callback(null, first.address, first.family);
    });
  };
}

function asAddressList(answer: string | LookupAddress[], family: number | undefined): LookupAddress[] {
  if (Array.isArray(answer)) return answer;
  if (typeof answer === 'string' && answer !== '') return [{ address: answer, family: family ?? (answer.includes(':') ? 6 : 4) }];
  return [];
}
