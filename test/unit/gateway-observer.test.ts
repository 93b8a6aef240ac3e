import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { timestampFromMs } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { noteAccepted, noteProject } from '../../src/edge/calls/notes.js';
import { createGateway } from '../../src/edge/http/gateway.js';
import { FerryError } from '../../src/domain/errors.js';
import type { Acceptance } from '../../src/domain/request.js';
import { RequestService } from '../../src/gen/ferry/v1/request_service_pb.js';
import { RequestStatus } from '../../src/gen/ferry/v1/requests_pb.js';
import type { ApiCall } from '../../src/ports/telemetry.js';

const accepted: Acceptance = { id: 'req_1', projectId: 'prj_1', replayedFromRequestId: null, status: 'queued', scheduledAt: null, createdAt: 0 };

describe('gateway call observer', () => {
  const calls: ApiCall[] = [];
  const failure = new FerryError('NOT_FOUND', 'No such request.');
  let server: http.Server;
  let url = '';

  beforeAll(async () => {
    const impl: Partial<ServiceImpl<typeof RequestService>> = {
      async send(_req, ctx) {
        noteProject(ctx, 'prj_1');
        noteAccepted(ctx, accepted);
        return { acceptance: { id: 'req_1', projectId: 'prj_1', status: RequestStatus.QUEUED, createdAt: timestampFromMs(0) } };
      },
      async getRequest(_req, ctx) {
        noteProject(ctx, 'prj_1');
        throw failure;
      },
    };
    const gateway = createGateway({
      services: [{ service: RequestService, impl: impl as never }],
      chain: { observer: { observeCall: (c) => void calls.push(c) }, gate: undefined },
    });
    server = http.createServer(gateway);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  async function observed(path: string, init: RequestInit = {}): Promise<{ call: ApiCall; requestId: string | null }> {
    calls.length = 0;
    const res = await fetch(url + path, init);
    await res.arrayBuffer();
    expect(calls).toHaveLength(1);
    return { call: calls[0]!, requestId: res.headers.get('ferry-request-id') };
  }

  it('reports a success with its route template, status, project, acceptance and the request ID it answered', async () => {
    const { call, requestId } = await observed('/send?url=https://example.com/', { method: 'POST', body: 'x' });
    expect(call).toMatchObject({ protocol: 'json', route: 'POST /send', rpc: 'ferry.v1.RequestService/Send', status: 202, code: undefined, projectId: 'prj_1', accepted });
    expect(call.requestId).toBe(requestId);
    expect(call.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('reports a failure with the template, never the path, and what was thrown', async () => {
    const { call } = await observed('/requests/req_secretlooking');
    expect(call).toMatchObject({ route: 'GET /requests/{request_id}', status: 404, code: 'NOT_FOUND', projectId: 'prj_1', accepted: undefined, error: failure });
  });

  it('reports refusals made before the call: no route, a body over its limit', async () => {
    expect((await observed('/nowhere')).call).toMatchObject({ route: 'unmatched', rpc: 'unmatched', status: 404, code: 'ROUTE_NOT_FOUND', projectId: undefined });
    const big = await observed('/send?url=https://example.com/', { method: 'POST', body: 'x'.repeat(300_000) });
    expect(big.call).toMatchObject({ route: 'POST /send', status: 413, code: 'PAYLOAD_TOO_LARGE', projectId: undefined });
  });
});
