import { trace, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, ConsoleSpanExporter, NodeTracerProvider, type SpanProcessor } from '@opentelemetry/sdk-trace-node';

/** Which exporter the standard `OTEL_TRACES_EXPORTER` variable names; null leaves tracing off. */
export type TraceExporterName = 'otlp' | 'console';

export interface TracingSettings {
  readonly exporter: TraceExporterName | null;
  /** `OTEL_SERVICE_NAME`, else `ferry`. */
  readonly serviceName: string;
}

export interface Tracing {
  readonly tracer: Tracer;
  /** Sends the spans still buffered and stops the exporter. */
  shutdown(): Promise<void>;
}

/**
 * Starts OpenTelemetry tracing when the configuration asks for it, else returns null and nothing is wrapped: an
 * untraced process pays nothing per call. The OTLP exporter reads its endpoint, headers and timeouts from the
 * standard `OTEL_EXPORTER_OTLP_*` variables itself, and the sampler comes from `OTEL_TRACES_SAMPLER`. Tests pass
 * their own span processor (an in-memory exporter) instead.
 */
export function startTracing(settings: TracingSettings, processors?: SpanProcessor[]): Tracing | null {
  const chosen = processors ?? exporterProcessors(settings.exporter);
  if (chosen.length === 0) return null;
  const provider = new NodeTracerProvider({
    resource: defaultResource().merge(resourceFromAttributes({ 'service.name': settings.serviceName })),
    spanProcessors: chosen,
  });
  // Registers the async-hooks context manager (spans of storage calls nest under the API call that made them)
  // and the W3C trace-context propagator that writes `traceparent` on deliveries.
  provider.register();
  return {
    tracer: trace.getTracer('ferry'),
    async shutdown() {
      await provider.shutdown();
      trace.disable();
    },
  };
}

function exporterProcessors(exporter: TraceExporterName | null): SpanProcessor[] {
  if (exporter === 'otlp') return [new BatchSpanProcessor(new OTLPTraceExporter())];
  if (exporter === 'console') return [new BatchSpanProcessor(new ConsoleSpanExporter())];
  return [];
}
