import { describe, expect, it } from 'vitest';
import { FerryError } from '../../src/domain/errors.js';
import { CancelStatus } from '../../src/gen/ferry/v1/request_service_pb.js';
import { createFerryClient, FerryApiError } from '../../sdk/src/index.js';
import { useGateway } from './gateway-harness.js';

describe('SDK against the gateway', () => {
  const h = useGateway();
  const client = () => createFerryClient({ baseUrl: h.url, apiKey: 'fk_test' });

  it('sends raw bytes with options, forwarded headers and the bearer key', async () => {
    const bytes = Uint8Array.from([0xff, 0, 0x80, 10]);
    const accepted = await client().send('https://example.com/in', bytes, {
      retry: 3, deliver_at: '2030-01-01T00:00:00Z', contentType: 'application/x-thing', idempotencyKey: 'k1', forwardHeaders: { 'X-Trace': 't' },
    });
    expect(accepted).toMatchObject({ id: 'req_1', status: 'queued', created_at: '2030-01-02T03:04:05.678Z' });
    const { request, context } = h.only();
    expect(Buffer.from(request.body).equals(Buffer.from(bytes))).toBe(true);
    expect(request).toMatchObject({ url: 'https://example.com/in', retry: 3, deliverAt: '2030-01-01T00:00:00Z', contentType: 'application/x-thing', idempotencyKey: 'k1' });
    expect(Object.entries(request.forwardHeaders).map(([k, v]) => [k.toLowerCase(), v])).toEqual([['x-trace', 't']]);
    expect(context.requestHeader.get('authorization')).toBe('Bearer fk_test');
  });

  it('sends no Content-Type when none is given for a binary body', async () => {
    await client().send('https://example.com/in', Uint8Array.from([1]));
    expect(h.only().request.contentType).toBeUndefined();
  });

  it('creates, batches and unwraps data', async () => {
    const c = client();
    expect((await c.createRequest({ url: 'https://example.com/', retry: { max_attempts: 2 } }, { idempotencyKey: 'a' })).id).toBe('req_1');
    expect(h.calls[0]!.request).toMatchObject({ idempotencyKey: 'a', input: { retry: { maxAttempts: 2 } } });
    const batch = await c.batchCreate([{ url: 'https://example.com/' }], { idempotencyKey: 'b' });
    expect(batch.map((a) => a.id)).toEqual(['req_1']);
    expect(await c.listAttempts('req_1')).toEqual([]);
    expect(await c.listRequests({ limit: 5, status: 'queued' })).toMatchObject({ items: [], next_cursor: null });
    expect(h.calls.at(-1)!.request).toMatchObject({ limit: 5, status: 'queued' });
  });

  it('returns the cancel outcome whatever its success status', async () => {
    h.reply('cancelRequest', () => ({ id: 'req_1', status: CancelStatus.CANCELLED }));
    expect(await client().cancel('req_1')).toEqual({ id: 'req_1', status: 'cancelled' });
  });

  it('resolves a delete with no body', async () => {
    await expect(client().deleteSchedule('sch_1')).resolves.toBeUndefined();
  });

  it('throws FerryApiError with the envelope facts', async () => {
    h.reply('getRequest', () => {
      throw new FerryError('NOT_FOUND', 'No such request.', 'request_id');
    });
    const err = await client().getRequest('req_x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FerryApiError);
    expect(err).toMatchObject({ status: 404, code: 'NOT_FOUND', message: 'No such request.', field: 'request_id', requestId: expect.any(String) });
  });

  it('throws FerryApiError for failures of the gateway itself, and for foreign responses', async () => {
    const invalid = await client().listRequests({ limit: 0.5 }).catch((e: unknown) => e);
    expect(invalid).toMatchObject({ status: 422, code: 'INVALID_FIELD', field: 'limit' });
    const foreign = createFerryClient({ baseUrl: h.url, apiKey: 'k', fetch: async () => new Response('<html>', { status: 502 }) });
    await expect(foreign.getSchedule('sch_1')).rejects.toMatchObject({ status: 502, code: 'UNEXPECTED_RESPONSE', requestId: null });
  });
});
