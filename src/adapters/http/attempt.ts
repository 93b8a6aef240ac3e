import type { Dispatcher } from 'undici';
import type { AttemptOutcome } from '../../domain/delivery/outcome.js';
import type { OutboundRequest } from '../../ports/delivery-transport.js';
import { isPublicAddress, literalAddress, normaliseAddress } from './address-policy.js';
import { AttemptHandler } from './attempt-handler.js';

export interface AttemptSettings {
  readonly allowPrivate: boolean;
  readonly maxResponseBytes: number;
  readonly userAgent: string | undefined;
  /** Whether excerpts may come back as views of undici's chunks (see `AttemptHandler`). */
  readonly excerptViews: boolean;
}

/**
 * Stops for the attempts in flight (shutdown). A set rather than one shared AbortSignal: hundreds of attempts
 * adding and removing listeners on one signal pay a scan of its listener list each time.
 */
export type InFlightAttempts = Set<() => void>;

/** One delivery attempt through `agent`, bounded by the request's deadline; `inFlight` holds its stop meanwhile. */
export function runAttempt(agent: Dispatcher, req: OutboundRequest, settings: AttemptSettings, inFlight: InFlightAttempts): Promise<AttemptOutcome> {
  const url = new URL(req.url);
  // Guard (a): the lookup hook never runs for an address literal, so it is judged here, before any connection.
  const literal = literalAddress(url.hostname);
  if (!settings.allowPrivate && literal !== null && !isPublicAddress(literal)) {
    return Promise.resolve({ kind: 'blocked', message: `The destination address ${normaliseAddress(literal)} is not a public address.` });
  }
  if (!(req.timeoutMs > 0)) return Promise.resolve({ kind: 'timeout', phase: 'total' });

  const budgetMs = Math.max(1, Math.ceil(req.timeoutMs));
  return new Promise<AttemptOutcome>((resolve, reject) => {
    const done = (): void => {
      clearTimeout(deadline);
      inFlight.delete(stop);
    };
    const handler = new AttemptHandler(
      settings.maxResponseBytes,
      // Never more than the bounded read takes anyway.
      Math.min(Math.max(0, req.captureBodyBytes ?? 0), settings.maxResponseBytes),
      settings.excerptViews,
      (outcome) => {
        done();
        resolve(outcome);
      },
      (err) => {
        done();
        reject(err);
      },
    );
    const deadline = setTimeout(() => handler.halt({ kind: 'timeout', phase: handler.phase }), budgetMs);
    const stop = (): void => handler.halt({ kind: 'aborted' });
    inFlight.add(stop);
    try {
      agent.dispatch(
        {
          origin: url.origin,
          path: `${url.pathname}${url.search}`,
          method: req.method,
          headers: wireHeaders(req.headers, settings.userAgent),
          body: req.body ?? null,
          // undici's own phase timers start later than the attempt's deadline, so they only ever back it up.
          headersTimeout: budgetMs,
          bodyTimeout: budgetMs,
        },
        handler,
      );
    } catch (err) {
      handler.onResponseError(undefined, err as Error);
    }
  });
}

/** undici's flat name/value list keeps the given order and spelling of every header. */
function wireHeaders(headers: OutboundRequest['headers'], userAgent: string | undefined): string[] {
  const flat: string[] = [];
  let hasUserAgent = false;
  for (const [name, value] of headers) {
    flat.push(name, value);
    if (name.toLowerCase() === 'user-agent') hasUserAgent = true;
  }
  if (userAgent !== undefined && !hasUserAgent) flat.push('User-Agent', userAgent);
  return flat;
}
