import { ConnectError } from '@connectrpc/connect';
import { describe, expect, it } from 'vitest';
import { FerryError } from '../../src/domain/errors.js';
import { CancelStatus } from '../../src/gen/ferry/v1/request_service_pb.js';
import { StorageUnavailable } from '../../src/ports/errors.js';
import { call, useGateway } from './gateway-harness.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('gateway envelope and statuses', () => {
  const h = useGateway();

  it('wraps success in the envelope with a fresh request_id, also sent as Ferry-Request-Id', async () => {
    const a = await call(h, 'POST', '/send?url=https://example.com/', { body: 'x' });
    const b = await call(h, 'POST', '/send?url=https://example.com/', { body: 'x' });
    expect(a.status).toBe(202);
    expect(a.headers.get('content-type')).toBe('application/json');
    expect(Object.keys(a.body)).toEqual(['success', 'data', 'error', 'meta', 'request_id']);
    expect(a.body).toMatchObject({ success: true, error: null, meta: null });
    expect(a.body.request_id).toMatch(UUID_V4);
    expect(a.headers.get('ferry-request-id')).toBe(a.body.request_id);
    expect(b.body.request_id).not.toBe(a.body.request_id);
  });

  it('wraps failures with code, message and field, with the status of the catalogue', async () => {
    h.reply('getRequest', () => {
      throw new FerryError('NOT_FOUND', 'No such request.', 'request_id');
    });
    const res = await call(h, 'GET', '/requests/req_x');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      success: false,
      data: null,
      error: { code: 'NOT_FOUND', message: 'No such request.', field: 'request_id' },
      meta: null,
      request_id: expect.stringMatching(UUID_V4),
    });
    expect(res.headers.get('ferry-request-id')).toBe(res.body.request_id);
  });

  it('reports a missing field as null and maps other errors through toFerryError', async () => {
    h.reply('listRequests', () => {
      throw new StorageUnavailable('disk gone');
    });
    const unavailable = await call(h, 'GET', '/requests');
    expect(unavailable.status).toBe(503);
    expect(unavailable.body.error).toEqual({ code: 'STORAGE_UNAVAILABLE', message: expect.any(String), field: null });

    h.reply('listRequests', () => {
      throw new ConnectError('boom');
    });
    const internal = await call(h, 'GET', '/requests');
    expect(internal.status).toBe(500);
    expect(internal.body.error.code).toBe('INTERNAL');
    expect(internal.text).not.toContain('boom');
  });

  it('answers an unknown path with 404 ROUTE_NOT_FOUND', async () => {
    for (const [method, path] of [['GET', '/nope'], ['POST', '/nope.v1.Nothing/Call'], ['GET', '/requests/req_1/'], ['GET', '/']]) {
      const res = await call(h, method!, path!);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error.code).toBe('ROUTE_NOT_FOUND');
      expect(res.body.request_id).toMatch(UUID_V4);
      expect(res.headers.get('allow')).toBeNull();
    }
    expect(h.calls).toHaveLength(0);
  });

  it('sends Retry-After with an error that says when to retry, and none with one that does not', async () => {
    h.reply('listRequests', () => {
      throw new FerryError('SHUTTING_DOWN', 'Going away.', undefined, 1);
    });
    const later = await call(h, 'GET', '/requests');
    expect([later.status, later.body.error.code, later.headers.get('retry-after')]).toEqual([503, 'SHUTTING_DOWN', '1']);
    h.reply('listRequests', () => {
      throw new FerryError('NOT_FOUND', 'No.');
    });
    expect((await call(h, 'GET', '/requests')).headers.get('retry-after')).toBeNull();
  });

  it('quotes at most 64 characters of a long path it does not know', async () => {
    const path = `/${'p'.repeat(5_000)}`;
    const res = await call(h, 'GET', path);
    expect(res.status).toBe(404);
    expect(res.body.error.message).toBe(`No route for GET "/${'p'.repeat(63)}"… (5001 characters).`);
    const known = await call(h, 'PUT', `/requests/${'r'.repeat(5_000)}`);
    expect(known.status).toBe(405);
    expect(known.body.error.message.length).toBeLessThan(200);
  });

  it('answers a known path with another method with 405 METHOD_NOT_ALLOWED and the methods of the path in Allow', async () => {
    for (const [method, path, allow] of [
      ['DELETE', '/send', 'POST'],
      ['GET', '/send', 'POST'],
      ['PUT', '/requests/req_1', 'GET'],
      ['DELETE', '/requests', 'POST, GET'],
      ['GET', '/requests/req_1/cancel', 'POST'],
      ['PUT', '/schedules/sch_1', 'GET, PATCH, DELETE'],
    ]) {
      const res = await call(h, method!, path!);
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.get('allow'), `${method} ${path}`).toBe(allow);
      expect(res.body).toMatchObject({ success: false, data: null, error: { code: 'METHOD_NOT_ALLOWED', field: null } });
      expect(res.body.error.message).toContain(allow);
      expect(res.body.request_id).toMatch(UUID_V4);
    }
    expect(h.calls).toHaveLength(0);
  });

  it('prefers a literal path over a template', async () => {
    const res = await call(h, 'POST', '/requests/batch', { json: { requests: [] }, headers: { 'idempotency-key': 'k' } });
    expect(res.status).toBe(202);
    expect(h.only().method).toBe('batchCreateRequests');
  });

  it('picks a status override from the response enum, else the declared success status', async () => {
    h.reply('cancelRequest', () => ({ id: 'req_1', status: CancelStatus.CANCELLED }));
    const already = await call(h, 'POST', '/requests/req_1/cancel');
    expect(already.status).toBe(200);
    expect(already.body.data).toEqual({ id: 'req_1', status: 'cancelled' });

    h.reply('cancelRequest', () => ({ id: 'req_1', status: CancelStatus.CANCELLATION_REQUESTED }));
    const requested = await call(h, 'POST', '/requests/req_1/cancel');
    expect(requested.status).toBe(202);
    expect(requested.body.data).toEqual({ id: 'req_1', status: 'cancellation_requested' });
  });

  it('answers an empty response with 204, no body and no content type, but with the request id header', async () => {
    const res = await call(h, 'DELETE', '/schedules/sch_1');
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(res.headers.get('content-type')).toBeNull();
    expect(res.headers.get('ferry-request-id')).toMatch(UUID_V4);
    expect(h.only().request.scheduleId).toBe('sch_1');
  });

  it('puts the response_body field in data: a message, or an array for repeated fields', async () => {
    const sent = await call(h, 'POST', '/send?url=https://example.com/', { body: 'x' });
    expect(sent.body.data.id).toBe('req_1');
    const attempts = await call(h, 'GET', '/requests/req_1/attempts');
    expect(attempts.body.data).toEqual([]);
    const schedules = await call(h, 'GET', '/schedules');
    expect(schedules.body.data).toEqual([]);
  });

  it('uses the whole response message as data when no response_body is declared', async () => {
    const res = await call(h, 'GET', '/requests');
    expect(res.body.data).toEqual({ items: [], next_cursor: null, history_retention_days: 0, history_cutoff_at: null, has_hidden_history: false });
  });

  it('gives the implementation the request headers, the route and an abort signal', async () => {
    await call(h, 'GET', '/requests/req_9', { headers: { authorization: 'Bearer key_1', 'x-a': '1' } });
    const { context, request } = h.only();
    expect(request.requestId).toBe('req_9');
    expect(context.requestHeader.get('authorization')).toBe('Bearer key_1');
    expect(context.requestHeader.get('x-a')).toBe('1');
    expect(context.method.name).toBe('GetRequest');
    expect(context.service.typeName).toBe('ferry.v1.RequestService');
    expect(context.protocolName).toBe('json');
    expect(context.requestMethod).toBe('GET');
    expect(new URL(context.url).pathname).toBe('/requests/req_9');
    // The call is over, so the signal has fired, as it does for Connect handlers.
    expect(context.signal.aborted).toBe(true);
  });

  it('aborts the signal when the client goes away during the call', async () => {
    let seen: AbortSignal | undefined;
    h.reply('getRequest', (_req, ctx) => {
      seen = ctx.signal;
      return new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve({})));
    });
    const controller = new AbortController();
    const pending = fetch(`${h.url}/requests/req_1`, { signal: controller.signal }).catch(() => undefined);
    await expect.poll(() => seen).toBeDefined();
    expect(seen!.aborted).toBe(false);
    controller.abort();
    await pending;
    await expect.poll(() => seen!.aborted).toBe(true);
  });
});
