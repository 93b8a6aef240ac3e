import { request, type Dispatcher } from 'undici';
import type { AttemptOutcome } from '../../domain/delivery/outcome.js';
import type { OutboundRequest } from '../../ports/delivery-transport.js';
import { isPublicAddress, literalAddress, normaliseAddress } from './address-policy.js';
import { PhaseTracker, trackingDispatcher } from './attempt-phase.js';
import { outcomeOfError } from './outcome-of-error.js';
import { drainBounded } from './response-drain.js';

export interface AttemptSettings {
  readonly allowPrivate: boolean;
  readonly maxResponseBytes: number;
  readonly userAgent: string | undefined;
}

/**
 * Stops for the attempts in flight (shutdown). A set rather than one shared AbortSignal: hundreds of attempts
 * adding and removing listeners on one signal pay a scan of its listener list each time.
 */
export type InFlightAttempts = Set<() => void>;

/** One delivery attempt through `agent`, bounded by the request's deadline; `inFlight` holds its stop meanwhile. */
export async function runAttempt(agent: Dispatcher, req: OutboundRequest, settings: AttemptSettings, inFlight: InFlightAttempts): Promise<AttemptOutcome> {
  const url = new URL(req.url);
  // Guard (a): the lookup hook never runs for an address literal, so it is judged here, before any connection.
  const literal = literalAddress(url.hostname);
  if (!settings.allowPrivate && literal !== null && !isPublicAddress(literal)) {
    return { kind: 'blocked', message: `The destination address ${normaliseAddress(literal)} is not a public address.` };
  }
  if (!(req.timeoutMs > 0)) return { kind: 'timeout', phase: 'total' };

  const budgetMs = Math.max(1, Math.ceil(req.timeoutMs));
  const tracker = new PhaseTracker();
  const controller = new AbortController();
  let stop: (outcome: AttemptOutcome) => void = () => {};
  const stopped = new Promise<AttemptOutcome>((resolve) => { stop = resolve; });
  // The outcome is settled before aborting, so whatever undici reports about the abort cannot overtake it.
  const halt = (outcome: AttemptOutcome): void => {
    stop(outcome);
    controller.abort();
  };
  const deadline = setTimeout(() => halt({ kind: 'timeout', phase: tracker.phase }), budgetMs);
  const onCallerAbort = (): void => halt({ kind: 'aborted' });
  inFlight.add(onCallerAbort);

  // undici only notices an abort once a request is handed a connection, so a request still waiting for one would
  // outlive its deadline: the race answers on time and the abandoned exchange winds down by itself.
  const exchange = exchangeOnce(trackingDispatcher(agent, tracker), url, req, {
    signal: controller.signal, budgetMs, tracker, settings,
  });
  exchange.catch(ignore);
  try {
    return await Promise.race([exchange, stopped]);
  } finally {
    clearTimeout(deadline);
    inFlight.delete(onCallerAbort);
  }
}

interface ExchangeContext {
  readonly signal: AbortSignal;
  readonly budgetMs: number;
  readonly tracker: PhaseTracker;
  readonly settings: AttemptSettings;
}

async function exchangeOnce(dispatcher: Dispatcher, url: URL, req: OutboundRequest, ctx: ExchangeContext): Promise<AttemptOutcome> {
  try {
    const response = await request(url, {
      dispatcher,
      method: req.method,
      headers: wireHeaders(req.headers, ctx.settings.userAgent),
      body: req.body ?? null,
      signal: ctx.signal,
      // undici's own phase timers start later than the attempt's deadline, so they only ever back it up.
      headersTimeout: ctx.budgetMs,
      bodyTimeout: ctx.budgetMs,
    });
    ctx.tracker.phase = 'body';
    await drainBounded(response.body, ctx.settings.maxResponseBytes);
    return { kind: 'response', status: response.statusCode, retryAfter: firstValue(response.headers['retry-after']) };
  } catch (err) {
    return outcomeOfError(err);
  }
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

function firstValue(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? (value[0] ?? null) : value;
}

function ignore(): void {}
