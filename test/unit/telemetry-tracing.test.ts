import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openEmbeddedBackend, type EmbeddedBackend } from '../../src/adapters/embedded/backend.js';
import { createHttpTransport } from '../../src/adapters/http/transport.js';
import { startServiceTracing, type ServiceTracing } from '../../src/adapters/telemetry/service-tracing.js';
import { startDestination, type Destination } from '../support/destination.js';

describe('tracing with an in-memory exporter', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: ServiceTracing;
  let backend: EmbeddedBackend;
  let dest: Destination;

  beforeAll(async () => {
    tracing = startServiceTracing({ exporter: null, serviceName: 'ferry-test' }, [new SimpleSpanProcessor(exporter)])!;
    backend = openEmbeddedBackend({ path: join(mkdtempSync(join(tmpdir(), 'ferry-trace-')), 'ferry.db') });
    dest = await startDestination();
  });
  afterAll(async () => {
    await backend.close();
    await dest.close();
    await tracing.shutdown();
  });
  beforeEach(() => exporter.reset());

  it('is off without an exporter or a span processor', () => {
    expect(startServiceTracing({ exporter: null, serviceName: 'ferry-test' })).toBeNull();
  });

  it('each storage call is a client span, a child of the span it runs in', async () => {
    const traced = tracing.backend(backend, 'sqlite');
    await trace.getTracer('test').startActiveSpan('parent', async (parent) => {
      await traced.secrets.getOrCreate('cursor', new Uint8Array(32));
      parent.end();
    });
    const spans = exporter.getFinishedSpans();
    const parent = spans.find((s) => s.name === 'parent')!;
    const call = spans.find((s) => s.name === 'storage.secrets.getOrCreate')!;
    expect(call.kind).toBe(SpanKind.CLIENT);
    expect(call.attributes['db.system']).toBe('sqlite');
    expect(call.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
    expect(call.spanContext().traceId).toBe(parent.spanContext().traceId);
  });

  it('a failed storage call marks its span failed, and the error still reaches the caller', async () => {
    const traced = tracing.backend(backend, 'sqlite');
    await backend.close();
    await expect(traced.secrets.getOrCreate('other', new Uint8Array(32))).rejects.toThrow();
    const [span] = exporter.getFinishedSpans();
    expect(span!.status.code).toBe(SpanStatusCode.ERROR);
    backend = openEmbeddedBackend({ path: join(mkdtempSync(join(tmpdir(), 'ferry-trace-')), 'ferry.db') });
  });

  it('an attempt is a client span whose context reaches the destination as traceparent', async () => {
    const transport = tracing.transport(
      createHttpTransport({ allowPrivateDestinations: true, ca: readFileSync(dest.certFile, 'utf8'), userAgent: 'test' }),
    );
    try {
      const timed = await transport.send({ url: `${dest.url}/hook?token=secret`, method: 'POST', headers: [], body: null, timeoutMs: 5_000 });
      expect(timed.outcome).toMatchObject({ kind: 'response', status: 200 });
      const [span] = exporter.getFinishedSpans();
      expect(span!.name).toBe('delivery.attempt');
      expect(span!.attributes).toMatchObject({ 'http.request.method': 'POST', 'server.address': `127.0.0.1:${dest.port}`, 'http.response.status_code': 200 });
      // The URL's path and query are never recorded.
      expect(JSON.stringify(span!.attributes)).not.toContain('secret');
      const received = dest.requestsTo('/hook')[0]!;
      expect(received.headers.traceparent).toBe(`00-${span!.spanContext().traceId}-${span!.spanContext().spanId}-01`);
    } finally {
      await transport.close();
    }
  });

  it("a request's own traceparent is kept", async () => {
    const transport = tracing.transport(
      createHttpTransport({ allowPrivateDestinations: true, ca: readFileSync(dest.certFile, 'utf8'), userAgent: 'test' }),
    );
    const own = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    try {
      await transport.send({ url: `${dest.url}/own`, method: 'POST', headers: [['traceparent', own]], body: null, timeoutMs: 5_000 });
      expect(dest.requestsTo('/own')[0]!.headers.traceparent).toBe(own);
    } finally {
      await transport.close();
    }
  });
});
