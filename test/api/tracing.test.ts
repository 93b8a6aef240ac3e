import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, eventually } from '../support/api-client.js';
import { TEST_BACKEND } from '../support/deployment.js';
import { startDestination, type Destination } from '../support/destination.js';
import { createProject, startFerry, type FerryProcess } from '../support/ferry-process.js';

/** A span as the OTLP/HTTP JSON exporter sends it. */
interface ExportedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly kind: number;
  readonly attributes: ReadonlyArray<{ key: string; value: Record<string, unknown> }>;
}

/** A real OTLP/HTTP endpoint on loopback: what a collector would receive from Ferry. */
async function startCollector(): Promise<{ url: string; spans: ExportedSpan[]; server: Server }> {
  const spans: ExportedSpan[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: Array<{ scopeSpans: Array<{ spans: ExportedSpan[] }> }>;
      };
      for (const r of body.resourceSpans) for (const s of r.scopeSpans) spans.push(...s.spans);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`, spans, server };
}

function attribute(span: ExportedSpan, key: string): unknown {
  const found = span.attributes.find((a) => a.key === key)?.value;
  return found === undefined ? undefined : Object.values(found)[0];
}

const SPAN_KIND_SERVER = 2;
const SPAN_KIND_CLIENT = 3;

describe('tracing', () => {
  let collector: Awaited<ReturnType<typeof startCollector>>;
  let dest: Destination;
  let ferry: FerryProcess;
  let api: Api;

  beforeAll(async () => {
    collector = await startCollector();
    dest = await startDestination();
    ferry = await startFerry({
      env: {
        FERRY_ALLOW_PRIVATE_DESTINATIONS: 'true',
        FERRY_DELIVERY_CA_FILE: dest.certFile,
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: collector.url,
        OTEL_SERVICE_NAME: 'ferry-under-test',
        OTEL_BSP_SCHEDULE_DELAY: '100',
      },
    });
    api = new Api(ferry.baseUrl, (await createProject(ferry.dataDir)).apiKey);
  });
  afterAll(async () => {
    await ferry?.stop();
    await dest?.close();
    collector?.server.close();
  });

  it('an API call joins the caller trace, its storage work nests under it, and the delivery carries traceparent', async () => {
    const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const callerSpan = '00f067aa0ba902b7';
    const sent = await api.send({ url: `${dest.url}/traced` }, 'hello', { traceparent: `00-${callerTrace}-${callerSpan}-01` });
    expect(sent.status).toBe(202);

    const [delivered] = await dest.waitForRequests('/traced', 1);
    const traceparent = delivered!.headers.traceparent;
    expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
    const [, deliveryTrace, deliverySpan] = traceparent!.split('-');

    // The API call: a server span named after its route, child of the caller's span.
    const call = await eventually(async () => collector.spans.find((s) => s.name === 'POST /send' && s.traceId === callerTrace));
    expect(call.kind).toBe(SPAN_KIND_SERVER);
    expect(call.parentSpanId).toBe(callerSpan);
    expect(attribute(call, 'http.response.status_code')).toBe(202);
    expect(attribute(call, 'ferry.request_id')).toBe(sent.body.request_id);

    // Its storage calls are client spans in the same trace, under the call.
    const storage = collector.spans.filter((s) => s.traceId === callerTrace && s.name.startsWith('storage.'));
    expect(storage.length).toBeGreaterThan(0);
    for (const s of storage) expect(s.kind).toBe(SPAN_KIND_CLIENT);
    expect(storage.some((s) => s.parentSpanId === call.spanId)).toBe(true);

    // The attempt: a client span whose context is the one the destination received.
    const attempt = await eventually(async () => collector.spans.find((s) => s.name === 'delivery.attempt' && s.spanId === deliverySpan));
    expect(attempt.traceId).toBe(deliveryTrace);
    expect(attempt.kind).toBe(SPAN_KIND_CLIENT);
    expect(attribute(attempt, 'http.response.status_code')).toBe(200);
    expect(attribute(attempt, 'server.address')).toBe(`127.0.0.1:${dest.port}`);
  });

  it.runIf(TEST_BACKEND === 'cassandra')('Kafka work notices are spans too', async () => {
    await api.send({ url: `${dest.url}/kafka` }, 'hello');
    await dest.waitForRequests('/kafka', 1);
    await eventually(async () => collector.spans.find((s) => s.name.startsWith('kafka.')));
  });

  it('no span carries a body, a header value or the API key', async () => {
    await api.send({ url: `${dest.url}/secret` }, 'body-that-must-not-leak', { 'X-Forward-Authorization': 'Bearer header-value-that-must-not-leak' });
    await dest.waitForRequests('/secret', 1);
    await eventually(async () => collector.spans.find((s) => s.name === 'delivery.attempt' && attribute(s, 'server.address') !== undefined));
    const all = JSON.stringify(collector.spans);
    expect(all).not.toContain('body-that-must-not-leak');
    expect(all).not.toContain('header-value-that-must-not-leak');
    expect(all).not.toContain(api.apiKey);
  });
});

describe('tracing off by default', () => {
  it('a delivery carries no traceparent when no OTEL_* variable asks for tracing', async () => {
    const dest = await startDestination();
    const ferry = await startFerry({ env: { FERRY_ALLOW_PRIVATE_DESTINATIONS: 'true', FERRY_DELIVERY_CA_FILE: dest.certFile } });
    try {
      const api = new Api(ferry.baseUrl, (await createProject(ferry.dataDir)).apiKey);
      await api.send({ url: `${dest.url}/plain` }, 'hello');
      const [delivered] = await dest.waitForRequests('/plain', 1);
      expect(delivered!.headers.traceparent).toBeUndefined();
    } finally {
      await ferry.stop();
      await dest.close();
    }
  });
});
