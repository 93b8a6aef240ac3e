import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DescService } from '@bufbuild/protobuf';
import { timestampFromMs } from '@bufbuild/protobuf/wkt';
import type { HandlerContext, ServiceImpl } from '@connectrpc/connect';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { RequestService } from '../../src/gen/ferry/v1/request_service_pb.js';
import { RequestStatus } from '../../src/gen/ferry/v1/requests_pb.js';
import { ScheduleService } from '../../src/gen/ferry/v1/schedule_service_pb.js';
import { unreadableInput } from '../../src/edge/calls/notes.js';
import { createGateway, type GatewayService } from '../../src/edge/http/gateway.js';

/** One call the gateway made into the implementation. */
export interface Call {
  readonly method: string;
  // The request messages differ per RPC; tests read the fields they bound.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly request: any;
  readonly context: HandlerContext;
}

type Reply = (request: never, context: HandlerContext) => unknown;

export const CREATED_MS = Date.UTC(2030, 0, 2, 3, 4, 5, 678);

/** The answer of every RPC unless a test overrides it. */
function defaultReply(method: string): unknown {
  const acceptance = { id: 'req_1', projectId: 'prj_1', status: RequestStatus.QUEUED, createdAt: timestampFromMs(CREATED_MS) };
  switch (method) {
    case 'send':
    case 'createRequest':
    case 'replayRequest':
      return { acceptance };
    case 'batchCreateRequests':
      return { requests: [acceptance] };
    default:
      return {};
  }
}

function recordingImpl<S extends DescService>(service: S, calls: Call[], replies: Map<string, Reply>): GatewayService {
  const impl: Record<string, (request: unknown, context: HandlerContext) => unknown> = {};
  for (const m of service.methods) {
    impl[m.localName] = (request, context) => {
      // As every service does once the caller has authenticated (callerProject): input that could not be read is refused.
      const unreadable = unreadableInput(context);
      if (unreadable !== undefined) throw unreadable;
      calls.push({ method: m.localName, request, context });
      const reply = replies.get(m.localName);
      return reply ? reply(request as never, context) : defaultReply(m.localName);
    };
  }
  return { service, impl: impl as unknown as Partial<ServiceImpl<DescService>> };
}

export interface GatewayHarness {
  /** The base URL of the running server, without a trailing slash. */
  url: string;
  /** The calls of the current test, oldest first. */
  readonly calls: Call[];
  /** Makes the RPC with this local name answer with `reply` for the rest of the test. */
  reply(method: string, reply: Reply): void;
  /** The only call of the current test. */
  only(): Call;
}

/**
 * Serves the real RequestService and ScheduleService routes through the gateway on 127.0.0.1 with an
 * implementation that records what it received; each test starts with no calls and default replies.
 */
export function useGateway(): GatewayHarness {
  const calls: Call[] = [];
  const replies = new Map<string, Reply>();
  let server: http.Server;
  const harness: GatewayHarness = {
    url: '',
    calls,
    reply: (method, reply) => void replies.set(method, reply),
    only() {
      if (calls.length !== 1) throw new Error(`expected one call, got ${calls.length}`);
      return calls[0]!;
    },
  };
  beforeAll(async () => {
    const gateway = createGateway({
      services: [recordingImpl(RequestService, calls, replies), recordingImpl(ScheduleService, calls, replies)],
    });
    server = http.createServer(gateway);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    harness.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    calls.length = 0;
    replies.clear();
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return harness;
}

/** A parsed JSON envelope, or null for an empty body. */
export async function call(
  h: GatewayHarness,
  method: string,
  path: string,
  init: { body?: RequestInit['body']; json?: unknown; headers?: Record<string, string> } = {},
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<{ status: number; headers: Headers; text: string; body: any }> {
  const headers = { ...init.headers };
  let body = init.body;
  if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(h.url + path, { method, headers, body, ...(body instanceof ReadableStream ? { duplex: 'half' } : {}) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text === '' ? null : JSON.parse(text) };
}

/**
 * A request through node:http, which sends header names as spelled and repeated headers as separate lines
 * (fetch lower-cases names and joins repeats), so tests can control the raw header block.
 */
export function rawCall(
  h: GatewayHarness,
  method: string,
  path: string,
  headers: http.OutgoingHttpHeaders | string[],
  body?: Uint8Array | string,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: any }> {
  return new Promise((resolve, reject) => {
    // Raw header arrays get no default Host, which HTTP/1.1 requires.
    const all = Array.isArray(headers) ? ['Host', new URL(h.url).host, ...headers] : headers;
    const req = http.request(`${h.url}${path}`, { method, headers: all }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode!, headers: res.headers, body: text === '' ? null : JSON.parse(text) });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
