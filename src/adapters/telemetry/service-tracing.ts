import type { SpanProcessor } from '@opentelemetry/sdk-trace-node';
import type { Backend } from '../../ports/backend.js';
import type { DeliveryTransport } from '../../ports/delivery-transport.js';
import type { ApiCallObserver } from '../../ports/telemetry.js';
import { apiCallTracing, type TracedRequest, type TracedResponse } from './traced-calls.js';
import { tracedPort } from './traced-port.js';
import { tracedTransport } from './traced-transport.js';
import { startTracing, type TracingSettings } from './tracing.js';

/** The backend's stores; `budgetBoard` only where the backend has one (distributed), and absent stays absent. */
const STORES = ['requests', 'schedules', 'idempotency', 'usage', 'projects', 'secrets', 'budgets', 'stats', 'budgetBoard', 'bulkActions'] as const;

/** What the composition root wraps when tracing is on: API calls, storage, Kafka and delivery attempts. */
export interface ServiceTracing {
  /** Every store call a `storage.<store>.<method>` span, with `db.system` naming the backend. */
  backend<B extends Backend>(backend: B, system: 'sqlite' | 'cassandra'): B;
  /** Every call of a Kafka adapter (`kafka.<name>.<method>`). */
  kafka<T extends object>(port: T, name: string): T;
  transport(transport: DeliveryTransport): DeliveryTransport;
  readonly traceCall: (req: TracedRequest, res: TracedResponse, serve: () => void) => void;
  observer(inner: ApiCallObserver | undefined): ApiCallObserver;
  shutdown(): Promise<void>;
}

/** Null when the configuration leaves tracing off: then nothing is wrapped and no call pays for tracing. */
export function startServiceTracing(settings: TracingSettings, processors?: SpanProcessor[]): ServiceTracing | null {
  const tracing = startTracing(settings, processors);
  if (tracing === null) return null;
  const { tracer } = tracing;
  const calls = apiCallTracing(tracer);
  return {
    backend(backend, system) {
      const traced = { ...backend } as Record<string, unknown>;
      for (const name of STORES) {
        const store = backend[name];
        if (store !== undefined) traced[name] = tracedPort(store, `storage.${name}`, tracer, { 'db.system': system });
      }
      return traced as typeof backend;
    },
    kafka: (port, name) => tracedPort(port, `kafka.${name}`, tracer, { 'messaging.system': 'kafka' }),
    transport: (transport) => tracedTransport(transport, tracer),
    traceCall: calls.traceCall,
    observer: calls.observer,
    shutdown: () => tracing.shutdown(),
  };
}
