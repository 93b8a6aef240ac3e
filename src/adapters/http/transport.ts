import { lookup as systemLookup } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Agent } from 'undici';
import type { TimedOutcome } from '../../domain/delivery/outcome.js';
import type { DeliveryTransport, OutboundRequest } from '../../ports/delivery-transport.js';
import { runAttempt, type AttemptSettings, type InFlightAttempts } from './attempt.js';
import { createGuardedConnector, type TcpConnect } from './guarded-connector.js';
import { createGuardedLookup } from './guarded-lookup.js';
import { isPublicAddress, literalAddress } from './address-policy.js';
import { secureContextWithExtraCa } from './trust-store.js';
import { warmConnections } from './warm-connections.js';

export interface HttpTransportOptions {
  /** Development and tests only: lets loopback and private destinations through all three guards. */
  readonly allowPrivateDestinations: boolean;
  /** Resolver in the style of dns.lookup (the default); tests inject one to script DNS answers and rebinding. */
  readonly lookup?: LookupFunction;
  /** How much of a response body is read before the connection is dropped instead (default 64 KiB). */
  readonly maxResponseBytes?: number;
  /** Keep-alive connections kept per origin (default 32). */
  readonly connectionsPerOrigin?: number;
  /** One more trusted CA, on top of Node's default roots and NODE_EXTRA_CA_CERTS. */
  readonly ca?: string | Buffer;
  /** Sent as User-Agent unless the request carries its own. */
  readonly userAgent?: string;
  /** Upper bound for TCP plus TLS on a new connection, whatever the attempt's own deadline (default 10 s). */
  readonly connectTimeoutMs?: number;
  /** Tests only: opens the raw TCP connection instead of net.connect, to land a socket where DNS never pointed. */
  readonly tcpConnect?: TcpConnect;
  /**
   * A delivery thread's own transport: response excerpts come back as views of the chunks they were read from, for
   * the thread to copy into the one buffer its batch of outcomes travels in (`transport-thread.ts`). Elsewhere each
   * excerpt is a copy of its own.
   */
  readonly excerptViews?: boolean;
}

const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;
const DEFAULT_CONNECTIONS_PER_ORIGIN = 32;
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

/**
 * Delivers attempts over HTTP/1.1 with undici: keep-alive connections per origin, no redirects followed, response
 * bodies read only up to a bound, and no connection to a non-public address unless allowPrivateDestinations.
 */
export function createHttpTransport(opts: HttpTransportOptions): DeliveryTransport {
  const settings: AttemptSettings = {
    allowPrivate: opts.allowPrivateDestinations,
    maxResponseBytes: opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    userAgent: opts.userAgent,
    excerptViews: opts.excerptViews ?? false,
  };
  const connector = createGuardedConnector({
    allowPrivate: opts.allowPrivateDestinations,
    lookup: createGuardedLookup(opts.lookup ?? (systemLookup as LookupFunction), opts.allowPrivateDestinations),
    secureContext: secureContextWithExtraCa(opts.ca),
    connectTimeoutMs: opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    ...(opts.tcpConnect === undefined ? {} : { tcpConnect: opts.tcpConnect }),
  });
  const warm = warmConnections(connector.connect);
  const agent = new Agent({
    connect: warm.connect,
    connections: opts.connectionsPerOrigin ?? DEFAULT_CONNECTIONS_PER_ORIGIN,
  });
  let closing: Promise<void> | null = null;
  const inFlight: InFlightAttempts = new Set();

  const transport: DeliveryTransport = {
    async send(req: OutboundRequest): Promise<TimedOutcome> {
      if (closing !== null) return abortedAttempt();
      const startedAt = Date.now();
      const started = performance.now();
      const outcome = await runAttempt(agent, req, settings, inFlight);
      return { outcome, startedAt, durationMs: Math.round(performance.now() - started) };
    },
    prepare(url: string, connections: number): void {
      if (closing !== null) return;
      let target: URL;
      try {
        target = new URL(url);
      } catch {
        return;
      }
      // An address the attempt would refuse before connecting (guard (a) of `runAttempt`) is not connected to ahead.
      const literal = literalAddress(target.hostname);
      if (!settings.allowPrivate && literal !== null && !isPublicAddress(literal)) return;
      // Connections undici holds already, idle or busy, count: the burst will use them too.
      // (A pool's count; a single client's is a flag.)
      const open = Number(agent.stats[target.origin]?.connected ?? 0);
      warm.warm(url, Math.min(connections, opts.connectionsPerOrigin ?? DEFAULT_CONNECTIONS_PER_ORIGIN) - open);
    },
    abortInFlight(): void {
      const stopping = [...inFlight];
      inFlight.clear();
      for (const stop of stopping) stop();
    },
    close(): Promise<void> {
      // undici refuses a second close; shutdown paths may well call this more than once.
      closing ??= (async () => {
        transport.abortInFlight();
        warm.close();
        connector.close();
        await agent.close();
      })();
      return closing;
    },
  };
  return transport;
}

/** The outcome of an attempt stopped by Ferry itself (shutdown, close) before or while it ran. */
export function abortedAttempt(): TimedOutcome {
  return { outcome: { kind: 'aborted' }, startedAt: Date.now(), durationMs: 0 };
}
