import { context, propagation, SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import type { AttemptOutcome } from '../../domain/delivery/outcome.js';
import type { DeliveryTransport, OutboundRequest } from '../../ports/delivery-transport.js';

/**
 * Makes each delivery attempt a client span and sends its W3C trace context to the destination (`traceparent`,
 * and `tracestate` when there is one), so a destination that traces can join the attempt to its own work. A
 * request whose stored headers already carry a `traceparent` keeps it: the caller chose that trace. The span
 * names the method and host only; the URL's path and query may hold a caller's secrets.
 */
export function tracedTransport(transport: DeliveryTransport, tracer: Tracer): DeliveryTransport {
  return {
    send(request) {
      const attributes = { 'http.request.method': request.method, 'server.address': hostOf(request.url) };
      return tracer.startActiveSpan('delivery.attempt', { kind: SpanKind.CLIENT, attributes }, async (span) => {
        try {
          const timed = await transport.send(withTraceContext(request));
          describeOutcome(timed.outcome, (key, value) => span.setAttribute(key, value));
          if (timed.outcome.kind !== 'response' || timed.outcome.status >= 400) span.setStatus({ code: SpanStatusCode.ERROR });
          return timed;
        } finally {
          span.end();
        }
      });
    },
    abortInFlight: () => transport.abortInFlight(),
    close: () => transport.close(),
  };
}

function withTraceContext(request: OutboundRequest): OutboundRequest {
  if (request.headers.some(([name]) => name.toLowerCase() === 'traceparent')) return request;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  const added = Object.entries(carrier);
  return added.length === 0 ? request : { ...request, headers: [...request.headers, ...added] };
}

function describeOutcome(outcome: AttemptOutcome, set: (key: string, value: string | number) => void): void {
  set('ferry.attempt.outcome', outcome.kind);
  if (outcome.kind === 'response') set('http.response.status_code', outcome.status);
  else if (outcome.kind === 'timeout') set('ferry.attempt.timeout_phase', outcome.phase);
  else if (outcome.kind === 'dns_error' || outcome.kind === 'connection_error' || outcome.kind === 'tls_error') set('error.type', outcome.code);
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}
