import { describe, expect, it } from 'vitest';
import { DEST, useFerry } from '../support/fixture.js';

describe('POST /requests', () => {
  const f = useFerry();

  async function count(): Promise<number> {
    const res = await f.api.call<{ items: unknown[] }>('GET', '/requests?limit=100');
    return res.body.data.items.length;
  }

  it('accepts a structured request and shows its detail with defaults', async () => {
    const res = await f.api.create({ url: DEST, body: { hello: ['world', 1, null] }, metadata: { order: '42' } });
    expect(res.status).toBe(202);
    const id = (res.body.data as { id: string }).id;
    const detail = await f.api.call<Record<string, unknown>>('GET', `/requests/${id}`);
    expect(detail.status).toBe(200);
    expect(detail.body.data).toEqual({
      id,
      replayed_from_request_id: null,
      schedule_id: null,
      url: DEST,
      method: 'POST',
      queue: 'default',
      flow_keys: [],
      status: 'queued',
      waiting_for: null,
      scheduled_at: null,
      created_at: expect.any(String),
      started_at: null,
      completed_at: null,
      max_attempts: 3,
      timeout_seconds: 50,
      metadata: { order: '42' },
      content_type: 'application/json',
      headers: {},
      updated_at: expect.any(String),
      cancelled_at: null,
      last_response_status_code: null,
      attempts: [],
      callbacks: null,
      callback_for_request_id: null,
      callback_request_ids: [],
    });
    const attempts = await f.api.call('GET', `/requests/${id}/attempts`);
    expect(attempts.status).toBe(200);
    expect(attempts.body.data).toEqual([]);
  });

  it('takes every field', async () => {
    const res = await f.api.create({
      url: DEST,
      method: 'PATCH',
      headers: { Authorization: 'Bearer t', 'X-A': 'b' },
      body: 'just a string',
      delay: '10m',
      timeout: '2m',
      retry: { max_attempts: 20, backoff: 'exponential' },
      queue: 'emails',
      metadata: { a: 'b' },
    });
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({ status: 'scheduled' });
    const id = (res.body.data as { id: string }).id;
    const detail = await f.api.call<Record<string, unknown>>('GET', `/requests/${id}`);
    expect(detail.body.data).toMatchObject({
      method: 'PATCH',
      max_attempts: 20,
      timeout_seconds: 120,
      queue: 'emails',
      headers: { Authorization: '[REDACTED]', 'X-A': '[REDACTED]' },
    });
  });

  it.each([
    [{ url: DEST, nope: 1 }, 'UNKNOWN_FIELD', 'nope'],
    [{ url: DEST, retry: { max_attempts: 3, extra: true } }, 'UNKNOWN_FIELD', 'retry.extra'],
    [{ url: 42 }, 'INVALID_FIELD', 'url'],
    [{ url: DEST, retry: { max_attempts: 0 } }, 'INVALID_RETRY', 'retry.max_attempts'],
    [{ url: DEST, retry: { max_attempts: 21 } }, 'INVALID_RETRY', 'retry.max_attempts'],
    [{ url: DEST, retry: { max_attempts: 2.5 } }, 'INVALID_FIELD', 'retry.max_attempts'],
    [{ url: DEST, retry: { backoff: 'linear' } }, 'INVALID_RETRY', 'retry.backoff'],
    [{ url: DEST, metadata: { k: 1 } }, 'INVALID_FIELD', 'metadata.k'],
    [{ url: DEST, metadata: { 'bad key': 'v' } }, 'INVALID_METADATA', 'metadata.bad key'],
    [{ url: DEST, metadata: { k: 'v'.repeat(1025) } }, 'INVALID_METADATA', 'metadata.k'],
    [{ url: DEST, metadata: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, 'v'])) }, 'INVALID_METADATA', 'metadata'],
    [{ url: DEST, headers: { 'Bad Name': 'v' } }, 'INVALID_HEADERS', 'headers.Bad Name'],
    [{ url: DEST, headers: { 'Transfer-Encoding': 'chunked' } }, 'INVALID_HEADERS', 'headers.Transfer-Encoding'],
    [{ url: DEST, headers: { 'Service-Id': 'x' } }, 'INVALID_HEADERS', 'headers.Service-Id'],
    [{ url: DEST, headers: { 'X-A': 'a\r\nInjected: 1' } }, 'INVALID_HEADERS', 'headers.X-A'],
    [{ url: DEST, delay: '5s', deliver_at: '2030-01-01T00:00:00Z' }, 'INVALID_DELIVER_AT', 'deliver_at'],
    [{ url: 'https://192.168.1.1/x' }, 'DESTINATION_NOT_ALLOWED', 'url'],
  ])('rejects %j with 422 %s and stores nothing', async (json, code, field) => {
    const before = await count();
    const res = await f.api.create(json);
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code, field });
    expect(await count()).toBe(before);
  });

  it('rejects malformed JSON, a non-object body and a non-JSON content type', async () => {
    const bad = await f.api.call('POST', '/requests', { body: '{"url":', headers: { 'content-type': 'application/json' } });
    expect(bad.status).toBe(422);
    expect(bad.body.error?.code).toBe('INVALID_JSON');
    const arr = await f.api.call('POST', '/requests', { json: [DEST] });
    expect(arr.status).toBe(422);
    expect(arr.body.error?.code).toBe('INVALID_JSON');
    const xml = await f.api.call('POST', '/requests', { body: '<a/>', headers: { 'content-type': 'text/xml' } });
    expect(xml.status).toBe(422);
  });

  it('answers 413 for a body over 256 KiB and for a structured request over 512 KiB', async () => {
    const big = await f.api.create({ url: DEST, body: 'x'.repeat(256 * 1024) });
    expect(big.status).toBe(413);
    expect(big.body.error?.code).toBe('PAYLOAD_TOO_LARGE');
    const huge = await f.api.create({ url: DEST, body: 'x'.repeat(600 * 1024) });
    expect(huge.status).toBe(413);
  });

  it('answers 404 for malformed and unknown IDs', async () => {
    for (const id of ['nope', 'req_', 'req_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'sch_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'req_01arz3ndektsv4rrffq69g5fav']) {
      const res = await f.api.call('GET', `/requests/${id}`);
      expect(res.status, id).toBe(404);
      expect(res.body.error?.code).toBe('NOT_FOUND');
    }
  });

  it('answers 404 in the envelope for an unknown route', async () => {
    const res = await f.api.call('GET', '/nowhere');
    expect(res.status).toBe(404);
    expect(res.body.success).toBe(false);
  });
});
