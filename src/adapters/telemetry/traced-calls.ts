import type { IncomingHttpHeaders } from 'node:http';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import type { ApiCall, ApiCallObserver } from '../../ports/telemetry.js';

/** The parts of a Node request and response (HTTP/1.1 or HTTP/2 compatibility objects) a call span needs. */
export interface TracedRequest {
  readonly method?: string | undefined;
  readonly headers: IncomingHttpHeaders;
}
export interface TracedResponse {
  once(event: 'close', listener: () => void): unknown;
}

/**
 * A server span per API call. The span starts when the request arrives, as a child of the caller's trace when it
 * sends a `traceparent`, and is the active span while the call runs, so the storage and Kafka spans of the call
 * nest under it. It is named after the route once the edge reports the call (`observer`), and ends when the
 * response is closed. Operational routes (health, metrics) are served before it and make no spans.
 */
export function apiCallTracing(tracer: Tracer): {
  traceCall(req: TracedRequest, res: TracedResponse, serve: () => void): void;
  observer(inner: ApiCallObserver | undefined): ApiCallObserver;
} {
  return {
    traceCall(req, res, serve) {
      const parent = propagation.extract(ROOT_CONTEXT, req.headers);
      const method = req.method ?? 'UNKNOWN';
      const span = tracer.startSpan(method, { kind: SpanKind.SERVER, attributes: { 'http.request.method': method } }, parent);
      res.once('close', () => span.end());
      context.with(trace.setSpan(parent, span), serve);
    },
    observer(inner) {
      return {
        observeCall(call: ApiCall) {
          const span = trace.getActiveSpan();
          if (span !== undefined) describeCall(span, call);
          inner?.observeCall(call);
        },
      };
    },
  };
}

function describeCall(span: NonNullable<ReturnType<typeof trace.getActiveSpan>>, call: ApiCall): void {
  span.updateName(call.route);
  span.setAttributes({
    'http.route': call.route,
    'rpc.method': call.rpc,
    'ferry.protocol': call.protocol,
    'http.response.status_code': call.status,
    'ferry.request_id': call.requestId,
  });
  if (call.projectId !== undefined) span.setAttribute('ferry.project_id', call.projectId);
  if (call.code !== undefined) span.setAttribute('ferry.error.code', call.code);
  if (call.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: call.code ?? String(call.status) });
}
